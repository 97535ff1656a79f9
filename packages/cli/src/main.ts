#!/usr/bin/env node
/**
 * The `keyhold` CLI. Its contract is stable (see DESIGN.md): `serve` prints exactly one JSON
 * line on stdout when ready, logs go to stderr, SIGTERM drains and exits 0.
 * @module
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigurationError } from './configuration.js';

const USAGE = `usage: keyhold <command> [options]     (keyhold <command> --help for its options)

  serve        start the server
  keygen       print a new P-256 API key pair as JSON
  conformance  run the conformance suite against a running implementation
  policy       check a file of policies offline, or explain a server's decision
  whoami       list the root organizations of a data directory or database (their ids)
  audit        verify or export the tamper-evident audit log of a data directory or database
  master-key   rotate the master key (re-seals every secret in one transaction)
  backup       write the embedded store (--data DIR) to a file
  restore      recreate an embedded store from a backup file
  --version    print the version
`;

const KEYGEN_USAGE = `usage: keyhold keygen

Prints a new P-256 API key pair as one JSON line: {"apiPublicKey": "03…", "apiPrivateKey": "…"}.
The public key is what --bootstrap-api-public-key and CREATE_API_KEYS take.
`;

/** The version of the package this CLI ships in (src → dist alike). */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return String((pkg as { version?: unknown }).version);
}

/**
 * A node:util parseArgs refusal (an unknown or malformed option), or a malformed setting in
 * the environment or a --config file: a usage error.
 */
function isUsageError(error: unknown): error is Error {
  if (error instanceof ConfigurationError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    return await run(command, rest);
  } catch (error) {
    if (!isUsageError(error)) throw error;
    // One style for every usage error: the message, where to read more, exit 2.
    process.stderr.write(`keyhold ${command}: ${error.message}\n  (keyhold ${command} --help)\n`);
    return 2;
  }
}

async function run(command: string | undefined, rest: string[]): Promise<number> {
  switch (command) {
    // Commands load lazily: `keygen` should not pay for the server, nor `serve` for the suite.
    case 'serve':
      return (await import('./serve-command.js')).runServeCommand(rest);
    case 'keygen': {
      const { values } = parseArgs({ args: rest, options: { help: { type: 'boolean' } } });
      if (values.help) {
        process.stdout.write(KEYGEN_USAGE);
        return 0;
      }
      const pair = (await import('@keyhold/server')).generateApiKeyPair();
      process.stdout.write(
        `${JSON.stringify({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey })}\n`,
      );
      return 0;
    }
    case 'conformance':
      return (await import('./conformance-command.js')).runConformanceCommand(rest);
    case 'policy':
      return (await import('./policy-command.js')).runPolicyCommand(rest);
    case 'whoami':
      return (await import('./whoami-command.js')).runWhoamiCommand(rest);
    case 'audit':
      return (await import('./audit-command.js')).runAuditCommand(rest);
    case 'master-key':
      return (await import('./master-key-command.js')).runMasterKeyCommand(rest);
    case 'backup':
      return (await import('./backup-command.js')).runBackupCommand(rest);
    case 'restore':
      return (await import('./backup-command.js')).runRestoreCommand(rest);
    case '--version':
    case '-v':
    case 'version':
      process.stdout.write(`${version()}\n`);
      return 0;
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`keyhold: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

/**
 * Once a command is done, the process ends within a second even if a library left a handle
 * open (a database pool, a socket): a CLI that has said it failed must not idle on.
 */
function exitSoon(): void {
  setTimeout(() => process.exit(), 1_000).unref();
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== -1) process.exitCode = code;
    exitSoon();
  },
  (error: unknown) => {
    process.stderr.write(`keyhold: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
    exitSoon();
  },
);
