/**
 * Signing quotas (issue 15 item 8): with `quotas.monthlySignatures` (`keyhold serve
 * --signing-quota`), a root organization and its sub-organizations sign at most that many
 * times a month; the next signature is refused with the spec's message — the organization's,
 * or the sub-organization's whose parent is over — and nothing is stored. Two servers on one
 * store count together. Without a quota nothing is counted; other activities are not limited.
 */

import { FREE_TIER_MONTHLY_SIGNATURES } from '@keyhold/activities';
import type { RunningServer } from '@keyhold/cli';
import { MemoryStore } from '@keyhold/store-memory';
import { generateMasterKey } from '@keyhold/vault-software';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  rejection,
  type SdkClient,
  sdkClient,
  startTurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';

const ETH = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const DIGEST = `0x${'11'.repeat(32)}`;
const ORGANIZATION_OVER =
  'this organization cannot execute activities because it is over its allotted quota. Please reach out to the team (ops@example.com) for more information.';
const PARENT_OVER =
  'this sub-organization cannot execute activities because its parent is over its allotted quota. Please reach out to the team (ops@example.com) for more information.';

const sign = (client: SdkClient, signWith: string) =>
  client.signRawPayload({
    signWith,
    payload: DIGEST,
    encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
    hashFunction: 'HASH_FUNCTION_NO_OP',
  });

describe('a monthly signing quota of 3, on two servers sharing a store', () => {
  const store = new MemoryStore();
  let first: RunningServer;
  let second: RunningServer;
  let root: SdkClient;
  let rootOnSecond: SdkClient;
  let sub: SdkClient;
  let address: string;
  let subAddress: string;

  beforeAll(async () => {
    const quotas = { monthlySignatures: 3, supportContact: 'ops@example.com' };
    // One store and one master key: two instances of one deployment.
    const masterKey = generateMasterKey();
    const t = await startTurnkeyServer({ store, quotas, masterKey });
    first = t.server;
    root = t.client;
    second = (
      await startTurnkeyServer({ store, quotas, masterKey, bootstrapApiPublicKey: t.key.publicKey })
    ).server;
    rootOnSecond = sdkClient(second.url, t.organizationId, t.key);
    address = (await root.createWallet({ walletName: 'w', accounts: [ETH] })).addresses[0]!;
    const subKey = generateApiKeyPair();
    const created = await root.createSubOrganization({
      subOrganizationName: 'customer',
      rootUsers: [
        {
          userName: 'customer root',
          apiKeys: [
            { apiKeyName: 'k', publicKey: subKey.publicKey, curveType: 'API_KEY_CURVE_P256' },
          ],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
      wallet: { walletName: 'sub', accounts: [ETH] },
    });
    subAddress = created.wallet!.addresses[0]!;
    sub = sdkClient(first.url, created.subOrganizationId, subKey);
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  it('counts the organization’s and its sub-organizations’ signatures, on either server', async () => {
    await sign(root, address);
    await sign(rootOnSecond, address);
    await sign(sub, subAddress);
    const activitiesBefore = (await root.getActivities({})).activities.length;
    const over = await rejection(sign(rootOnSecond, address));
    expect(over.message).toContain(ORGANIZATION_OVER);
    const subOver = await rejection(sign(sub, subAddress));
    expect(subOver.message).toContain(PARENT_OVER);
    // Refused: nothing stored.
    expect((await root.getActivities({})).activities.length).toBe(activitiesBefore);
    // Other activities are not limited.
    await root.createWallet({ walletName: 'still', accounts: [ETH] });
  });
});

describe('without a quota', () => {
  let server: RunningServer;
  let client: SdkClient;
  beforeAll(async () => {
    ({ server, client } = await startTurnkeyServer());
  });
  afterAll(() => server.close());

  it('signs past the free tier', async () => {
    const { addresses } = await client.createWallet({ walletName: 'w', accounts: [ETH] });
    for (let i = 0; i <= FREE_TIER_MONTHLY_SIGNATURES; i++) await sign(client, addresses[0]!);
  });
});
