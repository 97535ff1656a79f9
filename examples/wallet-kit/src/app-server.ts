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
  close(): Promise<void>;
}

/**
 * Serves `bundle` and `config` on `host:port` (port 0: a free one).
 * @example
 * const app = await serveApp(await buildApp(), config, { port: 3000 });
 * console.log(`open ${app.url}`);
 */
export async function serveApp(
  bundle: AppBundle,
  config: WalletKitConfig,
  { host = '127.0.0.1', port = 0 }: { host?: string; port?: number } = {},
): Promise<AppServer> {
  const files: Record<string, [string, string]> = {
    '/main.js': ['text/javascript', bundle.script],
    '/main.css': ['text/css', bundle.stylesheet],
    '/config.json': ['application/json', JSON.stringify(config)],
  };
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
