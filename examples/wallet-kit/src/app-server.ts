/**
 * Builds the app with esbuild (in memory) and serves it, with its `/config.json`, on a
 * loopback port: what `pnpm --filter @keyhold/example-wallet-kit start` and the browser test
 * both run.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { WalletKitConfig } from './wallet-kit-config.js';

/** The bundled app: its script and its stylesheet. */
export interface AppBundle {
  script: string;
  stylesheet: string;
}

/** Bundles `src/main.tsx` and the kit's CSS for the browser (no file is written). */
export async function buildApp(): Promise<AppBundle> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./main.tsx', import.meta.url))],
    bundle: true,
    write: false,
    outdir: '/app',
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"', global: 'globalThis' },
    loader: { '.woff': 'dataurl', '.woff2': 'dataurl', '.svg': 'dataurl', '.png': 'dataurl' },
    logLevel: 'silent',
  });
  const file = (ext: string) => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { script: file('.js'), stylesheet: file('.css') };
}

const PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>Keyhold embedded wallet</title>' +
  '<meta name="viewport" content="width=device-width, initial-scale=1">' +
  '<link rel="stylesheet" href="/main.css"></head>' +
  '<body><div id="root"></div><script type="module" src="/main.js"></script></body></html>';

export interface AppServer {
  server: Server;
  /** `http://localhost:PORT`: WebAuthn wants a host name (an IP is no relying-party id). */
  url: string;
  /** Sets what `/config.json` answers (503 until then). */
  publish(config: WalletKitConfig): void;
  close(): Promise<void>;
}

/**
 * Serves `bundle` on `host:port` (port 0: a free one); `/config.json` once published.
 * @example
 * const app = await serveApp(await buildApp(), { port: 3000 });
 * app.publish(walletKitConfigFrom(line, configId));
 */
export async function serveApp(
  bundle: AppBundle,
  { host = '127.0.0.1', port = 0 }: { host?: string; port?: number } = {},
): Promise<AppServer> {
  let config: string | undefined;
  const files: Record<string, [string, string]> = {
    '/main.js': ['text/javascript', bundle.script],
    '/main.css': ['text/css', bundle.stylesheet],
  };
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    if (path === '/config.json') {
      if (config === undefined) response.writeHead(503).end();
      else response.writeHead(200, { 'content-type': 'application/json' }).end(config);
      return;
    }
    const [type, body] = files[path] ?? ['text/html', PAGE];
    response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    server,
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    publish: (next) => {
      config = JSON.stringify(next);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
