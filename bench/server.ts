/**
 * The benchmark's server process: `startServer()` (Express + in-memory store + software
 * vault + OpenSSL stamp verifier, exactly what `keyhold serve --memory` composes) on a free
 * port of 127.0.0.1, bootstrapped with the API public key given as the first argument.
 * Prints one JSON line `{"url","organizationId","userId"}` on stdout when it listens;
 * SIGTERM or SIGINT closes it and exits 0.
 *
 * Spawned by bench/run.ts; not meant to be run by hand (but it can be:
 * `tsx --conditions=keyhold-source bench/server.ts 02…`).
 * @module
 */
import { silentLogger, startServer } from '@keyhold/server';

const apiPublicKey = process.argv[2];
if (!apiPublicKey || !/^0[23][0-9a-f]{64}$/.test(apiPublicKey)) {
  process.stderr.write('usage: bench/server.ts <compressed P-256 API public key hex>\n');
  process.exit(2);
}

const server = await startServer({
  host: '127.0.0.1',
  port: 0,
  logger: silentLogger,
  bootstrapApiPublicKey: apiPublicKey,
  bootstrapOrganizationName: 'Bench',
});
process.stdout.write(
  `${JSON.stringify({ url: server.url, organizationId: server.organizationId, userId: server.userId })}\n`,
);

let closing = false;
const stop = () => {
  if (closing) return;
  closing = true;
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// If the parent dies without signalling, do not linger.
process.stdin.on('end', stop);
process.stdin.resume();
