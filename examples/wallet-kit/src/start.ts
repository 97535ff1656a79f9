/**
 * One command from a clone to a working embedded wallet on localhost:
 * `pnpm --filter @keyhold/example-wallet-kit start` starts `keyhold serve --dev` (in memory,
 * a bootstrapped parent organization, the auth proxy and the frames), builds the app with
 * esbuild and serves it on http://localhost:3000, configured from Keyhold's listening line.
 * Without `--smtp`, Keyhold prints each mail as a JSON line; the codes are shown here.
 *
 * Environment: `KEYHOLD_PORT` (default 8080), `APP_PORT` (default 3000); any other `KEYHOLD_*`
 * setting reaches `keyhold serve` (e.g. `KEYHOLD_SMTP` to send real mail).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { buildApp, serveApp } from './app-server.js';
import { enableAuthProxy } from './enable-auth-proxy.js';
import { pinnedKeysOf, rootCredentialOf, walletKitConfigFrom } from './wallet-kit-config.js';

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const keyholdPort = process.env.KEYHOLD_PORT ?? '8080';
const appPort = Number(process.env.APP_PORT ?? '3000');

const keyhold = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--conditions=keyhold-source',
    'packages/cli/src/main.ts',
    'serve',
    '--dev',
    '--port',
    keyholdPort,
  ],
  { cwd: repositoryRoot, stdio: ['ignore', 'pipe', 'pipe'] },
);
const stop = () => {
  if (keyhold.exitCode === null) keyhold.kill('SIGTERM');
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
keyhold.once('exit', (code) => process.exit(code ?? 0));

// Keyhold's logs pass through; the development mails are shown as the code they carry.
createInterface({ input: keyhold.stderr }).on('line', (line) => {
  try {
    const message = JSON.parse(line) as { notifier?: string; to?: string; text?: string };
    if (message.notifier === 'keyhold-dev') {
      const code = /code is ([0-9A-Za-z]+)/.exec(message.text ?? '')?.[1];
      console.log(`\n  ✉  mail to ${message.to}: ${code ? `code ${code}` : message.text}\n`);
      return;
    }
  } catch {
    // not JSON: print it as it is
  }
  process.stderr.write(`${line}\n`);
});

const lines = createInterface({ input: keyhold.stdout })[Symbol.asyncIterator]();
const first = await lines.next();
if (first.done) throw new Error('keyhold serve exited before it was listening');
const line = JSON.parse(first.value);
const app = await serveApp(await buildApp(pinnedKeysOf(line)), { port: appPort });
// What Turnkey's dashboard does: switch the auth proxy on for this app's origin.
const configId = await enableAuthProxy(rootCredentialOf(line), {
  allowedOrigins: [app.url],
  appName: 'Keyhold wallet example',
});
const config = walletKitConfigFrom(line, configId);
app.publish(config);
console.log(
  `\n  Keyhold    ${config.apiBaseUrl} (parent organization ${config.organizationId})` +
    `\n  Auth proxy ${config.authProxyUrl} (config ${configId})` +
    `\n  Wallet     ${app.url}   ← open this, then "Log in or sign up"\n`,
);
