/**
 * The decision on every activity, through the embedded client (stamped requests into
 * `handle()`), with a clock the tests move: policy and tag activities, deny beats allow, the
 * implicit allows, root-quorum rules, votes by fingerprint, approval expiry and
 * get_policy_evaluations. The consensus scenario also runs on the SQL store (PGlite, and
 * Postgres when reachable), and two instances sharing one Postgres lose no vote.
 */
import { type Clock, Store } from '@keyhold/activities';
import type { Activity } from '@keyhold/protocol';
import { createPostgresStore } from '@keyhold/store-postgres';
import { generateMasterKey } from '@keyhold/vault-software';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { serializeTransaction } from 'viem';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
// The store helpers of the store-postgres tests (no package export: test-only code).
import {
  dropSchemas,
  POSTGRES_URL,
  pgliteTarget,
  postgresReachable,
  postgresTarget,
  testSchema,
} from '../../../adapters/store-postgres/src/testing/targets.js';
import { generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold, type Keyhold, type KeyholdOptions } from './keyhold.js';
import { type KeyholdClient, KeyholdRequestError } from './keyhold-client.js';
import { silentLogger } from './logger.js';

const DAY = 24 * 60 * 60 * 1000;
const ETH_ACCOUNT = {
  curve: 'CURVE_SECP256K1',
  pathFormat: 'PATH_FORMAT_BIP32',
  path: "m/44'/60'/0'/0/0",
  addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
};

/** A clock that moves 1 ms per reading (so bodies differ) and jumps when told. */
class TestClock implements Clock {
  t = Date.UTC(2026, 0, 5, 12);
  now() {
    this.t += 1;
    return this.t;
  }
}

interface Member {
  userId: string;
  client: KeyholdClient;
  apiPrivateKey: string;
}

/** An organization with a root user and helpers to add users, keys and policies. */
class Org {
  constructor(
    readonly keyhold: Keyhold,
    readonly organizationId: string,
    readonly root: Member,
  ) {}

  static async create(keyhold: Keyhold, name = 'Acme'): Promise<Org> {
    const key = generateApiKeyPair();
    const { organizationId, userId } = await keyhold.bootstrap({
      organizationName: name,
      apiPublicKey: key.publicKey,
    });
    return new Org(keyhold, organizationId, {
      userId,
      client: keyhold.client({ organizationId, apiPrivateKey: key.privateKey }),
      apiPrivateKey: key.privateKey,
    });
  }

  async user(userName: string, userTags: string[] = []): Promise<Member> {
    const key = generateApiKeyPair();
    const { userIds } = await this.root.client.run<{ userIds: string[] }>(
      'ACTIVITY_TYPE_CREATE_USERS_V3',
      {
        users: [
          {
            userName,
            apiKeys: [
              { apiKeyName: userName, publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' },
            ],
            authenticators: [],
            oauthProviders: [],
            userTags,
          },
        ],
      },
    );
    return {
      userId: userIds[0]!,
      client: this.keyhold.client({
        organizationId: this.organizationId,
        apiPrivateKey: key.privateKey,
      }),
      apiPrivateKey: key.privateKey,
    };
  }

  async privateKey(privateKeyTags: string[] = []) {
    const { privateKeys } = await this.root.client.run<{
      privateKeys: { privateKeyId: string; addresses: { address: string }[] }[];
    }>('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
      privateKeys: [
        {
          privateKeyName: `key-${Math.random().toString(36).slice(2)}`,
          curve: 'CURVE_SECP256K1',
          privateKeyTags,
          addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
        },
      ],
    });
    return {
      privateKeyId: privateKeys[0]!.privateKeyId,
      address: privateKeys[0]!.addresses[0]!.address,
    };
  }

  async policy(p: {
    effect?: 'EFFECT_ALLOW' | 'EFFECT_DENY';
    condition?: string;
    consensus?: string;
    policyName?: string;
  }): Promise<string> {
    const { policyId } = await this.root.client.run<{ policyId: string }>(
      'ACTIVITY_TYPE_CREATE_POLICY_V3',
      {
        policyName: p.policyName ?? `policy-${Math.random().toString(36).slice(2)}`,
        effect: p.effect ?? 'EFFECT_ALLOW',
        notes: '',
        ...(p.condition !== undefined ? { condition: p.condition } : {}),
        ...(p.consensus !== undefined ? { consensus: p.consensus } : {}),
      },
    );
    return policyId;
  }
}

const signParams = (signWith: string, text: string) => ({
  signWith,
  payload: bytesToHex(keccak_256(new TextEncoder().encode(text))),
  encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
  hashFunction: 'HASH_FUNCTION_NO_OP',
});

const sign = (client: KeyholdClient, signWith: string, text: string) =>
  client.submit('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', signParams(signWith, text));

/** The Ethereum address that signed keccak256(text). */
function signerOf(activity: Activity, text: string): string {
  const sig = (activity.result as { signRawPayloadResult: { r: string; s: string; v: string } })
    .signRawPayloadResult;
  const key = secp256k1.Signature.fromBytes(hexToBytes(sig.r + sig.s), 'compact')
    .addRecoveryBit(Number(sig.v))
    .recoverPublicKey(keccak_256(new TextEncoder().encode(text)))
    .toBytes(false);
  return `0x${bytesToHex(keccak_256(key.subarray(1)).subarray(12))}`;
}

async function refusal(promise: Promise<unknown>): Promise<KeyholdRequestError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KeyholdRequestError);
  return error as KeyholdRequestError;
}

const activityCount = async (org: Org) =>
  (
    await org.root.client.query<{ activities: unknown[] }>('list_activities', {
      paginationOptions: { limit: '100' },
    })
  ).activities.length;

describe('policies and tags', () => {
  let keyhold: Keyhold;
  let org: Org;

  beforeEach(async () => {
    keyhold = createKeyhold({ logger: silentLogger, clock: new TestClock() });
    org = await Org.create(keyhold);
  });

  it('CREATE_POLICIES, UPDATE_POLICY V1 and V2, DELETE_POLICY, DELETE_POLICIES and the queries', async () => {
    const { policyIds } = await org.root.client.run<{ policyIds: string[] }>(
      'ACTIVITY_TYPE_CREATE_POLICIES',
      {
        policies: [
          {
            policyName: 'a',
            effect: 'EFFECT_ALLOW',
            condition: "activity.action == 'SIGN'",
            notes: 'n',
          },
          {
            policyName: 'b',
            effect: 'EFFECT_DENY',
            notes: '',
            time: "time.now < Timestamp('2030-01-01T00:00:00Z')",
          },
        ],
      },
    );
    expect(policyIds).toHaveLength(2);
    const { policies } = await org.root.client.query<{ policies: Record<string, unknown>[] }>(
      'list_policies',
    );
    expect(policies.map((p) => [p.policyName, p.effect, p.condition, p.consensus, p.time])).toEqual(
      [
        ['a', 'EFFECT_ALLOW', "activity.action == 'SIGN'", '', undefined],
        ['b', 'EFFECT_DENY', '', '', "time.now < Timestamp('2030-01-01T00:00:00Z')"],
      ],
    );

    const v1 = await org.root.client.run<{ policyId: string }>('ACTIVITY_TYPE_UPDATE_POLICY', {
      policyId: policyIds[0],
      policyName: 'a2',
      policyCondition: '',
    });
    expect(v1.activity.result).toEqual({ updatePolicyResult: { policyId: policyIds[0] } });
    const v2 = await org.root.client.run<{ policyId: string }>('ACTIVITY_TYPE_UPDATE_POLICY_V2', {
      policyId: policyIds[1],
      policyEffect: 'EFFECT_ALLOW',
      time: '',
    });
    expect(v2.activity.result).toEqual({ updatePolicyResultV2: { policyId: policyIds[1] } });
    const { policy } = await org.root.client.query<{ policy: Record<string, unknown> }>(
      'get_policy',
      { policyId: policyIds[0] },
    );
    expect(policy).toMatchObject({ policyName: 'a2', condition: '', notes: 'n' });
    const renamedOnto = await org.root.client.submit('ACTIVITY_TYPE_UPDATE_POLICY_V2', {
      policyId: policyIds[1],
      policyName: 'a2',
    });
    expect(renamedOnto.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(renamedOnto.failure?.message).toBe('policy label must be unique');

    const one = await org.root.client.run('ACTIVITY_TYPE_DELETE_POLICY', {
      policyId: policyIds[0],
    });
    expect(one.activity.result).toEqual({ deletePolicyResult: { policyId: policyIds[0] } });
    const unknown = await org.root.client.submit('ACTIVITY_TYPE_DELETE_POLICIES', {
      policyIds: [policyIds[1], policyIds[0]],
    });
    expect(unknown.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(unknown.failure?.message).toBe('policy not found');
    const both = await org.root.client.run('ACTIVITY_TYPE_DELETE_POLICIES', {
      policyIds: [policyIds[1]],
    });
    expect(both.activity.result).toEqual({ deletePoliciesResult: { policyIds: [policyIds[1]] } });
    expect(
      (await org.root.client.query<{ policies: unknown[] }>('list_policies')).policies,
    ).toEqual([]);
    const missing = await refusal(org.root.client.query('get_policy', { policyId: policyIds[0] }));
    expect(missing.httpStatus).toBe(404);
    expect(missing.status.message).toBe('policy not found');
  });

  it('names are unique: "policy label must be unique" (FAILED, nothing created), also within CREATE_POLICIES (refused)', async () => {
    await org.policy({ policyName: 'only one' });
    const again = await org.root.client.submit('ACTIVITY_TYPE_CREATE_POLICY_V3', {
      policyName: 'only one',
      effect: 'EFFECT_DENY',
      notes: '',
    });
    expect(again.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(again.failure).toMatchObject({ code: 3, message: 'policy label must be unique' });
    const twice = await refusal(
      org.root.client.submit('ACTIVITY_TYPE_CREATE_POLICIES', {
        policies: [
          { policyName: 'x', effect: 'EFFECT_ALLOW', notes: '' },
          { policyName: 'x', effect: 'EFFECT_DENY', notes: '' },
        ],
      }),
    );
    expect(twice.status.message).toBe('policy label must be unique');
    const { policies } = await org.root.client.query<{ policies: unknown[] }>('list_policies');
    expect(policies).toHaveLength(1);
  });

  it.each([
    [
      { condition: "activity.action == 'SIGN' && wallet.idd == 'w1'" },
      'invalid policy condition',
      { field: 'condition', line: 1, column: 37 },
    ],
    [
      { condition: "activity.action ==\n  'SIGN' &&\n  private_key.tags.contains(5)" },
      'invalid policy condition',
      { field: 'condition', line: 3 },
    ],
    [
      { consensus: "approvers.any(u, u.id == 'x') && activity.action == 'SIGN'" },
      'invalid policy consensus',
      { field: 'consensus', line: 1 },
    ],
    [{ consensus: 'approvers.count() >=' }, 'invalid policy consensus', { field: 'consensus' }],
    [{ time: "CronSpan('61 * * * *', '1h', 'UTC')" }, 'invalid policy time', { field: 'time' }],
  ])('refuses %j with "%s" and its position, storing nothing', async (texts, message, where) => {
    const before = await activityCount(org);
    const error = await refusal(
      org.root.client.submit('ACTIVITY_TYPE_CREATE_POLICY_V3', {
        policyName: 'bad',
        effect: 'EFFECT_ALLOW',
        notes: '',
        ...texts,
      }),
    );
    expect(error.httpStatus).toBe(400);
    expect(error.status.message).toBe(message);
    expect(error.status.details[0]).toMatchObject({ ...where, detail: expect.any(String) });
    expect(await activityCount(org)).toBe(before);
    // The same check guards UPDATE_POLICY and each policy of CREATE_POLICIES.
    const policyId = await org.policy({});
    const update = await refusal(
      org.root.client.submit('ACTIVITY_TYPE_UPDATE_POLICY_V2', {
        policyId,
        ...('condition' in texts ? { policyCondition: texts.condition } : {}),
        ...('consensus' in texts ? { policyConsensus: texts.consensus } : {}),
        ...('time' in texts ? { time: texts.time } : {}),
      }),
    );
    expect(update.status.message).toBe(message);
    const many = await refusal(
      org.root.client.submit('ACTIVITY_TYPE_CREATE_POLICIES', {
        policies: [
          { policyName: 'fine', effect: 'EFFECT_ALLOW', notes: '' },
          { policyName: 'bad', effect: 'EFFECT_ALLOW', notes: '', ...texts },
        ],
      }),
    );
    expect(many.status.details[0]).toMatchObject({ policyIndex: 1, ...where });
  });

  it('user tags: create, on CREATE_USERS and UPDATE_USER, rename, add/remove, delete; unknown ids refused', async () => {
    const alice = await org.user('alice');
    const { userTagId, userIds } = await org.root.client.run<{
      userTagId: string;
      userIds: string[];
    }>('ACTIVITY_TYPE_CREATE_USER_TAG', { userTagName: 'ops', userIds: [alice.userId] });
    expect(userIds).toEqual([alice.userId]);
    const bob = await org.user('bob', [userTagId]);
    const getTags = async (userId: string) =>
      (await org.root.client.query<{ user: { userTags: string[] } }>('get_user', { userId })).user
        .userTags;
    expect(await getTags(bob.userId)).toEqual([userTagId]);

    const dup = await org.root.client.submit('ACTIVITY_TYPE_CREATE_USER_TAG', {
      userTagName: 'ops',
      userIds: [],
    });
    expect(dup.failure?.message).toBe('user tag name must be unique');

    await org.root.client.run('ACTIVITY_TYPE_UPDATE_USER_TAG', {
      userTagId,
      newUserTagName: 'operators',
      addUserIds: [],
      removeUserIds: [alice.userId],
    });
    expect(await getTags(alice.userId)).toEqual([]);
    const { userTags } = await org.root.client.query<{ userTags: { tagName: string }[] }>(
      'list_user_tags',
    );
    expect(userTags.map((t) => t.tagName)).toEqual(['operators']);
    await org.root.client.run('ACTIVITY_TYPE_UPDATE_USER', {
      userId: alice.userId,
      userTagIds: [userTagId],
    });
    expect(await getTags(alice.userId)).toEqual([userTagId]);

    const unknownTag = crypto.randomUUID();
    const refused = await org.root.client.submit('ACTIVITY_TYPE_CREATE_USERS_V3', {
      users: [
        {
          userName: 'eve',
          apiKeys: [],
          authenticators: [],
          oauthProviders: [],
          userTags: [unknownTag],
        },
      ],
    });
    expect(refused.status).toBe('ACTIVITY_STATUS_FAILED');
    expect(refused.failure?.message).toBe('user tag not found');

    const deleted = await org.root.client.run<{ userTagIds: string[]; userIds: string[] }>(
      'ACTIVITY_TYPE_DELETE_USER_TAGS',
      { userTagIds: [userTagId] },
    );
    expect(deleted.userTagIds).toEqual([userTagId]);
    expect([...deleted.userIds].sort()).toEqual([alice.userId, bob.userId].sort());
    expect(await getTags(bob.userId)).toEqual([]);
  });

  it('private-key tags: create, on CREATE_PRIVATE_KEYS, update, delete', async () => {
    const { privateKeyTagId } = await org.root.client.run<{ privateKeyTagId: string }>(
      'ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG',
      { privateKeyTagName: 'cold', privateKeyIds: [] },
    );
    const key = await org.privateKey([privateKeyTagId]);
    const other = await org.privateKey();
    const tagsOf = async (privateKeyId: string) =>
      (
        await org.root.client.query<{ privateKey: { privateKeyTags: string[] } }>(
          'get_private_key',
          { privateKeyId },
        )
      ).privateKey.privateKeyTags;
    expect(await tagsOf(key.privateKeyId)).toEqual([privateKeyTagId]);
    await org.root.client.run('ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG', {
      privateKeyTagId,
      newPrivateKeyTagName: 'frozen',
      addPrivateKeyIds: [other.privateKeyId],
      removePrivateKeyIds: [key.privateKeyId],
    });
    expect(await tagsOf(key.privateKeyId)).toEqual([]);
    expect(await tagsOf(other.privateKeyId)).toEqual([privateKeyTagId]);
    const unknown = await org.root.client.submit('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
      privateKeys: [
        { privateKeyName: 'x', curve: 'CURVE_SECP256K1', privateKeyTags: [crypto.randomUUID()] },
      ],
    });
    expect(unknown.failure?.message).toBe('private key tag not found');
    const deleted = await org.root.client.run<{ privateKeyIds: string[] }>(
      'ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS',
      { privateKeyTagIds: [privateKeyTagId] },
    );
    expect(deleted.privateKeyIds).toEqual([other.privateKeyId]);
    expect(
      (await org.root.client.query<{ privateKeyTags: unknown[] }>('list_private_key_tags'))
        .privateKeyTags,
    ).toEqual([]);
  });
});

describe('the decision', () => {
  let clock: TestClock;
  let keyhold: Keyhold;
  let org: Org;

  beforeEach(async () => {
    clock = new TestClock();
    keyhold = createKeyhold({ logger: silentLogger, clock });
    org = await Org.create(keyhold);
  });

  it('no policy: a non-root user is refused (403, nothing stored); an ALLOW lets them act', async () => {
    const bob = await org.user('bob');
    const key = await org.privateKey();
    const before = await activityCount(org);
    const denied = await refusal(sign(bob.client, key.address, 'hello'));
    expect(denied.httpStatus).toBe(403);
    expect(denied.status.message).toBe('request not authorized');
    expect(await activityCount(org)).toBe(before);

    const policyId = await org.policy({
      condition: `activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP' && private_key.id == '${key.privateKeyId}'`,
    });
    const signed = await sign(bob.client, key.address, 'hello');
    expect(signed.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(signerOf(signed, 'hello')).toBe(key.address.toLowerCase());
    const { policyEvaluations } = await org.root.client.query<{
      policyEvaluations: { voteId: string; policyEvaluations: unknown[] }[];
    }>('get_policy_evaluations', { activityId: signed.id });
    expect(policyEvaluations).toHaveLength(1);
    expect(policyEvaluations[0]!.voteId).toBe(signed.votes[0]!.id);
    expect(policyEvaluations[0]!.policyEvaluations).toEqual([
      { policyId, outcome: 'OUTCOME_ALLOW' },
    ]);
  });

  it('policies read the parsed transaction: eth.tx.to and eth.tx.value decide a SIGN_TRANSACTION', async () => {
    const bob = await org.user('bob');
    const key = await org.privateKey();
    const allowed = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
    await org.policy({ condition: `activity.action == 'SIGN' && eth.tx.to == '${allowed}'` });
    await org.policy({ effect: 'EFFECT_DENY', condition: 'eth.tx.value > 1000' });
    const tx = (to: string, value: bigint) =>
      serializeTransaction({
        chainId: 1,
        type: 'eip1559',
        to: to as `0x${string}`,
        value,
        nonce: 0,
        gas: 21000n,
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 1n,
      }).slice(2);
    const signTx = (unsignedTransaction: string) =>
      bob.client.submit('ACTIVITY_TYPE_SIGN_TRANSACTION_V2', {
        signWith: key.address,
        unsignedTransaction,
        type: 'TRANSACTION_TYPE_ETHEREUM',
      });
    const ok = await signTx(tx(allowed, 1n));
    expect(ok.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await refusal(signTx(tx(allowed, 5000n)))).httpStatus).toBe(403);
    expect(
      (await refusal(signTx(tx('0x0000000000000000000000000000000000000001', 1n)))).httpStatus,
    ).toBe(403);
  });

  it('deny beats allow, in any order; the root quorum still runs at once', async () => {
    const bob = await org.user('bob');
    const key = await org.privateKey();
    const condition = `activity.action == 'SIGN' && private_key.id == '${key.privateKeyId}'`;
    await org.policy({ effect: 'EFFECT_DENY', condition });
    await org.policy({ condition });
    const denied = await refusal(sign(bob.client, key.address, 'x'));
    // Turnkey's text for an explicit deny, with no details (the policy ids are not on the wire).
    expect(denied.httpStatus).toBe(403);
    expect(denied.status).toEqual({
      code: 7,
      message: 'policy engine denied request explicitly',
      details: [],
    });
    const rooted = await sign(org.root.client, key.address, 'x');
    expect(rooted.status).toBe('ACTIVITY_STATUS_COMPLETED');
    // The root's decision still records every policy's outcome.
    const { policyEvaluations } = await org.root.client.query<{
      policyEvaluations: { policyEvaluations: { outcome: string }[] }[];
    }>('get_policy_evaluations', { activityId: rooted.id });
    expect(policyEvaluations[0]!.policyEvaluations.map((e) => e.outcome)).toEqual([
      'OUTCOME_DENY_EXPLICIT',
      'OUTCOME_ALLOW',
    ]);
  });

  it('property: whatever the policies and their order, a non-root signature runs iff some applicable ALLOW and no applicable DENY', async () => {
    const bob = await org.user('bob');
    const key = await org.privateKey();
    const other = await org.privateKey();
    // Conditions that apply to the request, do not, or read data it does not carry.
    const CONDITIONS = {
      applies: `activity.action == 'SIGN' && private_key.id == '${key.privateKeyId}'`,
      elsewhere: `private_key.id == '${other.privateKeyId}'`,
      'other resource': "activity.resource == 'WALLET'",
      'missing data': "wallet.label == 'x'",
    } as const;
    type Kind = keyof typeof CONDITIONS;
    const policyArb = fc.record({
      effect: fc.constantFrom('EFFECT_ALLOW' as const, 'EFFECT_DENY' as const),
      kind: fc.constantFrom(...(Object.keys(CONDITIONS) as Kind[])),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(policyArb, { maxLength: 5 }), async (policies) => {
        run += 1;
        const { policies: existing } = await org.root.client.query<{
          policies: { policyId: string }[];
        }>('list_policies');
        if (existing.length > 0) {
          await org.root.client.run('ACTIVITY_TYPE_DELETE_POLICIES', {
            policyIds: existing.map((p) => p.policyId),
          });
        }
        for (const p of policies)
          await org.policy({ effect: p.effect, condition: CONDITIONS[p.kind] });
        const applies = (effect: string) =>
          policies.some((p) => p.effect === effect && p.kind === 'applies');
        const allowed = applies('EFFECT_ALLOW') && !applies('EFFECT_DENY');
        const text = `property run ${run}`;
        const outcome = await sign(bob.client, key.address, text).then(
          (activity) => activity,
          (error: unknown) => error,
        );
        if (allowed) {
          expect((outcome as Activity).status).toBe('ACTIVITY_STATUS_COMPLETED');
          expect(signerOf(outcome as Activity, text)).toBe(key.address.toLowerCase());
        } else {
          expect(outcome).toBeInstanceOf(KeyholdRequestError);
          expect((outcome as KeyholdRequestError).httpStatus).toBe(403);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('managing your own API keys is allowed, unless a policy denies it; others’ keys are not yours', async () => {
    const bob = await org.user('bob');
    const alice = await org.user('alice');
    const mine = await bob.client.submit('ACTIVITY_TYPE_CREATE_API_KEYS_V2', {
      userId: bob.userId,
      apiKeys: [
        {
          apiKeyName: 'second',
          publicKey: generateApiKeyPair().publicKey,
          curveType: 'API_KEY_CURVE_P256',
        },
      ],
    });
    expect(mine.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const theirs = await refusal(
      bob.client.submit('ACTIVITY_TYPE_CREATE_API_KEYS_V2', {
        userId: alice.userId,
        apiKeys: [
          {
            apiKeyName: 'sneaky',
            publicKey: generateApiKeyPair().publicKey,
            curveType: 'API_KEY_CURVE_P256',
          },
        ],
      }),
    );
    expect(theirs.httpStatus).toBe(403);
    await org.policy({
      effect: 'EFFECT_DENY',
      condition: "activity.resource == 'CREDENTIAL' && activity.action == 'CREATE'",
    });
    const denied = await refusal(
      bob.client.submit('ACTIVITY_TYPE_CREATE_API_KEYS_V2', {
        userId: bob.userId,
        apiKeys: [
          {
            apiKeyName: 'third',
            publicKey: generateApiKeyPair().publicKey,
            curveType: 'API_KEY_CURVE_P256',
          },
        ],
      }),
    );
    expect(denied.httpStatus).toBe(403);
    const deleted = await bob.client.submit('ACTIVITY_TYPE_DELETE_API_KEYS', {
      userId: bob.userId,
      apiKeyIds: [
        (mine.result as { createApiKeysResult: { apiKeyIds: string[] } }).createApiKeysResult
          .apiKeyIds[0],
      ],
    });
    expect(deleted.status).toBe('ACTIVITY_STATUS_COMPLETED');
  });

  it('organization name and root quorum are the root quorum’s alone, whatever the policies say', async () => {
    const bob = await org.user('bob');
    await org.policy({ condition: 'true' });
    const rename = await refusal(
      bob.client.submit('ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME', { organizationName: 'Bob Corp' }),
    );
    expect(rename.httpStatus).toBe(403);
    expect(rename.status.details[0]).toMatchObject({
      reason: 'only the root quorum may approve this activity',
    });
    // …while the allow-everything policy does let bob create a wallet.
    expect((await bob.client.createWallet({ walletName: 'w', accounts: [] })).activity.status).toBe(
      'ACTIVITY_STATUS_COMPLETED',
    );
  });

  it('a root quorum of two needs two root votes; the second runs the activity, even against a deny', async () => {
    const alice = await org.user('alice');
    const bob = await org.user('bob');
    await org.policy({ effect: 'EFFECT_DENY', condition: "activity.resource == 'WALLET'" });
    await org.root.client.run('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', {
      threshold: 2,
      userIds: [org.root.userId, alice.userId],
    });
    const waiting = await org.root.client.submit('ACTIVITY_TYPE_CREATE_WALLET', {
      walletName: 'two keys',
      accounts: [ETH_ACCOUNT],
    });
    expect(waiting.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    // bob is neither in the quorum nor named by a policy: he may not vote.
    const bobView = (await bob.client.getActivity(waiting.id)).activity;
    expect(bobView).toMatchObject({ canApprove: false, canReject: false });
    expect((await refusal(bob.client.approveActivity(waiting.fingerprint))).httpStatus).toBe(403);
    const aliceView = (await alice.client.getActivity(waiting.id)).activity;
    expect(aliceView).toMatchObject({ canApprove: true, canReject: true });
    const listed = await alice.client.query<{ activities: Activity[] }>('list_activities', {
      filterByStatus: ['ACTIVITY_STATUS_CONSENSUS_NEEDED'],
    });
    expect(listed.activities.map((a) => [a.id, a.canApprove])).toEqual([[waiting.id, true]]);

    const done = await alice.client.approveActivity(waiting.fingerprint);
    expect(done.id).toBe(waiting.id);
    expect(done.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(done.result).toMatchObject({ createWalletResult: { walletId: expect.any(String) } });
    // A non-root submission denied by policy is still refused outright.
    expect(
      (
        await refusal(
          bob.client.submit('ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'no', accounts: [] }),
        )
      ).httpStatus,
    ).toBe(403);
    // UPDATE_ROOT_QUORUM itself needs both root users too; a root rejection ends it.
    const quorum = await org.root.client.submit('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', {
      threshold: 1,
      userIds: [org.root.userId],
    });
    expect(quorum.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect((await alice.client.rejectActivity(quorum.fingerprint)).status).toBe(
      'ACTIVITY_STATUS_REJECTED',
    );
  });

  describe('votes by fingerprint', () => {
    let bob: Member;
    let alice: Member;
    let dave: Member;
    let carol: Member;
    let key: { privateKeyId: string; address: string };
    let policyId: string;

    beforeEach(async () => {
      const { userTagId } = await org.root.client.run<{ userTagId: string }>(
        'ACTIVITY_TYPE_CREATE_USER_TAG',
        { userTagName: 'ops', userIds: [] },
      );
      bob = await org.user('bob');
      alice = await org.user('alice', [userTagId]);
      dave = await org.user('dave', [userTagId]);
      carol = await org.user('carol');
      key = await org.privateKey();
      policyId = await org.policy({
        condition: `activity.action == 'SIGN' && private_key.id == '${key.privateKeyId}'`,
        consensus: `approvers.filter(u, u.tags.contains('${userTagId}')).count() >= 2`,
      });
    });

    it('two tagged approvals run it; each vote is recorded with its body, and evaluated', async () => {
      const waiting = await sign(bob.client, key.address, 'two of ops');
      expect(waiting.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
      expect((await carol.client.getActivity(waiting.id)).activity.canApprove).toBe(false);
      expect((await dave.client.getActivity(waiting.id)).activity.canApprove).toBe(true);

      const first = await alice.client.approveActivity(waiting.fingerprint);
      expect(first.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const second = await dave.client.approveActivity(waiting.fingerprint);
      expect(second.status).toBe('ACTIVITY_STATUS_COMPLETED');
      expect(signerOf(second, 'two of ops')).toBe(key.address.toLowerCase());
      expect(second.votes.map((v) => v.userId)).toEqual([bob.userId, alice.userId, dave.userId]);
      for (const vote of second.votes.slice(1)) {
        expect(JSON.parse(vote.message)).toMatchObject({
          type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY',
          parameters: { fingerprint: waiting.fingerprint },
        });
        expect(vote.scheme).toBe('SIGNATURE_SCHEME_TK_API_P256');
      }
      const { policyEvaluations } = await org.root.client.query<{
        policyEvaluations: { voteId: string; policyEvaluations: { outcome: string }[] }[];
      }>('get_policy_evaluations', { activityId: waiting.id });
      expect(policyEvaluations.map((e) => [e.voteId, e.policyEvaluations])).toEqual(
        second.votes.map((v, i) => [
          v.id,
          [{ policyId, outcome: i < 2 ? 'OUTCOME_REQUIRES_CONSENSUS' : 'OUTCOME_ALLOW' }],
        ]),
      );
    });

    it('refuses a second vote, an unnamed voter, a vote on a finished activity and another organization’s fingerprint; a replayed vote body is one vote', async () => {
      const waiting = await sign(bob.client, key.address, 'refusals');
      const self = await refusal(bob.client.approveActivity(waiting.fingerprint));
      expect(self.status.message).toBe('user has already voted on this activity');
      const approveBody = {
        type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY',
        timestampMs: String(clock.now()),
        organizationId: org.organizationId,
        parameters: { fingerprint: waiting.fingerprint },
      };
      const once = await alice.client.post<{ activity: Activity }>(
        '/public/v1/submit/approve_activity',
        approveBody,
      );
      const replay = await alice.client.post<{ activity: Activity }>(
        '/public/v1/submit/approve_activity',
        approveBody,
      );
      expect(replay.activity).toEqual(once.activity);
      expect(replay.activity.votes).toHaveLength(2);
      const twice = await refusal(alice.client.approveActivity(waiting.fingerprint));
      expect(twice.httpStatus).toBe(400);
      expect(twice.status.message).toBe('user has already voted on this activity');
      expect((await refusal(carol.client.approveActivity(waiting.fingerprint))).httpStatus).toBe(
        403,
      );

      const elsewhere = await Org.create(keyhold, 'Elsewhere');
      const theirs = await elsewhere.root.client.submit('ACTIVITY_TYPE_CREATE_WALLET', {
        walletName: 'theirs',
        accounts: [],
      });
      const foreign = await refusal(dave.client.approveActivity(theirs.fingerprint));
      expect(foreign.httpStatus).toBe(404);
      expect(foreign.status.message).toBe(
        'No activity found with fingerprint. Consensus activities must target an existing activity by fingerprint',
      );
      // Nor can the other organization's root vote on ours.
      expect(
        (await refusal(elsewhere.root.client.approveActivity(waiting.fingerprint))).status.message,
      ).toMatch(/^No activity found with fingerprint/);

      expect((await dave.client.rejectActivity(waiting.fingerprint)).status).toBe(
        'ACTIVITY_STATUS_REJECTED',
      );
      const late = await refusal(org.root.client.approveActivity(waiting.fingerprint));
      expect(late.status.message).toMatch(/^activity is not awaiting consensus/);
      const { activity } = await org.root.client.getActivity(waiting.id);
      expect(activity.status).toBe('ACTIVITY_STATUS_REJECTED');
      expect(activity.votes.map((v) => v.selection)).toEqual([
        'VOTE_SELECTION_APPROVED',
        'VOTE_SELECTION_APPROVED',
        'VOTE_SELECTION_REJECTED',
      ]);
    });

    it('approvals expire 24 h after the first vote: later votes are refused, nothing changes', async () => {
      const waiting = await sign(bob.client, key.address, 'slow');
      await alice.client.approveActivity(waiting.fingerprint);
      clock.t += DAY;
      expect((await dave.client.getActivity(waiting.id)).activity.canApprove).toBe(false);
      const expired = await refusal(dave.client.approveActivity(waiting.fingerprint));
      expect(expired.httpStatus).toBe(400);
      expect(expired.status.message).toMatch(/^consensus expired/);
      const { activity } = await org.root.client.getActivity(waiting.id);
      expect(activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
      expect(activity.votes).toHaveLength(2);
    });

    it('a root user’s approval runs it at once (root quorum of one)', async () => {
      const waiting = await sign(bob.client, key.address, 'root helps');
      const done = await org.root.client.approveActivity(waiting.fingerprint);
      expect(done.status).toBe('ACTIVITY_STATUS_COMPLETED');
    });

    it('an approval that runs a failing activity stores it FAILED with the vote', async () => {
      const waiting = await sign(bob.client, key.address, 'will fail');
      // The key is disabled in between (made unusable), so running it fails.
      await alice.client.approveActivity(waiting.fingerprint);
      const store = keyhold.container.get<Store>(Store);
      await store.transaction(async (tx) => {
        const record = (await tx.privateKeys.get(org.organizationId, key.privateKeyId))!;
        await tx.privateKeys.update({ ...record, disabled: true });
      });
      const failed = await dave.client.approveActivity(waiting.fingerprint);
      expect(failed.status).toBe('ACTIVITY_STATUS_FAILED');
      expect(failed.failure?.message).toBe('private key is disabled');
      expect(failed.votes).toHaveLength(3);
      const { policyEvaluations } = await org.root.client.query<{ policyEvaluations: unknown[] }>(
        'get_policy_evaluations',
        { activityId: waiting.id },
      );
      expect(policyEvaluations).toHaveLength(3);
    });
  });

  it('the approval window is configurable', async () => {
    const short = createKeyhold({ logger: silentLogger, clock, consensusExpiryMs: 1000 });
    const o = await Org.create(short);
    const alice = await o.user('alice');
    await o.root.client.run('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', {
      threshold: 2,
      userIds: [o.root.userId, alice.userId],
    });
    const waiting = await o.root.client.submit('ACTIVITY_TYPE_CREATE_WALLET', {
      walletName: 'quick',
      accounts: [],
    });
    clock.t += 1000;
    expect(
      (await refusal(alice.client.approveActivity(waiting.fingerprint))).status.message,
    ).toMatch(/^consensus expired/);
  });
});

/** The consensus scenario on a given store. */
async function consensusScenario(options: KeyholdOptions): Promise<void> {
  const keyhold = createKeyhold({ logger: silentLogger, ...options });
  try {
    const org = await Org.create(keyhold, `SQL ${Math.random()}`);
    const bob = await org.user('bob');
    const alice = await org.user('alice');
    const key = await org.privateKey();
    await org.policy({
      condition: `private_key.id == '${key.privateKeyId}'`,
      consensus: `approvers.any(u, u.id == '${alice.userId}')`,
    });
    const waiting = await sign(bob.client, key.address, 'on sql');
    expect(waiting.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    const done = await alice.client.approveActivity(waiting.fingerprint);
    expect(done.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(signerOf(done, 'on sql')).toBe(key.address.toLowerCase());
    const rejected = await sign(bob.client, key.address, 'no');
    expect((await alice.client.rejectActivity(rejected.fingerprint)).status).toBe(
      'ACTIVITY_STATUS_REJECTED',
    );
    const { policyEvaluations } = await org.root.client.query<{ policyEvaluations: unknown[] }>(
      'get_policy_evaluations',
      { activityId: done.id },
    );
    expect(policyEvaluations).toHaveLength(2);
  } finally {
    await keyhold.close();
  }
}

const withPostgres = await postgresReachable();

describe('on the SQL store', () => {
  const pglite = pgliteTarget('shared');
  const postgres = postgresTarget();
  afterAll(async () => {
    await pglite.dispose();
    if (withPostgres) await postgres.dispose();
  });

  it('PGlite: policies, votes and evaluations persist through the SQL store', async () => {
    await consensusScenario({ store: await pglite.open() });
  });

  it.skipIf(!withPostgres)('Postgres: the same', async () => {
    await consensusScenario({ store: await postgres.open() });
  });

  it.skipIf(!withPostgres)(
    'two instances on one Postgres: concurrent votes on one activity are all counted',
    async () => {
      const masterKey = generateMasterKey();
      const schema = testSchema('policies_shared');
      // Two instances: each a pool of its own on one schema, with one master key.
      const open = async () =>
        createKeyhold({
          logger: silentLogger,
          masterKey,
          store: await createPostgresStore({ connectionString: POSTGRES_URL, schema }),
        });
      const a = await open();
      const b = await open();
      try {
        const org = await Org.create(a, `Shared ${Math.random()}`);
        const voters = [await org.user('v1'), await org.user('v2'), await org.user('v3')];
        await org.root.client.run('ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', {
          threshold: 4,
          userIds: [org.root.userId, ...voters.map((v) => v.userId)],
        });
        const waiting = await org.root.client.submit('ACTIVITY_TYPE_CREATE_WALLET', {
          walletName: 'four keys',
          accounts: [ETH_ACCOUNT],
        });
        expect(waiting.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
        // Voters alternate between the instances, all at once.
        const answers = await Promise.all(
          voters.map((v, i) =>
            (i % 2 === 0 ? a : b)
              .client({ organizationId: org.organizationId, apiPrivateKey: v.apiPrivateKey })
              .approveActivity(waiting.fingerprint),
          ),
        );
        expect(answers.map((x) => x.status).sort()).toEqual([
          'ACTIVITY_STATUS_COMPLETED',
          'ACTIVITY_STATUS_CONSENSUS_NEEDED',
          'ACTIVITY_STATUS_CONSENSUS_NEEDED',
        ]);
        const { activity } = await org.root.client.getActivity(waiting.id);
        expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
        expect(activity.votes).toHaveLength(4);
      } finally {
        await a.close();
        await b.close();
        await dropSchemas([schema]);
      }
    },
  );
});
