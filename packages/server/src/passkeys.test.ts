/**
 * Passkeys end to end in Node, with the published clients: `@turnkey/sdk-server` (an API key)
 * creates sub-organizations whose root users hold passkeys, and the same client built with a
 * software authenticator as its stamper (what `@turnkey/webauthn-stamper` sends, made from a
 * `node:crypto` key) acts in them: whoami, a wallet, a signature viem verifies. ES256, RS256
 * and EdDSA credentials; attestation formats `none` and `packed`. Then every refusal of the
 * issue's list, each a Status body with the catalogue's message, nothing stored. Run on
 * memory and on embedded PGlite. The browser proof is `passkeys.browser.test.ts`.
 */

import type { RunningServer } from '@keyhold/cli';
import { type PasskeyAlgorithm, SoftwarePasskey, stampChallengeOf } from '@keyhold/conformance';
import { bytesToHex } from '@noble/hashes/utils.js';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { generateP256KeyPair, verifySessionJwtSignature } from '@turnkey/crypto';
import { TurnkeyServerClient } from '@turnkey/sdk-server';
import { type Hex, recoverAddress, serializeSignature } from 'viem';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { closeStoreTargets, STORE_TARGETS } from './__fixtures__/store-targets.js';
import {
  rejection,
  type SdkClient,
  sdkClient,
  startTurnkeyServer,
  TEST_POLLER,
} from './__fixtures__/turnkey-server.js';
import { generateApiKeyPair } from './api-key-signer.js';

afterAll(closeStoreTargets);

const ORIGIN = 'http://localhost:3000';
const RP_ID = 'localhost';
const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
} as const;

const passkeyOf = (algorithm: PasskeyAlgorithm = 'ES256', extra = {}) =>
  new SoftwarePasskey({ algorithm, rpId: RP_ID, origin: ORIGIN, ...extra });

/** `@turnkey/sdk-server`'s client stamping with a passkey instead of an API key. */
function passkeyClient(url: string, organizationId: string, passkey: SoftwarePasskey) {
  return new TurnkeyServerClient({
    apiBaseUrl: url,
    organizationId,
    stamper: passkey,
    activityPoller: TEST_POLLER,
  });
}

/** A body posted as is by the published client (stamped), for what it has no method for. */
function post<T>(client: SdkClient, path: string, body: unknown): Promise<T> {
  const { request } = client as unknown as {
    request: (path: string, body: unknown) => Promise<T>;
  };
  return request.call(client, path, body);
}

interface Answer {
  status: number;
  body: { code?: number; message?: string; details?: unknown[] } & Record<string, unknown>;
}

/** POSTs exactly `body` with an `X-Stamp-Webauthn` header built from `stamp`. */
async function postWithPasskeyStamp(
  url: string,
  path: string,
  body: string,
  stamp: unknown,
): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'X-Stamp-Webauthn': typeof stamp === 'string' ? stamp : JSON.stringify(stamp),
    },
    body,
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const rootUserWith = (userName: string, passkey: SoftwarePasskey, name = 'laptop') => ({
  userName,
  apiKeys: [],
  authenticators: [passkey.register(name)],
  oauthProviders: [],
});

const WEBAUTHN_SIGNATURE_INVALID = 'could not verify WebAuthN signature';

describe.each(STORE_TARGETS)('passkeys on %s', (_, openStore) => {
  let server: RunningServer;
  let parent: SdkClient;
  let parentOrgId: string;
  let parentUserId: string;

  beforeAll(async () => {
    ({
      server,
      client: parent,
      organizationId: parentOrgId,
      userId: parentUserId,
    } = await startTurnkeyServer(await openStore()));
  });
  afterAll(() => server?.close());

  for (const [algorithm, attestation] of [
    ['ES256', 'none'],
    ['RS256', 'packed'],
    ['EdDSA', 'packed'],
  ] as const) {
    it(`a ${algorithm} passkey (${attestation} attestation) acts in its sub-organization`, async () => {
      const passkey = passkeyOf(algorithm, { attestation });
      const created = await parent.createSubOrganization({
        subOrganizationName: `passkey ${algorithm}`,
        rootUsers: [rootUserWith(`user ${algorithm}`, passkey)],
        rootQuorumThreshold: 1,
      });
      const subOrgId = created.subOrganizationId;
      const user = passkeyClient(server.url, subOrgId, passkey);

      expect(await user.getWhoami({})).toMatchObject({
        organizationId: subOrgId,
        userId: created.rootUserIds![0],
        username: `user ${algorithm}`,
      });
      // At the parent, whoami finds the one sub-organization whose user holds the passkey.
      expect((await user.getWhoami({ organizationId: parentOrgId })).organizationId).toBe(subOrgId);

      const { authenticators } = await user.getAuthenticators({ userId: created.rootUserIds![0]! });
      expect(authenticators).toHaveLength(1);
      const [authenticator] = authenticators;
      expect(authenticator).toMatchObject({
        authenticatorName: 'laptop',
        credentialId: passkey.credentialId,
        attestationType: attestation,
        transports: ['AUTHENTICATOR_TRANSPORT_INTERNAL'],
        credential: { type: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR' },
      });
      expect(Buffer.from(authenticator!.credential.publicKey, 'base64url')).toEqual(
        Buffer.from(passkey.coseKey()),
      );
      expect(Buffer.from(authenticator!.aaguid, 'base64url')).toHaveLength(16);
      const one = await user.getAuthenticator({ authenticatorId: authenticator!.authenticatorId });
      expect(one.authenticator).toEqual(authenticator);
      // Using the passkey moves its counter, not its updatedAt.
      expect(
        (await user.getAuthenticator({ authenticatorId: authenticator!.authenticatorId }))
          .authenticator,
      ).toEqual(authenticator);

      const wallet = await user.createWallet({ walletName: 'main', accounts: [ETH_ACCOUNT] });
      const address = wallet.addresses[0]!;
      const digest = `0x${bytesToHex(new Uint8Array(32).fill(7))}` as Hex;
      const signed = await user.signRawPayload({
        signWith: address,
        payload: digest,
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NO_OP',
      });
      const recovered = await recoverAddress({
        hash: digest,
        signature: serializeSignature({
          r: `0x${signed.r}`,
          s: `0x${signed.s}`,
          yParity: Number(signed.v),
        }),
      });
      expect(recovered.toLowerCase()).toBe(address.toLowerCase());

      // The vote records the passkey that stamped it.
      const { activity } = await user.getActivity({ activityId: wallet.activity.id });
      const vote = activity.votes[0]!;
      expect(vote.scheme).toBe('SIGNATURE_SCHEME_WEBAUTHN');
      expect(vote.publicKey).toBe(authenticator!.credential.publicKey);
      expect(JSON.parse(vote.signature)).toMatchObject({ credentialId: passkey.credentialId });
      expect(vote.user.authenticators.map((a) => a.authenticatorId)).toEqual([
        authenticator!.authenticatorId,
      ]);
    });
  }

  it('STAMP_LOGIN stamped by a passkey at the parent logs the sub-organization user in', async () => {
    const passkey = passkeyOf();
    const created = await parent.createSubOrganization({
      subOrganizationName: 'passkey login',
      rootUsers: [rootUserWith('login user', passkey)],
      rootQuorumThreshold: 1,
    });
    const sessionKey = generateP256KeyPair();
    // As @turnkey/core logs in: the parent's organization id, the passkey's stamp.
    const atParent = passkeyClient(server.url, parentOrgId, passkey);
    const { session, activity } = await atParent.stampLogin({ publicKey: sessionKey.publicKey });
    expect(activity.organizationId).toBe(created.subOrganizationId);
    expect(await verifySessionJwtSignature(session, server.keyhold.notarizerPublicKey)).toBe(true);
    const claims = JSON.parse(Buffer.from(session.split('.')[1]!, 'base64').toString());
    expect(claims).toMatchObject({
      public_key: sessionKey.publicKey,
      user_id: created.rootUserIds![0],
      organization_id: created.subOrganizationId,
    });
    // The vote of the login names the passkey.
    expect(activity.votes[0]?.scheme).toBe('SIGNATURE_SCHEME_WEBAUTHN');
    const who = await sdkClient(server.url, created.subOrganizationId, {
      publicKey: sessionKey.publicKey,
      privateKey: sessionKey.privateKey,
    }).getWhoami();
    expect(who.userId).toBe(created.rootUserIds![0]);
  });

  it('CREATE_SUB_ORGANIZATION V1 (one root passkey) and V3 (private keys) are served', async () => {
    const passkey = passkeyOf();
    const v1 = await post<{
      activity: {
        status: string;
        result: {
          createSubOrganizationResult: { subOrganizationId: string; rootUserIds: string[] };
        };
      };
    }>(parent, '/public/v1/submit/create_sub_organization', {
      type: 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION',
      timestampMs: String(Date.now()),
      organizationId: parentOrgId,
      parameters: { name: 'v1 sub', rootAuthenticator: passkey.register('v1 key') },
    });
    expect(v1.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const { subOrganizationId, rootUserIds } = v1.activity.result.createSubOrganizationResult;
    expect(rootUserIds).toHaveLength(1);
    const who = await passkeyClient(server.url, subOrganizationId, passkey).getWhoami({});
    expect(who).toMatchObject({ organizationId: subOrganizationId, username: 'v1 key' });

    const v3Passkey = passkeyOf();
    const v3 = await post<{
      activity: {
        status: string;
        result: {
          createSubOrganizationResultV3: {
            subOrganizationId: string;
            privateKeys: { privateKeyId: string; addresses: { format: string }[] }[];
          };
        };
      };
    }>(parent, '/public/v1/submit/create_sub_organization', {
      type: 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V3',
      timestampMs: String(Date.now()),
      organizationId: parentOrgId,
      parameters: {
        subOrganizationName: 'v3 sub',
        rootUsers: [{ userName: 'v3 root', apiKeys: [], authenticators: [v3Passkey.register()] }],
        rootQuorumThreshold: 1,
        privateKeys: [
          {
            privateKeyName: 'k',
            curve: 'CURVE_SECP256K1',
            privateKeyTags: [],
            addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
          },
        ],
      },
    });
    expect(v3.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const result = v3.activity.result.createSubOrganizationResultV3;
    expect(result.privateKeys).toHaveLength(1);
    expect(result.privateKeys[0]!.addresses[0]!.format).toBe('ADDRESS_FORMAT_ETHEREUM');
    const keys = await passkeyClient(
      server.url,
      result.subOrganizationId,
      v3Passkey,
    ).getPrivateKeys({});
    expect(keys.privateKeys.map((k) => k.privateKeyId)).toEqual([
      result.privateKeys[0]!.privateKeyId,
    ]);
  });

  it('CREATE_USERS with passkeys; CREATE_AUTHENTICATORS up to 10 per user; DELETE_AUTHENTICATORS', async () => {
    const first = passkeyOf();
    const { userIds } = await parent.createUsers({
      users: [
        {
          userName: 'passkey user',
          apiKeys: [],
          authenticators: [first.register('first')],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    const userId = userIds[0]!;
    const more = Array.from({ length: 9 }, () => passkeyOf('ES256', { attestation: 'packed' }));
    const { authenticatorIds } = await parent.createAuthenticators({
      userId,
      authenticators: more.map((p, i) => p.register(`key ${i}`)),
    });
    expect(authenticatorIds).toHaveLength(9);
    // Limits and uniqueness hold against the stored state: the activity FAILS, adding nothing.
    const eleventh = await parent.createAuthenticators({
      userId,
      authenticators: [passkeyOf().register('too many')],
    });
    expect(eleventh.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(eleventh.activity.failure?.message).toBe('user has exceeded maximum authenticators');
    const again = await parent.createAuthenticators({
      userId: parentUserId,
      authenticators: [first.register()],
    });
    expect(again.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(again.activity.failure?.message).toBe(
      'authenticator with this credential ID already exists in organization',
    );
    expect((await parent.getAuthenticators({ userId })).authenticators).toHaveLength(10);
    expect((await parent.getAuthenticators({ userId: parentUserId })).authenticators).toEqual([]);
    // The passkey user is not in the root quorum: it reads, and its passkey stamps.
    const user = passkeyClient(server.url, parentOrgId, more[3]!);
    expect((await user.getWhoami({})).userId).toBe(userId);

    const deleted = await parent.deleteAuthenticators({
      userId,
      authenticatorIds: authenticatorIds.slice(0, 3),
    });
    expect(deleted.authenticatorIds).toEqual(authenticatorIds.slice(0, 3));
    const { authenticators } = await parent.getAuthenticators({ userId });
    expect(authenticators).toHaveLength(7);
    // A deleted passkey no longer authenticates.
    const gone = await rejection(passkeyClient(server.url, parentOrgId, more[0]!).getWhoami({}));
    expect(gone.message).toContain(
      'webauthn authenticator not found in organization or parent organization',
    );
  });

  it("a policy's consensus sees the passkey that approved (credentials.type, credential_id)", async () => {
    const passkey = passkeyOf();
    const apiKey = generateApiKeyPair();
    const { userIds } = await parent.createUsers({
      users: [
        {
          userName: 'policy user',
          apiKeys: [
            {
              apiKeyName: 'k',
              publicKey: apiKey.publicKey,
              curveType: 'API_KEY_CURVE_P256',
            },
          ],
          authenticators: [passkey.register('policy passkey')],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    await parent.createPolicy({
      policyName: `passkeys only ${passkey.credentialId}`,
      effect: 'EFFECT_ALLOW',
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2'",
      consensus: `credentials.any(credential, credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR' && credential.credential_id == '${passkey.credentialId}' && credential.user_id == '${userIds[0]}')`,
      notes: '',
    });
    const params = {
      privateKeys: [
        {
          privateKeyName: 'x',
          curve: 'CURVE_SECP256K1' as const,
          privateKeyTags: [],
          addressFormats: [],
        },
      ],
    };
    // The same user's API key does not satisfy the consensus: no policy allows it.
    const byKey = await rejection(
      sdkClient(server.url, parentOrgId, apiKey).createPrivateKeys({
        ...params,
        privateKeys: [{ ...params.privateKeys[0]!, privateKeyName: 'by key' }],
      }),
    );
    expect(byKey.message).toContain('request not authorized');
    const byPasskey = await passkeyClient(server.url, parentOrgId, passkey).createPrivateKeys({
      ...params,
      privateKeys: [{ ...params.privateKeys[0]!, privateKeyName: 'by passkey' }],
    });
    expect(byPasskey.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('a passkey held in two sub-organizations: whoami at the parent cannot tell which', async () => {
    const passkey = passkeyOf();
    for (const name of ['twin a', 'twin b']) {
      await parent.createSubOrganization({
        subOrganizationName: name,
        rootUsers: [
          { userName: name, apiKeys: [], authenticators: [passkey.register()], oauthProviders: [] },
        ],
        rootQuorumThreshold: 1,
      });
    }
    const ambiguous = await rejection(
      passkeyClient(server.url, parentOrgId, passkey).getWhoami({}),
    );
    expect(ambiguous.message).toContain('more than one suborg associated with a credential ID');
  });

  it('V1 shapes: CREATE_AUTHENTICATORS and CREATE_USERS with the webauthn-json credential', async () => {
    /** AuthenticatorParams (V1): the credential as webauthn-json's toJSON() gives it. */
    const v1 = (passkey: SoftwarePasskey, userId: string) => {
      const { authenticatorName, challenge, attestation } = passkey.register('v1 passkey');
      return {
        authenticatorName,
        userId,
        challenge,
        attestation: {
          id: attestation.credentialId,
          type: 'public-key',
          rawId: attestation.credentialId,
          authenticatorAttachment: 'platform',
          response: {
            clientDataJson: attestation.clientDataJson,
            attestationObject: attestation.attestationObject,
            transports: attestation.transports,
          },
          clientExtensionResults: { credProps: { rk: true } },
        },
      };
    };
    const envelope = (type: string, parameters: unknown) => ({
      type,
      timestampMs: String(Date.now()),
      organizationId: parentOrgId,
      parameters,
    });
    type Submitted = {
      activity: { status: string; result: Record<string, Record<string, string[]>> };
    };
    const first = passkeyOf();
    const users = await post<Submitted>(
      parent,
      '/public/v1/submit/create_users',
      envelope('ACTIVITY_TYPE_CREATE_USERS', {
        users: [
          {
            userName: 'v1 user',
            accessType: 'ACCESS_TYPE_WEB',
            apiKeys: [],
            authenticators: [v1(first, parentUserId)],
            userTags: [],
          },
        ],
      }),
    );
    expect(users.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const userId = users.activity.result.createUsersResult!.userIds![0]!;
    const second = passkeyOf('RS256');
    const added = await post<Submitted>(
      parent,
      '/public/v1/submit/create_authenticators',
      envelope('ACTIVITY_TYPE_CREATE_AUTHENTICATORS', {
        userId,
        authenticators: [v1(second, userId)],
      }),
    );
    expect(added.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(added.activity.result.createAuthenticatorsResult!.authenticatorIds).toHaveLength(1);
    for (const passkey of [first, second]) {
      expect((await passkeyClient(server.url, parentOrgId, passkey).getWhoami({})).userId).toBe(
        userId,
      );
    }
  });

  it('the last credential of a root-quorum user cannot be deleted', async () => {
    const passkey = passkeyOf();
    const created = await parent.createSubOrganization({
      subOrganizationName: 'last credential',
      rootUsers: [rootUserWith('only passkey', passkey)],
      rootQuorumThreshold: 1,
    });
    const user = passkeyClient(server.url, created.subOrganizationId, passkey);
    const userId = created.rootUserIds![0]!;
    const { authenticators } = await user.getAuthenticators({ userId });
    const refused = await user.deleteAuthenticators({
      userId,
      authenticatorIds: [authenticators[0]!.authenticatorId],
    });
    expect(refused.activity.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(refused.activity.failure?.message).toBe(
      'cannot delete the last credential of a root quorum user',
    );
    expect((await user.getAuthenticators({ userId })).authenticators).toHaveLength(1);
  });

  describe('refusals: a Status body with the catalogue message, nothing stored', () => {
    let passkey: SoftwarePasskey;
    let subOrgId: string;

    beforeAll(async () => {
      passkey = passkeyOf();
      subOrgId = (
        await parent.createSubOrganization({
          subOrganizationName: 'refusals',
          rootUsers: [rootUserWith('refusals', passkey)],
          rootQuorumThreshold: 1,
        })
      ).subOrganizationId;
    });

    const walletBody = (name: string) =>
      JSON.stringify({
        type: 'ACTIVITY_TYPE_CREATE_WALLET',
        timestampMs: String(Date.now()),
        organizationId: subOrgId,
        parameters: { walletName: name, accounts: [] },
      });
    const PATH = '/public/v1/submit/create_wallet';

    async function expectRefused(
      answer: Answer,
      httpStatus: number,
      message: string,
    ): Promise<void> {
      expect(answer.status).toBe(httpStatus);
      expect(answer.body.message).toBe(message);
      expect(Array.isArray(answer.body.details)).toBe(true);
      const wallets = await passkeyClient(server.url, subOrgId, passkey).getWallets({});
      expect(wallets.wallets).toEqual([]);
    }

    const flip = (b64: string, at: number) => {
      const bytes = Buffer.from(b64, 'base64url');
      bytes[at % bytes.length]! ^= 0x01;
      return bytes.toString('base64url');
    };

    it('a tampered signature', async () => {
      const body = walletBody('tampered');
      const stamp = passkey.assert(stampChallengeOf(body));
      const answer = await postWithPasskeyStamp(server.url, PATH, body, {
        ...stamp,
        signature: flip(stamp.signature, 20),
      });
      await expectRefused(answer, 401, WEBAUTHN_SIGNATURE_INVALID);
    });

    it('a challenge over another body', async () => {
      const body = walletBody('other body');
      const stamp = passkey.assert(stampChallengeOf(walletBody('the signed one')));
      await expectRefused(
        await postWithPasskeyStamp(server.url, PATH, body, stamp),
        401,
        WEBAUTHN_SIGNATURE_INVALID,
      );
    });

    it('a wrong rpId hash', async () => {
      const body = walletBody('rp id');
      const stamp = passkey.assert(stampChallengeOf(body), { rpId: 'evil.example' });
      await expectRefused(
        await postWithPasskeyStamp(server.url, PATH, body, stamp),
        401,
        WEBAUTHN_SIGNATURE_INVALID,
      );
    });

    it('an origin that is not a secure context, and a registration ceremony', async () => {
      const body = walletBody('origin');
      for (const overrides of [
        { origin: 'http://example.com' },
        { type: 'webauthn.create' },
        { flags: 0x04 }, // user verified but not present
      ]) {
        const stamp = passkey.assert(stampChallengeOf(body), overrides);
        await expectRefused(
          await postWithPasskeyStamp(server.url, PATH, body, stamp),
          401,
          WEBAUTHN_SIGNATURE_INVALID,
        );
      }
    });

    it('a replayed assertion (stale counter)', async () => {
      const body = JSON.stringify({ organizationId: subOrgId });
      const stamp = passkey.assert(stampChallengeOf(body));
      const first = await postWithPasskeyStamp(server.url, '/public/v1/query/whoami', body, stamp);
      expect(first.status).toBe(200);
      const replay = await postWithPasskeyStamp(server.url, '/public/v1/query/whoami', body, stamp);
      expect(replay.status).toBe(401);
      expect(replay.body.message).toBe(WEBAUTHN_SIGNATURE_INVALID);
      // And an activity body replayed: refused before it could be read as the same activity.
      const wallet = walletBody('replayed');
      const once = passkey.assert(stampChallengeOf(wallet));
      const stale = passkey.assert(stampChallengeOf(body)); // an older counter, another body
      const newer = passkey.assert(stampChallengeOf(wallet));
      expect((await postWithPasskeyStamp(server.url, PATH, wallet, newer)).status).toBe(200);
      for (const old of [once, stale]) {
        const answer = await postWithPasskeyStamp(server.url, PATH, wallet, old);
        expect(answer.status).toBe(401);
        expect(answer.body.message).toBe(WEBAUTHN_SIGNATURE_INVALID);
      }
      const wallets = await passkeyClient(server.url, subOrgId, passkey).getWallets({});
      expect(wallets.wallets.map((w) => w.walletName)).toEqual(['replayed']);
      await passkeyClient(server.url, subOrgId, passkey).deleteWallets({
        walletIds: wallets.wallets.map((w) => w.walletId),
        deleteWithoutExport: true,
      });
    });

    it('an unknown credential id', async () => {
      const body = walletBody('unknown');
      const stranger = passkeyOf();
      await expectRefused(
        await postWithPasskeyStamp(server.url, PATH, body, stranger.assert(stampChallengeOf(body))),
        401,
        'webauthn authenticator not found in organization or parent organization',
      );
    });

    it('a malformed stamp', async () => {
      const body = walletBody('malformed');
      for (const stamp of ['not json', '{}', '{"credentialId":1}', '[]']) {
        await expectRefused(
          await postWithPasskeyStamp(server.url, PATH, body, stamp),
          401,
          'malformed activity stamp',
        );
      }
    });

    it('an attestation that does not parse or verify', async () => {
      const good = passkeyOf().register('bad');
      const cases: [Record<string, unknown>, string][] = [
        [{ attestationObject: 'AAAA' }, 'invalid authenticator attestation'],
        [{ clientDataJson: 'e30' }, 'invalid authenticator attestation'],
        [{ credentialId: passkeyOf().credentialId }, 'invalid authenticator attestation'],
        [{ attestationObject: undefined }, 'missing parameter: user authenticator attestation'],
      ];
      for (const [change, message] of cases) {
        const error = await rejection(
          parent.createSubOrganization({
            subOrganizationName: 'never',
            rootUsers: [
              {
                userName: 'never',
                apiKeys: [],
                authenticators: [{ ...good, attestation: { ...good.attestation, ...change } }],
                oauthProviders: [],
              },
            ],
            rootQuorumThreshold: 1,
          } as never),
        );
        expect(error.message).toContain(message);
      }
      const wrongChallenge = await rejection(
        parent.createAuthenticators({
          userId: parentUserId,
          authenticators: [{ ...good, challenge: 'b3RoZXI' }],
        }),
      );
      expect(wrongChallenge.message).toContain('invalid authenticator attestation');
      const { activities } = await parent.getActivities({
        filterByType: ['ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8'],
      });
      expect(activities.every((a) => a.status === 'ACTIVITY_STATUS_COMPLETED')).toBe(true);
      expect(
        (await parent.getSubOrgIds({ filterType: 'NAME', filterValue: 'never' })).organizationIds,
      ).toEqual([]);
    });
  });

  it('a forged android-key chain is refused before any CRL it names could be fetched', async () => {
    const fetched = vi.spyOn(globalThis, 'fetch');
    try {
      const registration = passkeyOf().register('forged');
      // x5c ends at a "root" of the submitter's making, whose CRL URLs it would choose.
      const forged = isoCBOR.encode(
        new Map<string, unknown>([
          ['fmt', 'android-key'],
          [
            'attStmt',
            new Map<string, unknown>([
              ['alg', -7],
              ['sig', new Uint8Array(64)],
              ['x5c', [new Uint8Array([1, 2, 3]), new Uint8Array([4, 5, 6])]],
            ]),
          ],
          ['authData', new Uint8Array(37)],
        ]) as never,
      );
      const refused = await rejection(
        parent.createAuthenticators({
          userId: parentUserId,
          authenticators: [
            {
              ...registration,
              attestation: {
                ...registration.attestation,
                attestationObject: Buffer.from(forged).toString('base64url'),
              },
            },
          ],
        }),
      );
      expect(refused.message).toContain('invalid authenticator attestation');
      expect(refused.message).toContain('Google attestation root');
      const elsewhere = fetched.mock.calls.filter(([url]) => !String(url).startsWith(server.url));
      expect(elsewhere).toEqual([]);
    } finally {
      fetched.mockRestore();
    }
  });

  it('allowed origins: passkeys stamp and register only from the listed origins', async () => {
    const passkey = passkeyOf();
    const created = await parent.createSubOrganization({
      subOrganizationName: 'origins',
      rootUsers: [rootUserWith('origins', passkey)],
      rootQuorumThreshold: 1,
    });
    const update = (allowedOrigins: string[]) =>
      post<{ activity: { status: string } }>(parent, '/public/v1/submit/update_allowed_origins', {
        type: 'ACTIVITY_TYPE_UPDATE_ALLOWED_ORIGINS',
        timestampMs: String(Date.now()),
        organizationId: parentOrgId,
        parameters: { allowedOrigins },
      });
    const bad = await rejection(update(['https://app.example.com/path']));
    expect(bad.message).toContain('invalid allowed origin');
    expect((await update(['https://app.example.com'])).activity.status).toBe(
      'ACTIVITY_STATUS_COMPLETED',
    );
    // The sub-organization has no list of its own: the parent's applies.
    const body = JSON.stringify({ organizationId: created.subOrganizationId });
    const refused = await postWithPasskeyStamp(
      server.url,
      '/public/v1/query/whoami',
      body,
      passkey.assert(stampChallengeOf(body)),
    );
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe(WEBAUTHN_SIGNATURE_INVALID);
    const registration = await rejection(
      parent.createAuthenticators({
        userId: parentUserId,
        authenticators: [passkeyOf().register()],
      }),
    );
    expect(registration.message).toContain('invalid authenticator attestation');

    const listed = new SoftwarePasskey({ rpId: 'example.com', origin: 'https://app.example.com' });
    await parent.createAuthenticators({
      userId: parentUserId,
      authenticators: [listed.register()],
    });
    expect((await passkeyClient(server.url, parentOrgId, listed).getWhoami({})).userId).toBe(
      parentUserId,
    );
    expect((await update([])).activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const allowedAgain = await postWithPasskeyStamp(
      server.url,
      '/public/v1/query/whoami',
      body,
      passkey.assert(stampChallengeOf(body)),
    );
    expect(allowedAgain.status).toBe(200);
  });
});
