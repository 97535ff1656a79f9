/**
 * Resource limits (issue 15 item 8): with `resourceLimits` (`keyhold serve --resource-limits`),
 * an activity that makes an organization hold more users, wallets, wallet accounts, private
 * keys, policies or sub-organizations than its limit is refused with the spec's over-quota
 * message and leaves nothing behind; deleting frees a place; only growth is refused, so an
 * organization over a lowered limit still works; signing is not limited. Through the published
 * `@turnkey/sdk-server`, on memory and embedded PGlite.
 */

import type { Store } from '@keyhold/activities';
import type { RunningServer } from '@keyhold/cli';
import { MemoryStore } from '@keyhold/store-memory';
import { generateMasterKey } from '@keyhold/vault-software';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeStoreTargets, STORE_TARGETS } from './__fixtures__/store-targets.js';
import {
  ethereumAccountAt,
  rejection,
  type SdkClient,
  sdkClient,
  startTurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';

const OVER =
  'this organization cannot execute activities because it is over its allotted quota. Please reach out to the team (ops@example.com) for more information.';
const LIMITS = {
  users: 3,
  wallets: 2,
  walletAccounts: 3,
  privateKeys: 1,
  policies: 1,
  subOrganizations: 1,
};

afterAll(() => closeStoreTargets());

describe.each(STORE_TARGETS)('resource limits on %s', (_name, open) => {
  let server: RunningServer;
  let client: SdkClient;
  let store: Store;
  const masterKey = generateMasterKey();
  let apiKey: ReturnType<typeof generateApiKeyPair>;

  beforeAll(async () => {
    store = (await open()).store ?? new MemoryStore();
    const t = await startTurnkeyServer({
      store,
      masterKey,
      resourceLimits: LIMITS,
      quotas: { supportContact: 'ops@example.com' },
    });
    ({ server, client } = t);
    apiKey = t.key;
  });
  afterAll(() => server.close());

  /** The refusal's message, and that it stored no activity. */
  const refusedOver = async (call: () => Promise<unknown>) => {
    const before = (await client.getActivities({})).activities.length;
    const refused = await rejection(call());
    expect(refused.message).toContain(OVER);
    expect((await client.getActivities({})).activities.length).toBe(before);
    return refused;
  };

  it('wallets and their accounts: up to the limits, then refused with nothing stored', async () => {
    await client.createWallet({ walletName: 'a', accounts: [ethereumAccountAt(0)] });
    const b = await client.createWallet({
      walletName: 'b',
      accounts: [ethereumAccountAt(0), ethereumAccountAt(1)],
    });
    const refused = await refusedOver(() =>
      client.createWallet({ walletName: 'c', accounts: [ethereumAccountAt(0)] }),
    );
    expect(JSON.stringify(refused)).toContain('"resource":"wallets"');
    await refusedOver(() =>
      client.createWalletAccounts({ walletId: b.walletId, accounts: [ethereumAccountAt(2)] }),
    );
    const { wallets } = await client.getWallets({});
    expect(wallets.map((w) => w.walletName).sort()).toEqual(['a', 'b']);
    expect((await client.getWalletAccounts({ walletId: b.walletId })).accounts).toHaveLength(2);

    // Deleting frees the places.
    await client.deleteWallets({ walletIds: [b.walletId], deleteWithoutExport: true });
    await client.createWallet({
      walletName: 'c',
      accounts: [ethereumAccountAt(0), ethereumAccountAt(1)],
    });
  });

  it('private keys, policies and users', async () => {
    const key = {
      privateKeyName: 'k1',
      curve: 'CURVE_SECP256K1' as const,
      addressFormats: ['ADDRESS_FORMAT_ETHEREUM' as const],
      privateKeyTags: [],
    };
    const made = await client.createPrivateKeys({ privateKeys: [key] });
    await refusedOver(() =>
      client.createPrivateKeys({ privateKeys: [{ ...key, privateKeyName: 'k2' }] }),
    );

    const policy = {
      effect: 'EFFECT_ALLOW',
      condition: "activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2'",
      consensus: 'true',
      notes: '',
    } as const;
    await client.createPolicy({ policyName: 'p1', ...policy });
    await refusedOver(() => client.createPolicy({ policyName: 'p2', ...policy }));

    // The bootstrap made one user; two more reach the limit of 3, all in one activity.
    const user = (userName: string) => ({
      userName,
      apiKeys: [],
      authenticators: [],
      oauthProviders: [],
      userTags: [],
    });
    await refusedOver(() => client.createUsers({ users: ['u1', 'u2', 'u3'].map(user) }));
    await client.createUsers({ users: ['u1', 'u2'].map(user) });
    await refusedOver(() => client.createUsers({ users: [user('u4')] }));

    // Signing creates nothing limited.
    const address = made.privateKeys[0]?.addresses?.[0]?.address ?? '';
    await client.signRawPayload({
      signWith: address,
      payload: `0x${'11'.repeat(32)}`,
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
  });

  it('sub-organizations: the parent’s count, and the new one’s own limits', async () => {
    const subKey = generateApiKeyPair();
    const subOrganization = (accounts: number) => ({
      subOrganizationName: 'customer',
      rootUsers: [
        {
          userName: 'customer root',
          apiKeys: [
            {
              apiKeyName: 'k',
              publicKey: subKey.publicKey,
              curveType: 'API_KEY_CURVE_P256' as const,
            },
          ],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
      wallet: {
        walletName: 'sub',
        accounts: Array.from({ length: accounts }, (_, i) => ethereumAccountAt(i)),
      },
    });
    // A sub-organization made with more accounts than one organization may hold: refused,
    // and no sub-organization is left behind.
    const children = async () =>
      store.transaction((tx) =>
        tx.organizations.listChildren(server.organizationId!).then((c) => c.length),
      );
    await refusedOver(() => client.createSubOrganization(subOrganization(4)));
    expect(await children()).toBe(0);

    const created = await client.createSubOrganization(subOrganization(3));
    expect(await children()).toBe(1);
    await refusedOver(() => client.createSubOrganization(subOrganization(1)));
    expect(await children()).toBe(1);

    // The sub-organization is limited on its own records.
    const sub = sdkClient(server.url, created.subOrganizationId, subKey);
    const refused = await rejection(
      sub.createWalletAccounts({
        walletId: created.wallet!.walletId,
        accounts: [ethereumAccountAt(9)],
      }),
    );
    expect(refused.message).toContain(OVER);
  });

  it('only growth is refused: over a lowered limit, an organization still updates and deletes', async () => {
    // A second instance of the same deployment, on the same store, with lower limits.
    const lowered = await startTurnkeyServer({
      store,
      masterKey,
      bootstrapApiPublicKey: apiKey.publicKey,
      resourceLimits: { wallets: 1 },
      quotas: { supportContact: 'ops@example.com' },
    });
    try {
      const onLowered = sdkClient(lowered.server.url, server.organizationId!, apiKey);
      const { wallets } = await onLowered.getWallets({});
      expect(wallets.length).toBeGreaterThan(1);
      await onLowered.updateWallet({ walletId: wallets[0]!.walletId, walletName: 'renamed' });
      await onLowered.createPrivateKeys({
        privateKeys: [
          {
            privateKeyName: 'not limited here',
            curve: 'CURVE_ED25519',
            addressFormats: ['ADDRESS_FORMAT_SOLANA'],
            privateKeyTags: [],
          },
        ],
      });
      const refused = await rejection(
        onLowered.createWallet({ walletName: 'one more', accounts: [ethereumAccountAt(0)] }),
      );
      expect(refused.message).toContain(OVER);
      await onLowered.deleteWallets({
        walletIds: [wallets[0]!.walletId],
        deleteWithoutExport: true,
      });
    } finally {
      await lowered.server.close();
    }
  });
});
