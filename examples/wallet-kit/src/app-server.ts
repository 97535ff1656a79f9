/**
 * Builds the app with esbuild (in memory) and serves it, with its `/config.json`, on a
 * loopback port: what `pnpm --filter @keyhold/example-wallet-kit start` and the browser test
 * both run.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import type { WalletKitConfig } from './wallet-kit-config.js';

/** The bundled app: its script and its stylesheet. */
export interface AppBundle {
  script: string;
  stylesheet: string;
}

/**
 * The keys of one Keyhold that replace the Turnkey production keys `@turnkey/crypto` pins
 * (the listening line's values: uncompressed P-256, hex).
 */
export interface PinnedKeys {
  /** Replaces `PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY`: it signs the OTP target bundle. */
  tlsFetcherSignPublicKey: string;
  /** Replaces `PRODUCTION_SIGNER_SIGN_PUBLIC_KEY`: it signs export and import bundles. */
  signerPublicKey: string;
  /** Replaces `PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY`: it signs session JWTs. */
  notarizerPublicKey: string;
}

/**
 * An esbuild plugin that pins `keys` in `@turnkey/crypto`'s constants. `@turnkey/core` 2.8.1
 * calls `encryptOtpCodeToBundle(code, bundle, publicKey)` with no signer override, so the OTP
 * bundle is checked against Turnkey's production TLS-fetcher key and no `TurnkeyProvider`
 * option can change it; an app talking to its own Keyhold pins Keyhold's key instead, here,
 * at build time. The check still runs, against Keyhold's real key. The build fails if a
 * constant is not found (another `@turnkey/crypto` layout), rather than ship Turnkey's key.
 */
export function pinKeyholdKeys(keys: PinnedKeys): Plugin {
  const replacements: Record<string, string> = {
    PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY: keys.tlsFetcherSignPublicKey,
    PRODUCTION_SIGNER_SIGN_PUBLIC_KEY: keys.signerPublicKey,
    PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY: keys.notarizerPublicKey,
  };
  return {
    name: 'pin-keyhold-keys',
    setup(build) {
      build.onLoad(
        { filter: /@turnkey[\\/]crypto[\\/]dist[\\/]constants\.(mjs|js)$/ },
        async (args) => {
          let contents = await readFile(args.path, 'utf8');
          for (const [name, value] of Object.entries(replacements)) {
            if (!/^04[0-9a-f]{128}$/.test(value)) throw new Error(`${name}: not a public key`);
            const declaration = new RegExp(`(const ${name} = )"[0-9a-f]+"`);
            if (!declaration.test(contents)) throw new Error(`${args.path} declares no ${name}`);
            contents = contents.replace(declaration, `$1"${value}"`);
          }
          return { contents, loader: 'js' };
        },
      );
    },
  };
}

/**
 * Bundles `src/main.tsx` and the kit's CSS for the browser (no file is written), with
 * `keys` pinned (see `pinKeyholdKeys`).
 */
export async function buildApp(keys: PinnedKeys): Promise<AppBundle> {
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
    plugins: [pinKeyholdKeys(keys)],
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
