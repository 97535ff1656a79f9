/**
 * Policies, tags and consensus driven by the PUBLISHED clients, unchanged, over real HTTP:
 * `@turnkey/sdk-server` (createPolicy, createUserTag, approveActivity, rejectActivity,
 * getPolicyEvaluations, …) and `@turnkey/http` (approveActivity, createActivityPoller). A
 * non-root user's signature waits for the consensus a policy asks for, and is approved (it
 * runs; the signature verifies with viem) or rejected (REJECTED) by fingerprint. Then the
 * conformance property `consensus-flows` against this server, and against a broken variant
 * to show it can fail.
 */
import { randomUUID } from 'node:crypto';
import { type RunningServer, startServer } from '@keyhold/cli';
import { consensusFlows, handlerTarget, NO_ACTIVITY_WITH_FINGERPRINT } from '@keyhold/conformance';
import { createActivityPoller, TurnkeyActivityError, type TurnkeyClient } from '@turnkey/http';
import { TurnkeyRequestError } from '@turnkey/sdk-server';
import { type Hex, keccak256, recoverAddress, serializeSignature, stringToBytes } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  httpClient,
  rejection,
  sdkClient as turnkeyClient,
} from './__fixtures__/turnkey-server.js';
import { type ApiKeyPair, generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold } from './keyhold.js';
import { silentLogger } from './logger.js';

const POLLER = { intervalMs: 20, numRetries: 2 };

function sdkClient(url: string, organizationId: string, key: ApiKeyPair) {
  return turnkeyClient(url, organizationId, key, POLLER);
}

async function signer(digest: Hex, sig: { r: string; s: string; v: string }): Promise<string> {
  return recoverAddress({
    hash: digest,
    signature: serializeSignature({ r: `0x${sig.r}`, s: `0x${sig.s}`, yParity: Number(sig.v) }),
  });
}

type Sdk = ReturnType<typeof sdkClient>;

describe('policies, tags and consensus through @turnkey/sdk-server and @turnkey/http', () => {
  let server: RunningServer;
  let organizationId: string;
  let root: ApiKeyPair;
  let sdk: Sdk;
  let bobSdk: Sdk;
  let aliceSdk: Sdk;
  let carolSdk: Sdk;
  let aliceHttp: TurnkeyClient;
  let bobHttp: TurnkeyClient;
  let bobId: string;
  let aliceId: string;
  let approversTagId: string;
  let hotTagId: string;
  let keyId: string;
  let address: string;
  let policyId: string;

  const userWithKey = async (userName: string) => {
    const key = generateApiKeyPair();
    const { userIds } = await sdk.createUsers({
      users: [
        {
          userName,
          apiKeys: [
            { apiKeyName: userName, publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' },
          ],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    });
    return { key, userId: userIds[0]! };
  };

  const sign = (client: Sdk, text: string) =>
    client.signRawPayload({
      signWith: address,
      payload: keccak256(stringToBytes(text)),
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });

  beforeAll(async () => {
    root = generateApiKeyPair();
    server = await startServer({
      port: 0,
      logger: silentLogger,
      bootstrapApiPublicKey: root.publicKey,
      bootstrapOrganizationName: 'Consensus Clients',
    });
    organizationId = server.organizationId!;
    sdk = sdkClient(server.url, organizationId, root);
    const bob = await userWithKey('bob');
    const alice = await userWithKey('alice');
    const carol = await userWithKey('carol');
    bobId = bob.userId;
    aliceId = alice.userId;
    bobSdk = sdkClient(server.url, organizationId, bob.key);
    aliceSdk = sdkClient(server.url, organizationId, alice.key);
    carolSdk = sdkClient(server.url, organizationId, carol.key);
    aliceHttp = httpClient(server.url, alice.key);
    bobHttp = httpClient(server.url, bob.key);

    const tag = await sdk.createUserTag({ userTagName: 'approvers', userIds: [aliceId] });
    expect(tag.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(tag.userIds).toEqual([aliceId]);
    approversTagId = tag.userTagId;

    const created = await sdk.createPrivateKeys({
      privateKeys: [
        {
          privateKeyName: 'vault-key',
          curve: 'CURVE_SECP256K1',
          privateKeyTags: [],
          addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
        },
      ],
    });
    keyId = created.privateKeys[0]!.privateKeyId!;
    address = created.privateKeys[0]!.addresses![0]!.address!;
    const hot = await sdk.createPrivateKeyTag({ privateKeyTagName: 'hot', privateKeyIds: [keyId] });
    expect(hot.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    hotTagId = hot.privateKeyTagId;

    const policy = await sdk.createPolicy({
      policyName: 'hot keys need an approver',
      effect: 'EFFECT_ALLOW',
      condition: `activity.action == 'SIGN' && private_key.tags.contains('${hotTagId}')`,
      consensus: `approvers.any(user, user.tags.contains('${approversTagId}'))`,
      notes: 'signing with hot keys needs one of the approvers',
    });
    expect(policy.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(policy.activity.type).toBe('ACTIVITY_TYPE_CREATE_POLICY_V3');
    policyId = policy.policyId;
  });

  afterAll(async () => {
    await server?.close();
  });

  it('tags: listUserTags / listPrivateKeyTags in the datav1Tag shape; users and keys carry the tag ids', async () => {
    const { userTags } = await sdk.listUserTags();
    expect(userTags).toEqual([
      {
        tagId: approversTagId,
        tagName: 'approvers',
        tagType: 'TAG_TYPE_USER',
        createdAt: { seconds: expect.any(String), nanos: expect.any(String) },
        updatedAt: { seconds: expect.any(String), nanos: expect.any(String) },
      },
    ]);
    const { privateKeyTags } = await sdk.listPrivateKeyTags({ organizationId });
    expect(privateKeyTags.map((t) => [t.tagId, t.tagName, t.tagType])).toEqual([
      [hotTagId, 'hot', 'TAG_TYPE_PRIVATE_KEY'],
    ]);
    expect((await sdk.getUser({ userId: aliceId })).user.userTags).toEqual([approversTagId]);
    expect((await sdk.getPrivateKey({ privateKeyId: keyId })).privateKey.privateKeyTags).toEqual([
      hotTagId,
    ]);
  });

  it('policies: getPolicies / getPolicy in the v1Policy shape', async () => {
    const { policies } = await sdk.getPolicies();
    expect(policies).toEqual([
      {
        policyId,
        policyName: 'hot keys need an approver',
        effect: 'EFFECT_ALLOW',
        condition: `activity.action == 'SIGN' && private_key.tags.contains('${hotTagId}')`,
        consensus: `approvers.any(user, user.tags.contains('${approversTagId}'))`,
        notes: 'signing with hot keys needs one of the approvers',
        createdAt: { seconds: expect.any(String), nanos: expect.any(String) },
        updatedAt: { seconds: expect.any(String), nanos: expect.any(String) },
      },
    ]);
    expect((await sdk.getPolicy({ policyId })).policy).toEqual(policies[0]);
  });

  it('a bad policy is refused when written: code 3 "invalid policy condition" with line and column, nothing stored', async () => {
    const before = (await sdk.getActivities()).activities.length;
    const error = await rejection(
      sdk.createPolicy({
        policyName: 'typo',
        effect: 'EFFECT_ALLOW',
        condition: "activity.action == 'SIGN' && wallet.idd == 'w1'",
        notes: '',
      }),
    );
    expect(error).toBeInstanceOf(TurnkeyRequestError);
    expect(error.code).toBe(3);
    expect(error.message).toMatch(/^Turnkey error 3: invalid policy condition/);
    expect((error as TurnkeyRequestError).details).toEqual([
      expect.objectContaining({
        errorCode: 'INVALID_POLICY_CONDITION',
        field: 'condition',
        line: 1,
        column: 37,
        detail: expect.stringContaining("'idd'"),
      }),
    ]);
    const consensus = await rejection(
      sdk.createPolicy({
        policyName: 'wrong keyword',
        effect: 'EFFECT_ALLOW',
        consensus: "activity.action == 'SIGN'",
        notes: '',
      }),
    );
    expect(consensus.message).toMatch(/^Turnkey error 3: invalid policy consensus/);
    expect((await sdk.getActivities()).activities.length).toBe(before);
    expect((await sdk.getPolicies()).policies).toHaveLength(1);
  });

  it('bob’s signature waits for consensus; alice approves it by fingerprint with sdk-server approveActivity', async () => {
    const waiting = await sign(bobSdk, 'approve me');
    // sdk-server polls a few times, then returns the activity as it is.
    expect(waiting.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect((waiting as { r?: string }).r).toBeUndefined();
    expect(waiting.activity).toMatchObject({ canApprove: false, canReject: false });
    const { activity: asAlice } = await aliceSdk.getActivity({ activityId: waiting.activity.id });
    expect(asAlice).toMatchObject({ canApprove: true, canReject: true });
    const { activity: asCarol } = await carolSdk.getActivity({ activityId: waiting.activity.id });
    expect(asCarol).toMatchObject({ canApprove: false, canReject: false });

    const approved = await aliceSdk.approveActivity({ fingerprint: waiting.activity.fingerprint });
    // The answer is the target activity, now COMPLETED: sdk-server spreads its result.
    expect(approved.activity.id).toBe(waiting.activity.id);
    expect(approved.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(approved.activity.votes.map((v) => [v.userId, v.selection])).toEqual([
      [bobId, 'VOTE_SELECTION_APPROVED'],
      [aliceId, 'VOTE_SELECTION_APPROVED'],
    ]);
    const { signRawPayloadResult } = approved as unknown as {
      signRawPayloadResult: { r: string; s: string; v: string };
    };
    expect(await signer(keccak256(stringToBytes('approve me')), signRawPayloadResult)).toBe(
      address,
    );
    const { activity } = await bobSdk.getActivity({ activityId: waiting.activity.id });
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(activity.result.signRawPayloadResult).toEqual(signRawPayloadResult);

    // get_policy_evaluations: one decision per vote, the outcome of every policy.
    const { policyEvaluations } = await sdk.getPolicyEvaluations({
      activityId: waiting.activity.id,
    });
    expect(policyEvaluations).toEqual(
      activity.votes.map((vote, i) => ({
        id: expect.any(String),
        activityId: activity.id,
        organizationId,
        voteId: vote.id,
        policyEvaluations: [
          { policyId, outcome: i === 0 ? 'OUTCOME_REQUIRES_CONSENSUS' : 'OUTCOME_ALLOW' },
        ],
        createdAt: { seconds: expect.any(String), nanos: expect.any(String) },
      })),
    );
  });

  it('alice rejects with sdk-server rejectActivity: REJECTED, nothing signed', async () => {
    const waiting = await sign(bobSdk, 'reject me');
    expect(waiting.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const rejected = await aliceSdk.rejectActivity({ fingerprint: waiting.activity.fingerprint });
    expect(rejected.activity.id).toBe(waiting.activity.id);
    expect(rejected.activity.status).toBe('ACTIVITY_STATUS_REJECTED');
    expect(rejected.activity.result).toEqual({});
    expect(rejected.activity.votes.at(-1)).toMatchObject({
      userId: aliceId,
      selection: 'VOTE_SELECTION_REJECTED',
    });
    const { policyEvaluations } = await sdk.getPolicyEvaluations({
      activityId: waiting.activity.id,
    });
    expect(policyEvaluations.map((e) => e.policyEvaluations[0]?.outcome)).toEqual([
      'OUTCOME_REQUIRES_CONSENSUS',
      'OUTCOME_REJECTED',
    ]);
  });

  it('@turnkey/http: the poller throws "Consensus needed"; alice approves with http.approveActivity', async () => {
    const poll = createActivityPoller({
      client: bobHttp,
      requestFn: bobHttp.signRawPayload,
      refreshIntervalMs: 20,
    });
    const error = await rejection(
      poll({
        type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
        timestampMs: String(Date.now()),
        organizationId,
        parameters: {
          signWith: address,
          payload: keccak256(stringToBytes('via http')),
          encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
          hashFunction: 'HASH_FUNCTION_NO_OP',
        },
      }),
    );
    expect(error).toBeInstanceOf(TurnkeyActivityError);
    const activityId = (error as TurnkeyActivityError).activityId!;
    const { activity: waiting } = await aliceHttp.getActivity({ organizationId, activityId });
    const { activity } = await aliceHttp.approveActivity({
      type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY',
      timestampMs: String(Date.now()),
      organizationId,
      parameters: { fingerprint: waiting.fingerprint },
    });
    expect(activity.id).toBe(activityId);
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const sig = activity.result.signRawPayloadResult!;
    expect(await signer(keccak256(stringToBytes('via http')), sig)).toBe(address);
  });

  it('refuses a second vote, a vote on a finished activity, an unnamed voter and fingerprints of other organizations, changing nothing', async () => {
    const waiting = await sign(bobSdk, 'refusals');
    const { fingerprint, id } = waiting.activity;

    const second = await rejection(bobSdk.approveActivity({ fingerprint }));
    expect(second).toBeInstanceOf(TurnkeyRequestError);
    expect(second.code).toBe(9);
    expect(second.message).toMatch(/^Turnkey error 9: user has already voted on this activity/);

    const unnamed = await rejection(carolSdk.rejectActivity({ fingerprint }));
    expect(unnamed.code).toBe(7);
    expect(unnamed.message).toMatch(/^Turnkey error 7: request not authorized/);

    // Another organization's activity, by its real fingerprint.
    const otherKey = generateApiKeyPair();
    const other = await server.keyhold.bootstrap({
      organizationName: 'Elsewhere',
      apiPublicKey: otherKey.publicKey,
    });
    const otherSdk = sdkClient(server.url, other.organizationId, otherKey);
    const elsewhere = await otherSdk.createWallet({ walletName: 'theirs', accounts: [] });
    for (const f of [elsewhere.activity.fingerprint, `sha256:${'0'.repeat(64)}`]) {
      const missing = await rejection(aliceSdk.approveActivity({ fingerprint: f }));
      expect(missing.code).toBe(5);
      expect(missing.message).toMatch(
        new RegExp(`^Turnkey error 5: ${NO_ACTIVITY_WITH_FINGERPRINT.replace(/\./g, '\\.')}`),
      );
    }
    const { activity: unchanged } = await sdk.getActivity({ activityId: id });
    expect(unchanged.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect(unchanged.votes).toHaveLength(1);

    await aliceSdk.approveActivity({ fingerprint });
    const finished = await rejection(aliceSdk.rejectActivity({ fingerprint }));
    expect(finished.code).toBe(9);
    expect(finished.message).toMatch(/^Turnkey error 9: activity is not awaiting consensus/);
    const { activity: done } = await sdk.getActivity({ activityId: id });
    expect(done.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(done.votes).toHaveLength(2);
  });

  it('deny beats allow: a DENY policy refuses bob (403, nothing stored) while the root quorum still signs at once', async () => {
    const deny = await sdk.createPolicy({
      policyName: 'freeze hot keys',
      effect: 'EFFECT_DENY',
      condition: `activity.action == 'SIGN' && private_key.id == '${keyId}'`,
      notes: 'incident: nobody signs with the vault key',
    });
    expect(deny.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const before = (await sdk.getActivities()).activities.length;
    const refused = await rejection(sign(bobSdk, 'frozen'));
    expect(refused).toBeInstanceOf(TurnkeyRequestError);
    expect(refused.code).toBe(7);
    // Turnkey's exact error for an explicit deny (empty details).
    expect(refused.message).toBe(
      'Turnkey error 7: policy engine denied request explicitly (Details: [])',
    );
    expect((await sdk.getActivities()).activities.length).toBe(before);

    // The root quorum (threshold 1) bypasses policies.
    const rootSigned = await sign(sdk, 'root bypass');
    expect(rootSigned.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');

    const deleted = await sdk.deletePolicy({ policyId: deny.policyId });
    expect(deleted.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(deleted.policyId).toBe(deny.policyId);
    expect((await sign(bobSdk, 'thawed')).activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
  });

  it('updatePolicy (V2) changes the consensus; deleteUserTags removes the tag from its users', async () => {
    const updated = await sdk.updatePolicy({
      policyId,
      policyConsensus: `approvers.any(user, user.id == '${aliceId}')`,
    });
    expect(updated.activity.type).toBe('ACTIVITY_TYPE_UPDATE_POLICY_V2');
    expect(updated.policyId).toBe(policyId);
    expect((await sdk.getPolicy({ policyId })).policy.consensus).toBe(
      `approvers.any(user, user.id == '${aliceId}')`,
    );
    const deleted = await sdk.deleteUserTags({ userTagIds: [approversTagId] });
    expect(deleted.userTagIds).toEqual([approversTagId]);
    expect(deleted.userIds).toEqual([aliceId]);
    expect((await sdk.getUser({ userId: aliceId })).user.userTags).toEqual([]);
    expect((await sdk.listUserTags()).userTags).toEqual([]);
  });
});

describe('conformance: consensus-flows', () => {
  it('passes against an Express server', async () => {
    const key = generateApiKeyPair();
    const server = await startServer({
      port: 0,
      logger: silentLogger,
      bootstrapApiPublicKey: key.publicKey,
    });
    try {
      await consensusFlows.run(
        handlerTarget({
          handler: server.keyhold,
          organizationId: server.organizationId!,
          apiPrivateKey: key.privateKey,
        }),
        { numRuns: 12 },
      );
    } finally {
      await server.close();
    }
  });

  it('catches an implementation whose approvals do not run the activity', async () => {
    const keyhold = createKeyhold({ logger: silentLogger });
    const key = generateApiKeyPair();
    const { organizationId } = await keyhold.bootstrap({
      organizationName: 'Broken votes',
      apiPublicKey: key.publicKey,
    });
    const broken = handlerTarget({
      organizationId,
      apiPrivateKey: key.privateKey,
      handler: {
        // Answers votes with the activity as it was, recording nothing.
        async handle(request) {
          if (request.path.endsWith('/approve_activity')) {
            const { parameters } = JSON.parse(Buffer.from(request.rawBody).toString('utf8'));
            return {
              status: 200,
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                activity: { id: randomUUID(), fingerprint: parameters.fingerprint },
              }),
            };
          }
          return keyhold.handle(request);
        },
      },
    });
    try {
      await expect(consensusFlows.run(broken, { numRuns: 10, seed: 7 })).rejects.toThrow(
        /vote was not recorded|must run/,
      );
    } finally {
      await keyhold.close();
    }
  });
});
