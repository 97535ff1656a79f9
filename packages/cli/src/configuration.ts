/**
 * Where a command's settings come from: its flags, then `KEYHOLD_*` environment variables,
 * then a JSON configuration file (`--config FILE`), then the defaults — in that order of
 * precedence, for every option a command declares, so a flag added later is configurable all
 * three ways without more code. `--print-config` shows the outcome, secrets redacted.
 * @module
 */
import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';

/** One option as `node:util` `parseArgs` declares it. */
export type OptionSpec = NonNullable<ParseArgsConfig['options']>[string];

/** Where a setting's value came from. */
export type SettingSource = 'flag' | 'env' | 'file' | 'default';

/** Options every resolved command also takes; they are never read from env or a file. */
const META_OPTIONS = {
  config: { type: 'string' },
  'print-config': { type: 'boolean' },
  help: { type: 'boolean' },
} as const satisfies Record<string, OptionSpec>;

/**
 * Environment names that differ from the generic `KEYHOLD_<FLAG>` (the generic name works too).
 * @example
 * ENV_ALIASES.postgres; // 'KEYHOLD_POSTGRES_URL'
 */
export const ENV_ALIASES: Readonly<Record<string, string>> = {
  postgres: 'KEYHOLD_POSTGRES_URL',
  data: 'KEYHOLD_DATA',
  'rate-limit': 'KEYHOLD_RATE_LIMIT_URL',
};

/**
 * The environment variable of a flag: `--bootstrap-org-name` → `KEYHOLD_BOOTSTRAP_ORG_NAME`.
 * @example
 * envNameOf('log-level'); // 'KEYHOLD_LOG_LEVEL'
 */
export function envNameOf(flag: string): string {
  return `KEYHOLD_${flag.toUpperCase().replace(/-/g, '_')}`;
}

/** A usage error in the configuration: the CLI prints it with the command's help, exit 2. */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

/** What `resolveSettings` returns. */
export interface ResolvedSettings<V> {
  readonly values: V;
  /** Where each option with a value got it. */
  readonly sources: Readonly<Record<string, SettingSource>>;
  readonly help: boolean;
  readonly printConfig: boolean;
}

type Value = string | boolean | string[];

/** The value type an option spec gives. */
type ValueOf<S> = S extends { type: 'boolean' }
  ? boolean
  : S extends { multiple: true }
    ? string[]
    : string;

/**
 * The values of a command's options: defaulted options always have one.
 * @example
 * type V = SettingValues<{ port: { type: 'string'; default: '8080' } }>; // { port: string }
 */
export type SettingValues<O> = {
  [K in keyof O]: O[K] extends { default: unknown } ? ValueOf<O[K]> : ValueOf<O[K]> | undefined;
};

function fromEnv(flag: string, spec: OptionSpec, raw: string): Value {
  if (spec.type === 'boolean') {
    if (/^(1|true|yes|on)$/i.test(raw)) return true;
    if (/^(0|false|no|off)?$/i.test(raw)) return false;
    throw new ConfigurationError(`${envNameOf(flag)} must be true or false, got "${raw}"`);
  }
  // A repeatable flag takes a comma-separated list from the environment.
  return spec.multiple
    ? raw
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)
    : raw;
}

function fromFile(flag: string, spec: OptionSpec, raw: unknown, file: string): Value {
  const wrong = (expected: string) =>
    new ConfigurationError(`${file}: "${flag}" must be ${expected}, got ${JSON.stringify(raw)}`);
  if (spec.type === 'boolean') {
    if (typeof raw !== 'boolean') throw wrong('true or false');
    return raw;
  }
  if (spec.multiple) {
    const list = Array.isArray(raw) ? raw : [raw];
    if (!list.every((item) => typeof item === 'string' || typeof item === 'number')) {
      throw wrong('a string or a list of strings');
    }
    return list.map(String);
  }
  if (typeof raw !== 'string' && typeof raw !== 'number') throw wrong('a string or a number');
  return String(raw);
}

/** The settings of a JSON configuration file: an object keyed by flag names. */
function readConfigFile(
  file: string,
  options: Record<string, OptionSpec>,
): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigurationError(`--config ${file}: ${reason}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigurationError(`--config ${file}: expected a JSON object keyed by flag names`);
  }
  for (const key of Object.keys(parsed)) {
    if (!(key in options)) {
      throw new ConfigurationError(`--config ${file}: unknown setting "${key}"`);
    }
  }
  return parsed as Record<string, unknown>;
}

/**
 * Resolves a command's settings: flag > `KEYHOLD_*` env > `--config` file > default. Within
 * each `exclusive` group, only the options from the best source are kept.
 * @throws ConfigurationError for a malformed environment value or file; parseArgs' own errors
 * (`ERR_PARSE_ARGS_*`) for unknown or malformed flags
 * @example
 * const { values, sources } = resolveSettings(process.argv.slice(3), {
 *   port: { type: 'string', default: '8080' },
 * }, process.env);
 * // KEYHOLD_PORT=9000 → values.port === '9000', sources.port === 'env'
 */
export function resolveSettings<O extends Record<string, OptionSpec>>(
  args: string[],
  options: O,
  env: NodeJS.ProcessEnv,
  exclusive: readonly (readonly (keyof O & string)[])[] = [],
): ResolvedSettings<SettingValues<O>> {
  // Defaults are applied last, by hand: parseArgs would hide which values the flags gave.
  const bare = Object.fromEntries(
    Object.entries(options).map(([name, { default: _default, ...spec }]) => [name, spec]),
  );
  const { values: flags } = parseArgs({
    args,
    strict: true,
    options: { ...bare, ...META_OPTIONS },
  }) as { values: Record<string, Value | undefined> };
  const configFile = (flags.config as string | undefined) ?? env.KEYHOLD_CONFIG;
  const file = configFile ? readConfigFile(configFile, options) : {};
  const values: Record<string, Value | undefined> = {};
  const sources: Record<string, SettingSource> = {};
  for (const [flag, spec] of Object.entries(options)) {
    const envName = [ENV_ALIASES[flag], envNameOf(flag)].find(
      (name) => name !== undefined && env[name] !== undefined,
    );
    if (flags[flag] !== undefined) {
      values[flag] = flags[flag];
      sources[flag] = 'flag';
    } else if (envName) {
      values[flag] = fromEnv(flag, spec, env[envName]!);
      sources[flag] = 'env';
    } else if (file[flag] !== undefined) {
      values[flag] = fromFile(flag, spec, file[flag], configFile!);
      sources[flag] = 'file';
    } else if (spec.default !== undefined) {
      values[flag] = spec.default as Value;
      sources[flag] = 'default';
    }
  }
  // Of options that exclude each other (--memory, --data, --postgres), those from the best
  // source stand: a flag overrides the environment's choice instead of conflicting with it.
  const rank: SettingSource[] = ['flag', 'env', 'file', 'default'];
  for (const group of exclusive) {
    const given = group.filter((flag) => sources[flag] !== undefined);
    const best = Math.min(...given.map((flag) => rank.indexOf(sources[flag]!)));
    for (const flag of given) {
      if (rank.indexOf(sources[flag]!) > best) {
        delete values[flag];
        delete sources[flag];
      }
    }
  }
  return {
    values: values as SettingValues<O>,
    sources,
    help: flags.help === true,
    printConfig: flags['print-config'] === true,
  };
}

/** Setting names whose whole value is a secret. */
const SECRET_SETTINGS = /key|secret|password|token|pin/i;

/**
 * The settings as `--print-config` shows them: URL passwords and secret-named values redacted.
 * @example
 * redactSettings({ postgres: 'postgres://u:pw@db/keyhold' }); // { postgres: 'postgres://u:***@db/keyhold' }
 */
export function redactSettings(values: Record<string, unknown>): Record<string, unknown> {
  const redact = (name: string, value: unknown): unknown => {
    if (Array.isArray(value)) return value.map((item) => redact(name, item));
    if (typeof value !== 'string') return value;
    if (SECRET_SETTINGS.test(name) && !name.includes('public')) return '***';
    return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@\s]*:)[^@/\s]*@/i, '$1***@');
  };
  return Object.fromEntries(Object.entries(values).map(([name, v]) => [name, redact(name, v)]));
}
