/**
 * Keyhold mounted in an existing Express app. The host keeps its own routes (GET /hello and a
 * JSON API under /api that uses express.json()) and serves Keyhold's public API under
 * /keyhold, so a published client uses `apiBaseUrl: 'http://HOST:PORT/keyhold'`.
 *
 * Order matters: Keyhold verifies each stamp over the exact bytes the client signed, so its
 * router must see the raw body. Mount it BEFORE any body parser (or give body parsers a path
 * that excludes /keyhold).
 *
 * Run it: `pnpm --filter @keyhold/example-express-mount start` (PORT=3000 by default).
 * Set KEYHOLD_API_PUBLIC_KEY (compressed P-256 hex) to bootstrap with your own key; otherwise
 * a key pair is generated and printed so you can try it with @turnkey/sdk-server.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createKeyholdRouter } from '@keyhold/http-express';
import { createKeyhold, generateApiKeyPair, type Keyhold, silentLogger } from '@keyhold/server';
import express, { type Express } from 'express';

/** The host's application, with Keyhold mounted under /keyhold. */
export function createApp(keyhold: Keyhold): Express {
  const app = express();
  app.disable('x-powered-by');

  // The host's own routes that need no body.
  app.get('/hello', (_req, res) => {
    res.json({ hello: 'world' });
  });

  // Keyhold, before any body parser: it reads the raw bytes itself.
  app.use('/keyhold', createKeyholdRouter(keyhold));

  // The host's JSON API, with its body parser mounted after Keyhold.
  app.use(express.json());
  app.post('/api/echo', (req, res) => {
    res.json({ echoed: req.body as unknown });
  });

  return app;
}

export interface MountedServer {
  /** The host app's base URL. */
  url: string;
  /** What to pass as `apiBaseUrl` / `baseUrl` to the published clients. */
  keyholdUrl: string;
  organizationId: string;
  userId: string;
  /** The bootstrap API key; `privateKey` is only known when this program generated it. */
  apiKey: { publicKey: string; privateKey?: string };
  close(): Promise<void>;
}

export interface MainOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** Compressed P-256 hex of the API key the root user holds. Default: a generated key pair. */
  apiPublicKey?: string;
}

export async function main(options: MainOptions = {}): Promise<MountedServer> {
  const keyhold = createKeyhold({ logger: silentLogger });
  const generated = options.apiPublicKey ? undefined : generateApiKeyPair();
  const apiPublicKey = options.apiPublicKey ?? generated!.publicKey;
  const { organizationId, userId } = await keyhold.bootstrap({
    organizationName: 'Host App',
    apiPublicKey,
  });

  const app = createApp(keyhold);
  const host = options.host ?? '127.0.0.1';
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(options.port ?? 3000, host, (error?: Error) =>
      error ? reject(error) : resolve(s),
    );
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host}:${port}`;
  return {
    url,
    keyholdUrl: `${url}/keyhold`,
    organizationId,
    userId,
    apiKey: generated ?? { publicKey: apiPublicKey },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await keyhold.close();
    },
  };
}

// Run as a program (not when imported by the test).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const running = await main({
    port: Number(process.env.PORT ?? 3000),
    ...(process.env.KEYHOLD_API_PUBLIC_KEY
      ? { apiPublicKey: process.env.KEYHOLD_API_PUBLIC_KEY }
      : {}),
  });
  console.log(`host app      ${running.url}/hello   ${running.url}/api/echo`);
  console.log(`keyhold       ${running.keyholdUrl}`);
  console.log(`organization  ${running.organizationId}`);
  console.log(`api key       ${running.apiKey.publicKey}`);
  if (running.apiKey.privateKey)
    console.log(`private key   ${running.apiKey.privateKey}   (generated for this demo)`);
  const stop = () => {
    running.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
