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

/**
 * An Ethereum account of a wallet at `m/44'/60'/0'/0/<index>` (the address index, not the
 * account index `@turnkey/sdk-server`'s `defaultEthereumAccountAtIndex` varies).
 * @example
 * await client.createWallet({ walletName: 'w', accounts: [ethereumAccountAt(0), ethereumAccountAt(1)] });
 */
export const ethereumAccountAt = (index: number) =>
  ({
    curve: 'CURVE_SECP256K1',
    pathFormat: 'PATH_FORMAT_BIP32',
    path: `m/44'/60'/0'/0/${index}`,
    addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
  }) as const;

/**
 * Creates a user of the client's organization whose one credential is `key` (a P-256 API key
 * named after the user); its id.
 * @example
 * const bobId = await createApiKeyUser(sdk, 'bob', bobKey);
 */
export async function createApiKeyUser(
  client: SdkClient,
  userName: string,
  key: { readonly publicKey: string },
): Promise<string> {
  const { userIds } = await client.createUsers({
    users: [
      {
        userName,
        userTags: [],
        authenticators: [],
        oauthProviders: [],
        apiKeys: [
          { apiKeyName: userName, publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' },
        ],
      },
    ],
  });
  return userIds[0]!;
}

/** A `@turnkey/http` client stamping with `key` through `@turnkey/api-key-stamper`. */
export function httpClient(url: string, key: ApiKeyPair): TurnkeyClient {
  return new TurnkeyClient(
    { baseUrl: url },
    new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }),
  );
}

/** What a raw stamped request answered: the status, the headers and the JSON body. */
export interface StampedAnswer {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: the tests read whatever the body holds.
  readonly json: Record<string, any>;
}

/**
 * POSTs `body` to `url + path`, stamped with `key` by `@turnkey/api-key-stamper`: for what the
 * published clients have no method for, or to read a refusal's exact Status.
 * @example
 * const { status, json } = await stampedPost(server.url, '/public/v1/query/whoami', { organizationId }, key);
 */
export async function stampedPost(
  url: string,
  path: string,
  body: unknown,
  key: ApiKeyPair,
): Promise<StampedAnswer> {
  const text = JSON.stringify(body);
  const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });
  const { stampHeaderName, stampHeaderValue } = await stamper.stamp(text);
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [stampHeaderName]: stampHeaderValue },
    body: text,
  });
  return { status: response.status, headers: response.headers, json: await response.json() };
}

/** The `errorCode` of a Status body (its first detail's). */
// biome-ignore lint/suspicious/noExplicitAny: a Status body as the tests read it.
export const errorCodeOf = (json: Record<string, any>) => json.details?.[0]?.errorCode as string;

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
