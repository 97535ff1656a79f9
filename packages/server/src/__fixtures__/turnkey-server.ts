/**
 * The setup most HTTP tests share: a listening Keyhold server bootstrapped with a fresh root
 * API key, the published `@turnkey/sdk-server` client on it, and the embedded client for what
 * the published one lacks. Tests only (excluded from the build).
 */

import { type RunningServer, type ServeOptions, startServer } from '@keyhold/cli';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { Turnkey } from '@turnkey/sdk-server';
import { type ApiKeyPair, generateApiKeyPair } from '../api-key-signer.js';
import type { KeyholdClient } from '../keyhold-client.js';
import { silentLogger } from '../logger.js';

/** Short polls: activities complete synchronously here, so polling is for CONSENSUS_NEEDED. */
export const TEST_POLLER = { intervalMs: 50, numRetries: 5 };

/** A `@turnkey/sdk-server` API client for `organizationId`, stamping with `key`. */
export function sdkClient(
  url: string,
  organizationId: string,
  key: ApiKeyPair,
  activityPoller = TEST_POLLER,
) {
  return new Turnkey({
    apiBaseUrl: url,
    apiPublicKey: key.publicKey,
    apiPrivateKey: key.privateKey,
    defaultOrganizationId: organizationId,
    activityPoller,
  }).apiClient();
}

export type SdkClient = ReturnType<typeof sdkClient>;

/** A `@turnkey/http` client stamping with `key` through `@turnkey/api-key-stamper`. */
export function httpClient(url: string, key: ApiKeyPair): TurnkeyClient {
  return new TurnkeyClient(
    { baseUrl: url },
    new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }),
  );
}

/** Awaits a call that must be refused; returns its error (an Error, with the client's `code`). */
export async function rejection(call: Promise<unknown>): Promise<Error & { code?: number }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof Error)) throw new Error(`refused with a non-Error: ${String(error)}`);
    return error as Error & { code?: number };
  }
  throw new Error('expected the call to be refused, but it succeeded');
}

export interface TurnkeyServer {
  readonly server: RunningServer;
  /** The root user's API key pair. */
  readonly key: ApiKeyPair;
  readonly organizationId: string;
  /** The root user. */
  readonly userId: string;
  /** `@turnkey/sdk-server` as the root user. */
  readonly client: SdkClient;
  /** The embedded client as the root user (for activities the published client lacks). */
  readonly embedded: KeyholdClient;
}

/**
 * Starts a server on a free loopback port (silent logs, memory store unless `options` say
 * otherwise) with a bootstrapped root organization. Close it with `server.close()`.
 */
export async function startTurnkeyServer(options: ServeOptions = {}): Promise<TurnkeyServer> {
  const key = generateApiKeyPair();
  const server = await startServer({
    port: 0,
    logger: silentLogger,
    bootstrapApiPublicKey: key.publicKey,
    ...options,
  });
  const organizationId = server.organizationId!;
  return {
    server,
    key,
    organizationId,
    userId: server.userId!,
    client: sdkClient(server.url, organizationId, key),
    embedded: server.keyhold.client({ organizationId, apiPrivateKey: key.privateKey }),
  };
}
