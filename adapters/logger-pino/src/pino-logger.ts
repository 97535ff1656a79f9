/**
 * `pinoLogger`: the Logger port on pino. One JSON line per event, `{"level":"info","time":…,
 * "message":…, …fields}`, on stderr by default (stdout is the CLI's machine-readable output).
 * @module
 */
import type { Logger, LogLevel } from '@keyhold/activities';
import { type DestinationStream, destination, pino, stdTimeFunctions } from 'pino';

/**
 * Field names whose values never reach a line, at the top level or one level down, whatever a
 * caller passes: the loggers' callers do not log secrets, and this holds if one ever does.
 */
const SECRET_FIELDS = new Set([
  'stamp',
  'privateKey',
  'apiPrivateKey',
  'mnemonic',
  'otpCode',
  'code',
  'credentialBundle',
  'password',
  'authorization',
  'clientSecret',
  'masterKey',
]);

const CENSOR = '[redacted]';

/** An object whose named fields redaction looks at: not an array, nor bytes. */
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  !ArrayBuffer.isView(value) &&
  !(value instanceof ArrayBuffer);

/** `object` with its secret-named fields censored: itself when it has none (no copy). */
function censored(object: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    if (SECRET_FIELDS.has(key)) (out ??= { ...object })[key] = CENSOR;
  }
  return out ?? object;
}

/**
 * The fields of a line, secret-named ones censored at the top level and one level down. Done
 * here rather than by pino's `redact` (wildcard paths, `*.field`), which cost 2.3 % of the
 * event loop's busy time of `keyhold serve` under load (one access line per request): these
 * are a fixed set of names looked up in a Set, and nothing is copied when none is present.
 */
function redacted(fields: Record<string, unknown>): Record<string, unknown> {
  let out = censored(fields);
  for (const key of Object.keys(out)) {
    const value = out[key];
    if (!isRecord(value)) continue;
    const inner = censored(value);
    if (inner !== value) {
      if (out === fields) out = { ...fields };
      out[key] = inner;
    }
  }
  return out;
}

/** What `pinoLogger` takes. */
export interface PinoLoggerOptions {
  /** The least severe level written. Default `info`. */
  level?: LogLevel;
  /** Where lines go. Default: stderr, written synchronously so no line is lost at exit. */
  destination?: DestinationStream;
}

/**
 * A Logger writing pino JSON lines, with secret-named fields redacted.
 * @example
 * import { pinoLogger } from '@keyhold/logger-pino';
 * const logger = pinoLogger({ level: 'warn' });
 * logger.warn('rate limiter unavailable', { reason: 'ECONNREFUSED' });
 * // {"level":"warn","time":"2026-11-26T07:30:00.000Z","reason":"ECONNREFUSED","message":"rate limiter unavailable"}
 */
export function pinoLogger(options: PinoLoggerOptions = {}): Logger {
  const log = pino(
    {
      level: options.level ?? 'info',
      base: null,
      messageKey: 'message',
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? destination({ dest: 2, sync: true }),
  );
  return {
    debug: (message, fields) => log.debug(fields ? redacted(fields) : {}, message),
    info: (message, fields) => log.info(fields ? redacted(fields) : {}, message),
    warn: (message, fields) => log.warn(fields ? redacted(fields) : {}, message),
    error: (message, fields) => log.error(fields ? redacted(fields) : {}, message),
  };
}
