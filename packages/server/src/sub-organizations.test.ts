/**
 * Sub-organizations through the published client: the parent creates one (root user with a
 * fresh API key, a wallet with Ethereum and Solana accounts); the sub-organization's user
 * signs in it; the parent reads it but cannot write to it; refusals store nothing;
 * DELETE_SUB_ORGANIZATION needs an export or `deleteWithoutExport`, and afterwards the
 * sub-organization's key no longer authenticates. Run on memory and on embedded PGlite.
 */

import type { RunningServer } from '@keyhold/cli';
import { bytesToHex } from '@noble/hashes/utils.js';
import { type Hex, recoverAddress, serializeSignature } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeStoreTargets, STORE_TARGETS } from './__fixtures__/store-targets.js';
import {
  rejection,
  type SdkClient,
  sdkClient,
  startTurnkeyServer,
} from './__fixtures__/turnkey-server.js';
import { type ApiKeyPair, generateApiKeyPair } from './api-key-signer.js';

afterAll(closeStoreTargets);

const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;
const SOL_ACCOUNT = {
  curve: 'CURVE_ED25519',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/501'/0'/0'",
  addressFormat: 'ADDRESS_FORMAT_SOLANA',
} as const;

const rootUser = (key: ApiKeyPair, userName = 'sub root') => ({
  userName,
  userEmail: `${userName.replace(/\s/g, '.')}@example.com`,
  apiKeys: [
    { apiKeyName: 'sub key', publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' as const },
  ],
  authenticators: [],
  oauthProviders: [],
});

/** A body posted as is by the published client (stamped), for what it has no method for. */
function post<T>(client: SdkClient, path: string, body: unknown): Promise<T> {
  const { request } = client as unknown as {
    request: (path: string, body: unknown) => Promise<T>;
  };
  return request.call(client, path, body);
}

describe.each(STORE_TARGETS)('sub-organizations on %s', (_, openStore) => {
  let server: RunningServer;
  let parent: SdkClient;
  let parentOrgId: string;
  const subKey = generateApiKeyPair();
  let subOrgId: string;
  let sub: SdkClient;
  let ethAddress: string;

  beforeAll(async () => {
    ({
      server,
      client: parent,
      organizationId: parentOrgId,
    } = await startTurnkeyServer(await openStore()));
  });
  afterAll(() => server?.close());

  it('the parent creates a sub-organization with a root user and a wallet (V8)', async () => {
    const created = await parent.createSubOrganization({
      subOrganizationName: 'customer 1',
      rootUsers: [rootUser(subKey)],
      rootQuorumThreshold: 1,
      wallet: { walletName: 'main', accounts: [ETH_ACCOUNT, SOL_ACCOUNT] },
    });
    expect(created.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(created.activity.type).toBe('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8');
    subOrgId = created.subOrganizationId;
    expect(subOrgId).toMatch(/^[0-9a-f-]{36}$/);
    expect(subOrgId).not.toBe(parentOrgId);
    expect(created.rootUserIds).toHaveLength(1);
    expect(created.wallet?.addresses).toHaveLength(2);
    ethAddress = created.wallet!.addresses[0]!;
    expect(ethAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    sub = sdkClient(server.url, subOrgId, subKey);

    const who = await sub.getWhoami();
    expect(who).toMatchObject({
      organizationId: subOrgId,
      organizationName: 'customer 1',
      userId: created.rootUserIds![0],
      username: 'sub root',
    });
    const { organizationData } = await post<{
      organizationData: { rootQuorum: unknown };
    }>(sub, '/public/v1/query/get_organization', { organizationId: subOrgId });
    expect(organizationData.rootQuorum).toEqual({
      threshold: 1,
      userIds: created.rootUserIds,
    });
    const { users } = await sub.getUsers();
    expect(users.map((u) => [u.userName, u.userEmail])).toEqual([
      ['sub root', 'sub.root@example.com'],
    ]);
  });

  it("the sub-organization's user signs with the wallet's Ethereum address", async () => {
    const digest = `0x${bytesToHex(new Uint8Array(32).fill(0x42))}` as Hex;
    const signed = await sub.signRawPayload({
      signWith: ethAddress,
      payload: digest,
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });
    expect(signed.activity.organizationId).toBe(subOrgId);
    const recovered = await recoverAddress({
      hash: digest,
      signature: serializeSignature({
        r: `0x${signed.r}`,
        s: `0x${signed.s}`,
        yParity: Number(signed.v),
      }),
    });
    expect(recovered.toLowerCase()).toBe(ethAddress.toLowerCase());
  });

  it('the parent reads the sub-organization but cannot write to it', async () => {
    const { wallets } = await parent.getWallets({ organizationId: subOrgId });
    expect(wallets.map((w) => w.walletName)).toEqual(['main']);
    const error = await rejection(
      parent.createWallet({
        organizationId: subOrgId,
        walletName: 'intruder',
        accounts: [ETH_ACCOUNT],
      }),
    );
    expect(error.message).toContain('organization mismatch');
    const after = await sub.getWallets();
    expect(after.wallets).toHaveLength(1);
  });

  it("the sub-organization's user cannot act in, nor read, the parent", async () => {
    const write = await rejection(
      sub.createWallet({ organizationId: parentOrgId, walletName: 'x', accounts: [ETH_ACCOUNT] }),
    );
    expect(write.message).toContain(
      'could not find public key in organization or its parent organization',
    );
    const read = await rejection(sub.getWallets({ organizationId: parentOrgId }));
    expect(read.message).toContain('could not find public key');
    // whoami names the sub-organization the key belongs to.
    const who = await sub.getWhoami({ organizationId: parentOrgId });
    expect(who.organizationId).toBe(subOrgId);
  });

  it('get_sub_org_ids lists it, with filters', async () => {
    expect((await parent.getSubOrgIds({})).organizationIds).toEqual([subOrgId]);
    const by = async (filterType: string, filterValue: string) =>
      (await parent.getSubOrgIds({ filterType, filterValue })).organizationIds;
    expect(await by('NAME', 'customer 1')).toEqual([subOrgId]);
    expect(await by('NAME', 'nobody')).toEqual([]);
    expect(await by('USERNAME', 'sub root')).toEqual([subOrgId]);
    expect(await by('EMAIL', 'SUB.ROOT@example.com')).toEqual([subOrgId]);
    expect(await by('PUBLIC_KEY', subKey.publicKey)).toEqual([subOrgId]);
    expect(await by('WALLET_ACCOUNT_ADDRESS', ethAddress)).toEqual([subOrgId]);
    expect(await by('CREDENTIAL_ID', 'abc')).toEqual([]);
    // The sub-organization has none of its own.
    expect((await sub.getSubOrgIds({})).organizationIds).toEqual([]);
  });

  it('refusals store nothing (threshold 0, threshold > users, missing wallet params, bad curve)', async () => {
    const other = generateApiKeyPair();
    const base = {
      subOrganizationName: 'refused',
      rootUsers: [rootUser(other, 'refused root')],
      rootQuorumThreshold: 1,
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ rootQuorumThreshold: 0 }, 'quorum threshold must be non-zero integer'],
      [{ rootQuorumThreshold: 2 }, 'quorum threshold must be non-zero integer'],
      [{ wallet: { walletName: 'w', accounts: [] } }, 'missing wallet params'],
      [{ wallet: { accounts: [ETH_ACCOUNT] } }, 'missing wallet params'],
      [
        {
          rootUsers: [
            {
              ...rootUser(other, 'refused root'),
              apiKeys: [{ apiKeyName: 'k', publicKey: other.publicKey, curveType: 'NOPE' }],
            },
          ],
        },
        'invalid curve',
      ],
      [
        {
          rootUsers: [
            {
              ...rootUser(other, 'refused root'),
              authenticators: [{ authenticatorName: 'k', challenge: 'Y2hhbGxlbmdl' }],
            },
          ],
        },
        'missing parameter: user authenticator attestation',
      ],
      [
        {
          rootUsers: [
            {
              ...rootUser(other, 'refused root'),
              oauthProviders: [{ providerName: 'op', oidcToken: 'not-a-jwt' }],
            },
          ],
        },
        'invalid OIDC token',
      ],
    ];
    for (const [change, message] of cases) {
      const error = await rejection(parent.createSubOrganization({ ...base, ...change } as never));
      expect(error.message).toContain(message);
    }
    expect((await parent.getSubOrgIds({})).organizationIds).toEqual([subOrgId]);
    expect(
      (await parent.getSubOrgIds({ filterType: 'PUBLIC_KEY', filterValue: other.publicKey }))
        .organizationIds,
    ).toEqual([]);
    const { users } = await parent.getUsers();
    expect(users.map((u) => u.userName)).not.toContain('refused root');
    const { wallets } = await parent.getWallets();
    expect(wallets).toEqual([]);
  });

  it('older clients: V7 answers under createSubOrganizationResultV7', async () => {
    const key = generateApiKeyPair();
    const { activity } = await post<{
      activity: { status: string; result: Record<string, { subOrganizationId: string }> };
    }>(parent, '/public/v1/submit/create_sub_organization', {
      type: 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7',
      timestampMs: String(Date.now()),
      organizationId: parentOrgId,
      parameters: {
        subOrganizationName: 'v7',
        rootUsers: [{ ...rootUser(key, 'v7 root'), userPhoneNumber: '+15555550100' }],
        rootQuorumThreshold: 1,
      },
    });
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const v7 = activity.result.createSubOrganizationResultV7!.subOrganizationId;
    const { users } = await sdkClient(server.url, v7, key).getUsers();
    expect(users[0]?.userPhoneNumber).toBe('+15555550100');
    // A second sub-organization holding the same key makes whoami at the parent ambiguous.
    await parent.createSubOrganization({
      subOrganizationName: 'v7 twin',
      rootUsers: [rootUser(key, 'twin root')],
      rootQuorumThreshold: 1,
    });
    const ambiguous = await rejection(
      sdkClient(server.url, parentOrgId, key).getWhoami({ organizationId: parentOrgId }),
    );
    expect(ambiguous.message).toContain('more than one suborg associated with a public key');
  });

  it('DELETE_SUB_ORGANIZATION needs an export or deleteWithoutExport, then removes it all', async () => {
    const refused = await sub.deleteSubOrganization({});
    expect(refused.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(refused.activity.failure?.message).toContain('have not been exported');
    expect((await parent.getSubOrgIds({})).organizationIds).toContain(subOrgId);
    expect((await sub.getWallets()).wallets).toHaveLength(1);

    // The parent cannot delete it.
    const mismatch = await rejection(
      parent.deleteSubOrganization({ organizationId: subOrgId, deleteWithoutExport: true }),
    );
    expect(mismatch.message).toContain('organization mismatch');

    const deleted = await sub.deleteSubOrganization({ deleteWithoutExport: true });
    expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(deleted.subOrganizationUuid).toBe(subOrgId);

    const gone = await rejection(sub.getWhoami());
    expect(gone.message).toContain('no organization found with the given ID');
    const readByParent = await rejection(parent.getWallets({ organizationId: subOrgId }));
    expect(readByParent.message).toContain('no organization found with the given ID');
    expect((await parent.getSubOrgIds({})).organizationIds).not.toContain(subOrgId);
    // Its key authenticates nowhere: not in the parent either.
    const inParent = await rejection(sub.getWhoami({ organizationId: parentOrgId }));
    expect(inParent.message).toContain('could not find public key');
  });
});
