/**
 * Delegated access (interface spec, Authentication §7), both ways, through the published
 * client: a parent organization's key only reads a sub-organization where no user of the
 * sub-organization holds it (every write, a login included, is "organization mismatch" and
 * stores nothing); where a delegated-access user of the sub-organization holds the parent's key,
 * the parent's backend acts there as that user, scoped by the sub-organization's policies, and
 * the same key still acts as the parent's own user at the parent.
 */
import { generateP256KeyPair } from '@turnkey/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  rejection,
  type SdkClient,
  sdkClient,
  startTurnkeyServer,
  type TurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { type ApiKeyPair, generateApiKeyPair } from './api-key-signer.js';

const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;

const user = (userName: string, key: ApiKeyPair) => ({
  userName,
  apiKeys: [
    {
      apiKeyName: `${userName} key`,
      publicKey: key.publicKey,
      curveType: 'API_KEY_CURVE_P256' as const,
    },
  ],
  authenticators: [],
  oauthProviders: [],
});

describe('delegated access', () => {
  let kh: TurnkeyServer;
  const aliceKey = generateApiKeyPair();
  const bobKey = generateApiKeyPair();
  /** Alice's sub-organization: no user of it holds the parent's key. */
  let plainSubOrgId: string;
  /** Bob's sub-organization, with a delegated-access user holding the parent's key. */
  let delegatedSubOrgId: string;
  let bobId: string;
  let delegatedUserId: string;
  let bob: SdkClient;
  /** The parent's backend key, addressing Bob's sub-organization. */
  let backend: SdkClient;

  beforeAll(async () => {
    kh = await startTurnkeyServer();
    plainSubOrgId = (
      await kh.client.createSubOrganization({
        subOrganizationName: 'alice',
        rootUsers: [user('alice', aliceKey)],
        rootQuorumThreshold: 1,
      })
    ).subOrganizationId;
    const delegated = await kh.client.createSubOrganization({
      subOrganizationName: 'bob',
      rootUsers: [user('bob', bobKey), user('Delegated Access', kh.key)],
      rootQuorumThreshold: 1,
    });
    delegatedSubOrgId = delegated.subOrganizationId;
    [bobId, delegatedUserId] = delegated.rootUserIds as [string, string];
    bob = sdkClient(kh.server.url, delegatedSubOrgId, bobKey);
    backend = sdkClient(kh.server.url, delegatedSubOrgId, kh.key);
  });
  afterAll(() => kh?.server.close());

  it("without a user of the sub-organization, the parent's key reads it and writes nothing", async () => {
    expect((await kh.client.getWallets({ organizationId: plainSubOrgId })).wallets).toEqual([]);
    const write = await rejection(
      kh.client.createWallet({
        organizationId: plainSubOrgId,
        walletName: 'by parent',
        accounts: [ETH_ACCOUNT],
      }),
    );
    expect(write.message).toContain('organization mismatch');
    // Nor may the parent's user log into the sub-organization.
    const login = await rejection(
      kh.client.stampLogin({
        organizationId: plainSubOrgId,
        publicKey: generateP256KeyPair().publicKey,
      }),
    );
    expect(login.message).toContain('organization mismatch');
    expect((await kh.client.getWallets({ organizationId: plainSubOrgId })).wallets).toEqual([]);
    const alice = sdkClient(kh.server.url, plainSubOrgId, aliceKey);
    expect(
      (await alice.getApiKeys({ userId: (await alice.getWhoami()).userId })).apiKeys,
    ).toHaveLength(1);
    expect((await alice.getActivities({})).activities).toEqual([]);
  });

  it("through the delegated-access user, the parent's key acts in the sub-organization", async () => {
    expect(await backend.getWhoami()).toMatchObject({
      organizationId: delegatedSubOrgId,
      userId: delegatedUserId,
      username: 'Delegated Access',
    });
    // As a root user it may first take itself out of the root quorum…
    await backend.updateRootQuorum({ threshold: 1, userIds: [bobId] });
    // …after which the sub-organization's policies alone scope it.
    const unscoped = await rejection(
      backend.createWallet({ walletName: 'before policy', accounts: [ETH_ACCOUNT] }),
    );
    expect(unscoped.message).toContain('request not authorized');
    await bob.createPolicy({
      policyName: 'the backend may create wallets',
      effect: 'EFFECT_ALLOW',
      consensus: `approvers.any(user, user.id == '${delegatedUserId}')`,
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'",
      notes: '',
    });
    const wallet = await backend.createWallet({
      walletName: 'by backend',
      accounts: [ETH_ACCOUNT],
    });
    expect(wallet.activity.organizationId).toBe(delegatedSubOrgId);
    expect((await bob.getWallets()).wallets.map((w) => w.walletName)).toEqual(['by backend']);
    const users = await rejection(
      backend.createUsers({ users: [{ ...user('eve', generateApiKeyPair()), userTags: [] }] }),
    );
    expect(users.message).toContain('request not authorized');
    expect((await bob.getUsers()).users).toHaveLength(2);
  });

  it('the same key still acts as the parent’s own user at the parent', async () => {
    expect((await kh.client.getWhoami()).userId).toBe(kh.userId);
    const parentWallet = await kh.client.createWallet({
      walletName: 'parent',
      accounts: [ETH_ACCOUNT],
    });
    expect(parentWallet.activity.organizationId).toBe(kh.organizationId);
  });
});
