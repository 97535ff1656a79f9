/**
 * Starting an HTTP server around a Keyhold instance: what `keyhold serve` runs, and what
 * tests use to get a real listening server.
 * @module
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createKeyholdRouter } from '@keyhold/http-express';
import express from 'express';
import { createKeyhold, type Keyhold, type KeyholdOptions } from './keyhold.js';

export interface ServeOptions extends KeyholdOptions {
  host?: string;
  /** 0 picks a free port. Default 8080. */
  port?: number;
  /** Creates (once) a root organization holding this compressed P-256 API public key. */
  bootstrapApiPublicKey?: string;
  bootstrapOrganizationName?: string;
  /** An existing instance to serve instead of creating one. */
  keyhold?: Keyhold;
}

export interface RunningServer {
  url: string;
  keyhold: Keyhold;
  organizationId?: string;
  userId?: string;
  /** Stops accepting connections, lets in-flight requests finish, closes the store. */
  close(): Promise<void>;
}

export async function startServer(options: ServeOptions = {}): Promise<RunningServer> {
  const keyhold = options.keyhold ?? createKeyhold(options);
  let organizationId: string | undefined;
  let userId: string | undefined;
  if (options.bootstrapApiPublicKey) {
    const result = await keyhold.bootstrap({
      organizationName: options.bootstrapOrganizationName ?? 'Keyhold',
      apiPublicKey: options.bootstrapApiPublicKey,
    });
    organizationId = result.organizationId;
    userId = result.userId;
  }
  const app = express();
  app.disable('x-powered-by');
  app.use(createKeyholdRouter(keyhold));
  const host = options.host ?? '127.0.0.1';
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(options.port ?? 8080, host, (error?: Error) =>
      error ? reject(error) : resolve(s),
    );
  });
  server.keepAliveTimeout = 5_000;
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    keyhold,
    ...(organizationId ? { organizationId } : {}),
    ...(userId ? { userId } : {}),
    async close() {
      keyhold.beginDrain();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await keyhold.close();
    },
  };
}
