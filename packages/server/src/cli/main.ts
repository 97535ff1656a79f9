#!/usr/bin/env node
/**
 * The `keyhold` CLI. Its contract is stable (see DESIGN.md): `serve` prints exactly one JSON
 * line on stdout when ready, logs go to stderr, SIGTERM drains and exits 0.
 * @module
 */
import { parseArgs } from 'node:util';

const USAGE = `usage: keyhold <command>

  serve        start the server (see --help)
  keygen       print a new P-256 API key pair as JSON
  conformance  run the conformance suite against a running implementation
  policy       check a file of policies offline, or explain a server's decision (see --help)
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    // Commands load lazily: `keygen` should not pay for the server, nor `serve` for the suite.
    case 'serve':
      return (await import('./serve-command.js')).runServeCommand(rest);
    case 'keygen': {
      parseArgs({ args: rest, options: {} });
      const pair = (await import('../api-key-signer.js')).generateApiKeyPair();
      process.stdout.write(
        `${JSON.stringify({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey })}\n`,
      );
      return 0;
    }
    case 'conformance':
      return (await import('./conformance-command.js')).runConformanceCommand(rest);
    case 'policy':
      return (await import('./policy-command.js')).runPolicyCommand(rest);
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
