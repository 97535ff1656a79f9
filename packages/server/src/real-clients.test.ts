/**
 * Keyhold driven by the PUBLISHED clients, unchanged, over real HTTP: `@turnkey/sdk-server`
 * (`Turnkey#apiClient()`), and `@turnkey/http` (`TurnkeyClient` + `ApiKeyStamper` +
 * `createActivityPoller`). Every signature a client gets back is verified independently
 * (viem for secp256k1 recovery, @noble/curves for Ed25519).
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningServer, startServer } from '@keyhold/cli';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 as k1 } from '@noble/curves/secp256k1.js';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import {
  createActivityPoller,
  getSignatureFromActivity,
  getSignaturesFromActivity,
  TurnkeyRequestError as HttpRequestError,
  TurnkeyActivityError,
  TurnkeyClient,
} from '@turnkey/http';
import { TurnkeyRequestError } from '@turnkey/sdk-server';
import {
  bytesToHex,
  getAddress,
  type Hex,
  hexToBytes,
  keccak256,
  recoverAddress,
  recoverPublicKey,
  serializeSignature,
  stringToBytes,
} from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpClient, rejection, sdkClient } from './__fixtures__/turnkey-server.js';
import { type ApiKeyPair, generateApiKeyPair } from './api-key-signer.js';
import { silentLogger } from './logger.js';

const ORG_NAME = 'Real Clients Org';
const ETH_PATH_0 = "m/44'/60'/0'/0/0";
const ETH_PATH_1 = "m/44'/60'/1'/0/0";
const SOL_PATH_0 = "m/44'/501'/0'/0'";
const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: ETH_PATH_0,
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const SOL_ACCOUNT = {
  curve: 'CURVE_ED25519',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: SOL_PATH_0,
  addressFormat: 'ADDRESS_FORMAT_SOLANA',
} as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX64 = /^[0-9a-f]{64}$/;

// ---------------------------------------------------------------------------------------
// Independent oracles (no Keyhold code): signature recovery, Solana base58, fingerprints.

interface Sig {
  r: string;
  s: string;
  v: string;
}

/** The wire signature (hex without 0x, v "00"/"01") as viem's serialized 65-byte form. */
function viemSignature(sig: Sig): Hex {
  expect(sig.r).toMatch(HEX64);
  expect(sig.s).toMatch(HEX64);
  expect(['00', '01']).toContain(sig.v);
  return serializeSignature({ r: `0x${sig.r}`, s: `0x${sig.s}`, yParity: Number(sig.v) });
}

async function recoveredAddress(digest: Hex, sig: Sig): Promise<string> {
  return recoverAddress({ hash: digest, signature: viemSignature(sig) });
}

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Bitcoin-alphabet base58 (what Solana addresses are): a test oracle, not product code. */
function base58(bytes: Uint8Array): string {
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = BASE58_ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    out = `1${out}`;
  }
  return out;
}

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** Checksummed Ethereum address of a compressed or uncompressed secp256k1 public key (hex). */
function ethAddressOf(publicKeyHex: string): string {
  const uncompressed = k1.Point.fromHex(publicKeyHex.replace(/^0x/, '')).toBytes(false);
  return publicKeyToAddress(bytesToHex(uncompressed));
}

/** Sends a request that the published client built and stamped, to see the HTTP status. */
async function sendSigned(
  signed:
    | { url: string; body: string; stamp: { stampHeaderName: string; stampHeaderValue: string } }
    | undefined,
) {
  if (!signed) throw new Error('the client did not build a signed request');
  const response = await fetch(signed.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      [signed.stamp.stampHeaderName]: signed.stamp.stampHeaderValue,
    },
    body: signed.body,
  });
  return {
    status: response.status,
    body: (await response.json()) as { code: number; message: string },
  };
}

// ---------------------------------------------------------------------------------------

describe('published clients against a real Express server', () => {
  let server: RunningServer;
  let root: ApiKeyPair;
  let organizationId: string;
  let rootUserId: string;
  let sdk: ReturnType<typeof sdkClient>;
  let http: TurnkeyClient;

  // State shared by the ordered tests below.
  let walletId: string;
  let ethAddress: string;
  let solAddress: string;

  beforeAll(async () => {
    root = generateApiKeyPair();
    server = await startServer({
      port: 0,
      logger: silentLogger,
      bootstrapApiPublicKey: root.publicKey,
      bootstrapOrganizationName: ORG_NAME,
    });
    organizationId = server.organizationId!;
    rootUserId = server.userId!;
    sdk = sdkClient(server.url, organizationId, root);
    http = httpClient(server.url, root);
  });

  afterAll(async () => {
    await server?.close();
  });

  describe('@turnkey/sdk-server', () => {
    it('getWhoami names the bootstrap organization and its root user', async () => {
      const me = await sdk.getWhoami();
      expect(me).toMatchObject({
        organizationId,
        organizationName: ORG_NAME,
        userId: rootUserId,
        username: 'root',
      });
    });

    it('createWallet with an Ethereum and a Solana account', async () => {
      const result = await sdk.createWallet({
        walletName: 'treasury',
        accounts: [ETH_ACCOUNT, SOL_ACCOUNT],
      });
      expect(result.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(result.activity.type).toBe('ACTIVITY_TYPE_CREATE_WALLET');
      expect(result.activity.organizationId).toBe(organizationId);
      expect(result.walletId).toMatch(UUID);
      expect(result.addresses).toHaveLength(2);
      walletId = result.walletId;
      [ethAddress, solAddress] = result.addresses as [string, string];
      expect(ethAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(ethAddress).toBe(getAddress(ethAddress)); // EIP-55 checksummed
      expect(solAddress).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    });

    it('the activity records the exact body the client signed (fingerprint and vote)', async () => {
      const { activities } = await sdk.getActivities({
        filterByType: ['ACTIVITY_TYPE_CREATE_WALLET'],
      });
      expect(activities).toHaveLength(1);
      const activity = activities[0]!;
      expect(activity.votes).toHaveLength(1);
      const vote = activity.votes[0]!;
      expect(vote.userId).toBe(rootUserId);
      expect(vote.publicKey).toBe(root.publicKey);
      expect(vote.scheme).toBe('SIGNATURE_SCHEME_TK_API_P256');
      expect(activity.fingerprint).toBe(`sha256:${sha256Hex(vote.message)}`);
      // sdk-server writes parameters, organizationId, timestampMs, type, in that order.
      expect(Object.keys(JSON.parse(vote.message))).toEqual([
        'parameters',
        'organizationId',
        'timestampMs',
        'type',
      ]);
      const digest = createHash('sha256').update(vote.message).digest();
      expect(
        p256.verify(
          Buffer.from(vote.signature, 'hex'),
          digest,
          Buffer.from(root.publicKey, 'hex'),
          {
            prehash: false,
            format: 'der',
            lowS: false,
          },
        ),
      ).toBe(true);
    });

    it('createWalletAccounts adds an account at a new path', async () => {
      const result = await sdk.createWalletAccounts({
        walletId,
        accounts: [{ ...ETH_ACCOUNT, path: ETH_PATH_1 }],
      });
      expect(result.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(result.addresses).toHaveLength(1);
      expect(result.addresses[0]).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(result.addresses[0]).not.toBe(ethAddress);
    });

    it('a re-used path is a FAILED activity, returned (not thrown) by sdk-server', async () => {
      const result = await sdk.createWalletAccounts({ walletId, accounts: [ETH_ACCOUNT] });
      expect(result.activity.status).toBe('ACTIVITY_STATUS_FAILED');
      expect(result.activity.failure?.message).toBe('invalid path');
      expect((result as { addresses?: unknown }).addresses).toBeUndefined();
    });

    it('getWallets, getWallet and getWalletAccounts describe what was created', async () => {
      const { wallets } = await sdk.getWallets();
      expect(wallets).toHaveLength(1);
      expect(wallets[0]).toMatchObject({
        walletId,
        walletName: 'treasury',
        exported: false,
        imported: false,
      });
      expect(wallets[0]!.createdAt).toEqual({
        seconds: expect.stringMatching(/^\d+$/),
        nanos: expect.stringMatching(/^\d+$/),
      });

      const { wallet } = await sdk.getWallet({ walletId });
      expect(wallet).toMatchObject({ walletId, walletName: 'treasury' });

      const { accounts } = await sdk.getWalletAccounts({ walletId });
      expect(accounts.map((a) => [a.path, a.addressFormat, a.curve])).toEqual(
        expect.arrayContaining([
          [ETH_PATH_0, 'ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1'],
          [SOL_PATH_0, 'ADDRESS_FORMAT_SOLANA', 'CURVE_ED25519'],
          [ETH_PATH_1, 'ADDRESS_FORMAT_ETHEREUM', 'CURVE_SECP256K1'],
        ]),
      );
      expect(accounts).toHaveLength(3);
      for (const account of accounts) {
        expect(account).toMatchObject({
          walletId,
          organizationId,
          pathFormat: 'PATH_FORMAT_BIP32',
        });
        expect(account.walletAccountId).toMatch(UUID);
      }
      const eth = accounts.find((a) => a.path === ETH_PATH_0)!;
      const sol = accounts.find((a) => a.path === SOL_PATH_0)!;
      expect(eth.address).toBe(ethAddress);
      expect(ethAddressOf(eth.publicKey!)).toBe(ethAddress);
      expect(sol.address).toBe(solAddress);
      expect(sol.publicKey).toMatch(HEX64);
      expect(base58(Buffer.from(sol.publicKey!, 'hex'))).toBe(solAddress);
    });

    it('signRawPayload: a keccak digest, HEXADECIMAL + NO_OP, recovers to the account', async () => {
      const digest = keccak256(stringToBytes('keyhold says hello'));
      const sig = await sdk.signRawPayload({
        signWith: ethAddress,
        payload: digest,
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      });
      expect(sig.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(sig.activity.type).toBe('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2');
      expect(await recoveredAddress(digest, sig)).toBe(ethAddress);
      const publicKey = await recoverPublicKey({ hash: digest, signature: viemSignature(sig) });
      expect(publicKeyToAddress(publicKey)).toBe(ethAddress);
    });

    it('signRawPayload: TEXT_UTF8 + KECCAK256 signs keccak256 of the text', async () => {
      const text = 'pay 1 ETH to bob';
      const sig = await sdk.signRawPayload({
        signWith: ethAddress,
        payload: text,
        encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
        hashFunction: 'HASH_FUNCTION_KECCAK256',
      });
      expect(sig.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(await recoveredAddress(keccak256(stringToBytes(text)), sig)).toBe(ethAddress);
    });

    it('signRawPayload: Ed25519 with NOT_APPLICABLE verifies against the account public key', async () => {
      const { accounts } = await sdk.getWalletAccounts({ walletId });
      const publicKey = accounts.find((a) => a.address === solAddress)!.publicKey!;
      const message = stringToBytes('solana message bytes');
      const sig = await sdk.signRawPayload({
        signWith: solAddress,
        payload: bytesToHex(message).slice(2),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE',
      });
      expect(sig.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(sig.r).toMatch(HEX64);
      expect(sig.s).toMatch(HEX64);
      expect(sig.v).toBe('00');
      expect(
        ed25519.verify(hexToBytes(`0x${sig.r}${sig.s}`), message, hexToBytes(`0x${publicKey}`)),
      ).toBe(true);
      // And not against another message.
      expect(
        ed25519.verify(
          hexToBytes(`0x${sig.r}${sig.s}`),
          stringToBytes('other'),
          hexToBytes(`0x${publicKey}`),
        ),
      ).toBe(false);
    });

    it('signRawPayloads signs each payload', async () => {
      const digests = ['one', 'two', 'three'].map((t) => keccak256(stringToBytes(t)));
      const result = await sdk.signRawPayloads({
        signWith: ethAddress,
        payloads: digests,
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      });
      expect(result.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(result.activity.type).toBe('ACTIVITY_TYPE_SIGN_RAW_PAYLOADS');
      expect(result.signatures).toHaveLength(3);
      for (const [i, digest] of digests.entries()) {
        expect(await recoveredAddress(digest, result.signatures![i]!)).toBe(ethAddress);
      }
    });

    it('an unknown signWith is a FAILED activity with failure.message', async () => {
      const result = await sdk.signRawPayload({
        signWith: '0x000000000000000000000000000000000000dEaD',
        payload: keccak256(stringToBytes('x')),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      });
      expect(result.activity.status).toBe('ACTIVITY_STATUS_FAILED');
      expect(result.activity.failure?.message).toBe(
        'could not find a wallet account or private key for signWith in organization',
      );
      expect((result as { r?: string }).r).toBeUndefined();
      const { activity } = await sdk.getActivity({ activityId: result.activity.id });
      expect(activity.status).toBe('ACTIVITY_STATUS_FAILED');
      expect(activity.failure?.message).toBe(result.activity.failure?.message);
    });

    it('createPrivateKeys (secp256k1/ETHEREUM, ed25519/SOLANA), getPrivateKeys, and signing with them', async () => {
      const created = await sdk.createPrivateKeys({
        privateKeys: [
          {
            privateKeyName: 'hot-eth',
            curve: 'CURVE_SECP256K1',
            privateKeyTags: [],
            addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
          },
          {
            privateKeyName: 'hot-sol',
            curve: 'CURVE_ED25519',
            privateKeyTags: [],
            addressFormats: ['ADDRESS_FORMAT_SOLANA'],
          },
        ],
      });
      expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(created.activity.type).toBe('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2');
      expect(created.privateKeys).toHaveLength(2);
      const [ethKey, solKey] = created.privateKeys as [
        { privateKeyId: string; addresses: { format: string; address: string }[] },
        { privateKeyId: string; addresses: { format: string; address: string }[] },
      ];
      expect(ethKey.privateKeyId).toMatch(UUID);
      expect(ethKey.addresses).toEqual([
        {
          format: 'ADDRESS_FORMAT_ETHEREUM',
          address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
        },
      ]);
      expect(solKey.addresses).toEqual([
        { format: 'ADDRESS_FORMAT_SOLANA', address: expect.any(String) },
      ]);

      const { privateKeys } = await sdk.getPrivateKeys();
      expect(privateKeys.map((k) => k.privateKeyName).sort()).toEqual(['hot-eth', 'hot-sol']);
      const ethRecord = privateKeys.find((k) => k.privateKeyId === ethKey.privateKeyId)!;
      const solRecord = privateKeys.find((k) => k.privateKeyId === solKey.privateKeyId)!;
      expect(ethRecord.curve).toBe('CURVE_SECP256K1');
      expect(ethAddressOf(ethRecord.publicKey)).toBe(ethKey.addresses[0]!.address);
      expect(solRecord.curve).toBe('CURVE_ED25519');
      expect(base58(Buffer.from(solRecord.publicKey, 'hex'))).toBe(solKey.addresses[0]!.address);

      const digest = keccak256(stringToBytes('private key signing'));
      for (const signWith of [ethKey.privateKeyId, ethKey.addresses[0]!.address]) {
        const sig = await sdk.signRawPayload({
          signWith,
          payload: digest,
          encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
          hashFunction: 'HASH_FUNCTION_NO_OP',
        });
        expect(sig.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
        expect(await recoveredAddress(digest, sig)).toBe(ethKey.addresses[0]!.address);
      }
      const message = stringToBytes('ed25519 private key');
      const sig = await sdk.signRawPayload({
        signWith: solKey.addresses[0]!.address,
        payload: bytesToHex(message).slice(2),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE',
      });
      expect(
        ed25519.verify(
          hexToBytes(`0x${sig.r}${sig.s}`),
          message,
          hexToBytes(`0x${solRecord.publicKey}`),
        ),
      ).toBe(true);
    });

    it('single-record reads: getWalletAccount, getPrivateKey, getUser, getUsers, getApiKey', async () => {
      const { account } = await sdk.getWalletAccount({ walletId, address: solAddress });
      expect(account).toMatchObject({
        walletId,
        address: solAddress,
        path: SOL_PATH_0,
        curve: 'CURVE_ED25519',
      });
      const byPath = await sdk.getWalletAccount({ walletId, path: ETH_PATH_0 });
      expect(byPath.account.address).toBe(ethAddress);

      const { privateKeys } = await sdk.getPrivateKeys();
      const first = privateKeys[0]!;
      const { privateKey } = await sdk.getPrivateKey({ privateKeyId: first.privateKeyId });
      expect(privateKey).toMatchObject({
        privateKeyId: first.privateKeyId,
        privateKeyName: first.privateKeyName,
        publicKey: first.publicKey,
        curve: first.curve,
      });

      const { user } = await sdk.getUser({ userId: rootUserId });
      expect(user).toMatchObject({ userId: rootUserId, userName: 'root' });
      expect(user.apiKeys.map((k) => k.credential.publicKey)).toEqual([root.publicKey]);
      const { users } = await sdk.getUsers();
      expect(users.map((u) => u.userId)).toEqual([rootUserId]);

      const apiKeyId = user.apiKeys[0]!.apiKeyId;
      const { apiKey } = await sdk.getApiKey({ apiKeyId });
      expect(apiKey).toMatchObject({
        apiKeyId,
        credential: { publicKey: root.publicKey, type: 'CREDENTIAL_TYPE_API_KEY_P256' },
      });
    });

    it('updateWallet renames a wallet', async () => {
      const result = await sdk.updateWallet({ walletId, walletName: 'treasury-2' });
      expect(result.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(result.walletId).toBe(walletId);
      expect((await sdk.getWallet({ walletId })).wallet.walletName).toBe('treasury-2');
      const back = await sdk.updateWallet({ walletId, walletName: 'treasury' });
      expect(back.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    });

    describe('a non-root user', () => {
      let bob: ApiKeyPair;
      let bobUserId: string;
      let bobSdk: ReturnType<typeof sdkClient>;

      beforeAll(async () => {
        bob = generateApiKeyPair();
        const created = await sdk.createUsers({
          users: [
            {
              userName: 'bob',
              apiKeys: [
                {
                  apiKeyName: 'bob-key',
                  publicKey: bob.publicKey,
                  curveType: 'API_KEY_CURVE_P256',
                },
              ],
              authenticators: [],
              oauthProviders: [],
              userTags: [],
            },
          ],
        });
        expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
        expect(created.activity.type).toBe('ACTIVITY_TYPE_CREATE_USERS_V4');
        expect(created.userIds).toHaveLength(1);
        bobUserId = created.userIds[0]!;
        bobSdk = sdkClient(server.url, organizationId, bob);
      });

      it('can read: getWhoami and getWallets', async () => {
        const me = await bobSdk.getWhoami();
        expect(me).toMatchObject({ organizationId, userId: bobUserId, username: 'bob' });
        const { wallets } = await bobSdk.getWallets();
        expect(wallets.map((w) => w.walletId)).toEqual([walletId]);
      });

      it('is refused create_wallet: TurnkeyRequestError code 7 "request not authorized", HTTP 403, nothing stored', async () => {
        const before = (await sdk.getActivities()).activities.length;
        const error = await rejection(
          bobSdk.createWallet({ walletName: 'mine', accounts: [ETH_ACCOUNT] }),
        );
        expect(error).toBeInstanceOf(TurnkeyRequestError);
        expect(error.code).toBe(7);
        expect(error.message).toMatch(/^Turnkey error 7: request not authorized/);

        const signed = await bobSdk.stampCreateWallet({
          walletName: 'mine',
          accounts: [ETH_ACCOUNT],
        });
        const { status, body } = await sendSigned(signed);
        expect(status).toBe(403);
        expect(body).toMatchObject({ code: 7, message: 'request not authorized' });

        expect((await sdk.getActivities()).activities.length).toBe(before);
        expect((await sdk.getWallets()).wallets).toHaveLength(1);
      });

      it('createApiKeys / getApiKeys / deleteApiKeys manage bob’s keys', async () => {
        const second = generateApiKeyPair();
        const created = await sdk.createApiKeys({
          userId: bobUserId,
          apiKeys: [
            {
              apiKeyName: 'bob-second',
              publicKey: second.publicKey,
              curveType: 'API_KEY_CURVE_P256',
            },
          ],
        });
        expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
        expect(created.activity.type).toBe('ACTIVITY_TYPE_CREATE_API_KEYS_V2');
        expect(created.apiKeyIds).toHaveLength(1);
        const apiKeyId = created.apiKeyIds[0]!;

        const { apiKeys } = await sdk.getApiKeys({ userId: bobUserId });
        expect(apiKeys.map((k) => k.apiKeyName).sort()).toEqual(['bob-key', 'bob-second']);
        const record = apiKeys.find((k) => k.apiKeyId === apiKeyId)!;
        expect(record.credential).toMatchObject({
          publicKey: second.publicKey,
          type: 'CREDENTIAL_TYPE_API_KEY_P256',
        });

        const secondSdk = sdkClient(server.url, organizationId, second);
        expect((await secondSdk.getWhoami()).userId).toBe(bobUserId);

        const deleted = await sdk.deleteApiKeys({ userId: bobUserId, apiKeyIds: [apiKeyId] });
        expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
        expect(deleted.apiKeyIds).toEqual([apiKeyId]);
        expect(
          (await sdk.getApiKeys({ userId: bobUserId })).apiKeys.map((k) => k.apiKeyName),
        ).toEqual(['bob-key']);

        const error = await rejection(secondSdk.getWhoami());
        expect(error).toBeInstanceOf(TurnkeyRequestError);
        expect(error.code).toBe(16);
        expect(error.message).toMatch(
          /^Turnkey error 16: could not find public key in organization or its parent organization/,
        );
      });

      it('an expired short-lived API key is refused: 401 "expired api key"', async () => {
        const shortLived = generateApiKeyPair();
        const created = await sdk.createApiKeys({
          userId: bobUserId,
          apiKeys: [
            {
              apiKeyName: 'one-second',
              publicKey: shortLived.publicKey,
              curveType: 'API_KEY_CURVE_P256',
              expirationSeconds: '1',
            },
          ],
        });
        expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
        const { apiKeys } = await sdk.getApiKeys({ userId: bobUserId });
        expect(apiKeys.find((k) => k.apiKeyName === 'one-second')?.expirationSeconds).toBe('1');

        await sleep(1_300);
        const shortSdk = sdkClient(server.url, organizationId, shortLived);
        const error = await rejection(shortSdk.getWhoami());
        expect(error).toBeInstanceOf(TurnkeyRequestError);
        expect(error.code).toBe(16);
        expect(error.message).toMatch(/^Turnkey error 16: expired api key/);

        const { status, body } = await sendSigned(
          await shortSdk.stampGetWhoami({ organizationId }),
        );
        expect(status).toBe(401);
        expect(body).toMatchObject({ code: 16, message: 'expired api key' });
      });

      it('updateUser and updateUserName change bob’s record', async () => {
        const updated = await sdk.updateUser({ userId: bobUserId, userEmail: 'bob@example.com' });
        expect(updated.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
        expect(updated.userId).toBe(bobUserId);
        const renamed = await sdk.updateUserName({ userId: bobUserId, userName: 'robert' });
        expect(renamed.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
        expect(renamed.userId).toBe(bobUserId);
        const { user } = await sdk.getUser({ userId: bobUserId });
        expect(user).toMatchObject({
          userId: bobUserId,
          userName: 'robert',
          userEmail: 'bob@example.com',
        });
        expect((await bobSdk.getWhoami()).username).toBe('robert');
      });

      it('updateRootQuorum adds bob to the quorum, after which bob may create a wallet', async () => {
        const updated = await sdk.updateRootQuorum({
          threshold: 1,
          userIds: [rootUserId, bobUserId],
        });
        expect(updated.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
        expect(updated.activity.type).toBe('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM');

        const org = await http.getOrganization({ organizationId });
        expect(org.organizationData.rootQuorum?.threshold).toBe(1);
        expect([...(org.organizationData.rootQuorum?.userIds ?? [])].sort()).toEqual(
          [rootUserId, bobUserId].sort(),
        );

        const wallet = await bobSdk.createWallet({
          walletName: 'bob-wallet',
          accounts: [ETH_ACCOUNT],
        });
        expect(wallet.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
        expect(wallet.walletId).toMatch(UUID);
      });
    });

    it('updateOrganizationName renames the organization', async () => {
      const result = await sdk.updateOrganizationName({ organizationName: 'Renamed Org' });
      expect(result.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(result.organizationId).toBe(organizationId);
      expect(result.organizationName).toBe('Renamed Org');
      expect((await sdk.getWhoami()).organizationName).toBe('Renamed Org');
    });

    it('deleteUsers removes a user and its API keys stop working', async () => {
      const carol = generateApiKeyPair();
      const { userIds } = await sdk.createUsers({
        users: [
          {
            userName: 'carol',
            apiKeys: [
              {
                apiKeyName: 'carol-key',
                publicKey: carol.publicKey,
                curveType: 'API_KEY_CURVE_P256',
              },
            ],
            authenticators: [],
            oauthProviders: [],
            userTags: [],
          },
        ],
      });
      const carolSdk = sdkClient(server.url, organizationId, carol);
      expect((await carolSdk.getWhoami()).username).toBe('carol');
      const deleted = await sdk.deleteUsers({ userIds });
      expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(deleted.userIds).toEqual(userIds);
      expect((await sdk.getUsers()).users.map((u) => u.userName).sort()).toEqual([
        'robert',
        'root',
      ]);
      const error = await rejection(carolSdk.getWhoami());
      expect(error).toBeInstanceOf(TurnkeyRequestError);
      expect(error.code).toBe(16);
    });

    it('getActivities pages with limit and after', async () => {
      const all = (await sdk.getActivities({ paginationOptions: { limit: '100' } })).activities;
      expect(all.length).toBeGreaterThan(10);
      const firstPage = (await sdk.getActivities({ paginationOptions: { limit: '3' } })).activities;
      expect(firstPage.map((a) => a.id)).toEqual(all.slice(0, 3).map((a) => a.id));
      const nextPage = (
        await sdk.getActivities({ paginationOptions: { limit: '3', after: firstPage[2]!.id } })
      ).activities;
      expect(nextPage.map((a) => a.id)).toEqual(all.slice(3, 6).map((a) => a.id));
      // The default page size is 10.
      expect((await sdk.getActivities()).activities).toHaveLength(10);
    });

    it('payload forms: hex with or without 0x, and SHA256', async () => {
      const digest = keccak256(stringToBytes('with and without 0x'));
      for (const payload of [digest, digest.slice(2)]) {
        const sig = await sdk.signRawPayload({
          signWith: ethAddress,
          payload,
          encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
          hashFunction: 'HASH_FUNCTION_NO_OP',
        });
        expect(await recoveredAddress(digest, sig)).toBe(ethAddress);
      }
      const text = 'sha256 me';
      const sig = await sdk.signRawPayload({
        signWith: ethAddress,
        payload: text,
        encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
        hashFunction: 'HASH_FUNCTION_SHA256',
      });
      expect(await recoveredAddress(`0x${sha256Hex(text)}`, sig)).toBe(ethAddress);
    });

    it('stamps from every ApiKeyStamper runtime verify (node, purejs, WebCrypto; high-S and low-S alike)', async () => {
      for (const runtimeOverride of ['node', 'purejs', 'browser'] as const) {
        const client = new TurnkeyClient(
          { baseUrl: server.url },
          new ApiKeyStamper({
            apiPublicKey: root.publicKey,
            apiPrivateKey: root.privateKey,
            runtimeOverride,
          }),
        );
        // The node path emits high-S about half the time: 16 calls all but surely include both.
        for (let i = 0; i < 16; i++) {
          expect((await client.getWhoami({ organizationId })).userId).toBe(rootUserId);
        }
      }
    });

    it('getActivity and getActivities return the stored activities', async () => {
      const signed = await sdk.signRawPayload({
        signWith: ethAddress,
        payload: keccak256(stringToBytes('getActivity')),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      });
      const { activity } = await sdk.getActivity({ activityId: signed.activity.id });
      expect(activity.id).toBe(signed.activity.id);
      expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(activity.result.signRawPayloadResult).toEqual({
        r: signed.r,
        s: signed.s,
        v: signed.v,
      });
      expect(activity.intent.signRawPayloadIntentV2).toMatchObject({ signWith: ethAddress });

      const { activities } = await sdk.getActivities({
        filterByType: ['ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'],
        filterByStatus: ['ACTIVITY_STATUS_COMPLETED'],
        paginationOptions: { limit: '100' },
      });
      expect(activities.map((a) => a.id)).toContain(signed.activity.id);
      expect(activities.every((a) => a.type === 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2')).toBe(true);
      expect(activities.every((a) => a.status === 'ACTIVITY_STATUS_COMPLETED')).toBe(true);
      // digest + text + ed25519 + 3 with the private keys + 3 payload forms + this one
      expect(activities).toHaveLength(10);

      const failed = await sdk.getActivities({ filterByStatus: ['ACTIVITY_STATUS_FAILED'] });
      expect(failed.activities.map((a) => a.type).sort()).toEqual([
        'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS',
        'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      ]);
    });
  });

  describe('@turnkey/http (TurnkeyClient + ApiKeyStamper + createActivityPoller)', () => {
    let httpEthAddress: string;

    it('getWhoami', async () => {
      const me = await http.getWhoami({ organizationId });
      expect(me).toMatchObject({ organizationId, userId: rootUserId, username: 'root' });
    });

    it('createWallet through the poller', async () => {
      const poll = createActivityPoller({
        client: http,
        requestFn: http.createWallet,
        refreshIntervalMs: 50,
      });
      const activity = await poll({
        type: 'ACTIVITY_TYPE_CREATE_WALLET',
        timestampMs: String(Date.now()),
        organizationId,
        parameters: { walletName: 'via-http', accounts: [ETH_ACCOUNT] },
      });
      expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      const result = activity.result.createWalletResult!;
      expect(result.walletId).toMatch(UUID);
      expect(result.addresses).toHaveLength(1);
      httpEthAddress = result.addresses[0]!;
      expect(httpEthAddress).toBe(getAddress(httpEthAddress));
      const { wallet } = await http.getWallet({ organizationId, walletId: result.walletId });
      expect(wallet.walletName).toBe('via-http');
    });

    it('signRawPayload through the poller, read with getSignatureFromActivity', async () => {
      const poll = createActivityPoller({
        client: http,
        requestFn: http.signRawPayload,
        refreshIntervalMs: 50,
      });
      const digest = keccak256(stringToBytes('http client'));
      const activity = await poll({
        type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
        timestampMs: String(Date.now()),
        organizationId,
        parameters: {
          signWith: httpEthAddress,
          payload: digest,
          encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
          hashFunction: 'HASH_FUNCTION_NO_OP',
        },
      });
      const sig = getSignatureFromActivity(activity);
      expect(await recoveredAddress(digest, sig)).toBe(httpEthAddress);

      // Polling get_activity returns the same completed activity.
      const polled = await http.getActivity({ organizationId, activityId: activity.id });
      expect(polled.activity.id).toBe(activity.id);
      expect(polled.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(getSignatureFromActivity(polled.activity)).toEqual(sig);
    });

    it('signRawPayloads through the poller, read with getSignaturesFromActivity', async () => {
      const poll = createActivityPoller({
        client: http,
        requestFn: http.signRawPayloads,
        refreshIntervalMs: 50,
      });
      const digests = ['a', 'b'].map((t) => keccak256(stringToBytes(t)));
      const activity = await poll({
        type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS',
        timestampMs: String(Date.now()),
        organizationId,
        parameters: {
          signWith: httpEthAddress,
          payloads: digests,
          encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
          hashFunction: 'HASH_FUNCTION_NO_OP',
        },
      });
      const sigs = getSignaturesFromActivity(activity);
      expect(sigs).toHaveLength(2);
      for (const [i, digest] of digests.entries()) {
        expect(await recoveredAddress(digest, sigs[i]!)).toBe(httpEthAddress);
      }
    });

    it('the same body is the same activity; a new timestampMs is a new one', async () => {
      const body = {
        type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' as const,
        timestampMs: String(Date.now()),
        organizationId,
        parameters: {
          signWith: httpEthAddress,
          payload: keccak256(stringToBytes('idempotent')),
          encoding: 'PAYLOAD_ENCODING_HEXADECIMAL' as const,
          hashFunction: 'HASH_FUNCTION_NO_OP' as const,
        },
      };
      const first = await http.signRawPayload(body);
      const again = await http.signRawPayload(body);
      expect(again.activity.id).toBe(first.activity.id);
      expect(again.activity.fingerprint).toBe(first.activity.fingerprint);
      expect(first.activity.fingerprint).toBe(`sha256:${sha256Hex(JSON.stringify(body))}`);
      const fresh = await http.signRawPayload({
        ...body,
        timestampMs: String(Number(body.timestampMs) + 1),
      });
      expect(fresh.activity.id).not.toBe(first.activity.id);
    });

    it('a failed activity makes the poller throw TurnkeyActivityError', async () => {
      const poll = createActivityPoller({
        client: http,
        requestFn: http.signRawPayload,
        refreshIntervalMs: 50,
      });
      const error = await rejection(
        poll({
          type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
          timestampMs: String(Date.now()),
          organizationId,
          parameters: {
            signWith: '0x000000000000000000000000000000000000dEaD',
            payload: keccak256(stringToBytes('nope')),
            encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
            hashFunction: 'HASH_FUNCTION_NO_OP',
          },
        }),
      );
      expect(error).toBeInstanceOf(TurnkeyActivityError);
      const activityError = error as TurnkeyActivityError;
      expect(activityError.activityStatus).toBe('ACTIVITY_STATUS_FAILED');
      expect(activityError.activityType).toBe('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2');
      expect(activityError.message).toBe(`Activity ${activityError.activityId} failed`);
      const { activity } = await http.getActivity({
        organizationId,
        activityId: activityError.activityId!,
      });
      expect(activity.status).toBe('ACTIVITY_STATUS_FAILED');
      expect(activity.failure?.message).toBe(
        'could not find a wallet account or private key for signWith in organization',
      );
    });

    it('a refusal throws @turnkey/http TurnkeyRequestError with the Status code', async () => {
      const error = await rejection(
        http.signRawPayload({
          type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
          timestampMs: String(Date.now()),
          organizationId,
          parameters: {
            signWith: httpEthAddress,
            payload: '00',
            encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
            hashFunction: 'HASH_FUNCTION_MD5' as never,
          },
        }),
      );
      expect(error).toBeInstanceOf(HttpRequestError);
      expect(error.code).toBe(3);
      expect(error.message).toMatch(/^Turnkey error 3: invalid hash function/);
    });
  });
});

describe('consensus: a root quorum of two parks activities', () => {
  let server: RunningServer;
  let organizationId: string;
  let sdk: ReturnType<typeof sdkClient>;
  let http: TurnkeyClient;
  let approverSdk: ReturnType<typeof sdkClient>;

  beforeAll(async () => {
    const root = generateApiKeyPair();
    server = await startServer({
      port: 0,
      logger: silentLogger,
      bootstrapApiPublicKey: root.publicKey,
    });
    organizationId = server.organizationId!;
    sdk = sdkClient(server.url, organizationId, root);
    http = httpClient(server.url, root);
    const second = generateApiKeyPair();
    const { userIds } = await sdk.createUsers({
      users: [
        {
          userName: 'approver',
          apiKeys: [
            { apiKeyName: 'k', publicKey: second.publicKey, curveType: 'API_KEY_CURVE_P256' },
          ],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    const updated = await sdk.updateRootQuorum({
      threshold: 2,
      userIds: [server.userId!, userIds[0]!],
    });
    expect(updated.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    approverSdk = sdkClient(server.url, organizationId, second);
  });

  afterAll(async () => {
    await server?.close();
  });

  it('sdk-server returns the CONSENSUS_NEEDED activity after polling, without throwing', async () => {
    const result = await sdk.createWallet({ walletName: 'needs-two', accounts: [ETH_ACCOUNT] });
    expect(result.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    // canApprove / canReject are the reader's: the submitter has voted already, the other
    // root user may still vote.
    expect(result.activity.canApprove).toBe(false);
    expect(result.activity.canReject).toBe(false);
    const { activity } = await approverSdk.getActivity({ activityId: result.activity.id });
    expect(activity).toMatchObject({ canApprove: true, canReject: true });
    expect((result as { walletId?: string }).walletId).toBeUndefined();
    expect((await sdk.getWallets()).wallets).toHaveLength(0);
  });

  it('the @turnkey/http poller throws "Consensus needed for activity <id>"', async () => {
    const poll = createActivityPoller({
      client: http,
      requestFn: http.createWallet,
      refreshIntervalMs: 50,
    });
    const error = await rejection(
      poll({
        type: 'ACTIVITY_TYPE_CREATE_WALLET',
        timestampMs: String(Date.now()),
        organizationId,
        parameters: { walletName: 'needs-two-http', accounts: [ETH_ACCOUNT] },
      }),
    );
    expect(error).toBeInstanceOf(TurnkeyActivityError);
    const activityError = error as TurnkeyActivityError;
    expect(activityError.activityStatus).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect(activityError.message).toBe(`Consensus needed for activity ${activityError.activityId}`);
  });
});
