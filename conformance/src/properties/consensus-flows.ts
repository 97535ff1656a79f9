/**
 * consensus-flows: an activity that a policy's consensus holds back waits for it, and votes by
 * fingerprint decide it (wire-compat §2.1, §2.5, §5).
 *
 * Setup (once per run, through the public API with the target's root key): three users with
 * API keys of their own — a submitter, an approver and an outsider — a secp256k1 private key,
 * and an ALLOW policy for signing with that key whose consensus names the approver:
 * `approvers.any(u, u.id == '<approver>')`.
 *
 * Each case: the submitter signs a generated digest with the key → HTTP 200, the activity is
 * CONSENSUS_NEEDED with the fingerprint of the body sent, one APPROVED vote carrying that body
 * and no signature yet. Then, depending on the case, a vote that must be refused with a 4xx
 * Status changing nothing (the submitter voting again, the outsider voting, a fingerprint that
 * names no activity — with the documented message); then the approver approves or rejects by
 * fingerprint (HTTP 200): approved, the activity is COMPLETED and its signature verifies
 * against the key's address; rejected, it is REJECTED with no result. Either way its votes now
 * include the approver's, carrying the exact vote body, and any further vote is refused.
 * @module
 */
import assert from 'node:assert/strict';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { ConformanceClient, parseJson, SUBMIT_PREFIX } from '../client.js';
import { type ConformanceProperty, fcParameters } from '../property.js';
import { expectStatusRefusal } from '../status-body.js';
import type { ConformanceTarget } from '../target.js';
import { verifyRawPayloadSignature } from '../verify-signature.js';
import { fingerprintOf } from './same-body-same-activity.js';
import { uniqueName } from './signatures-verify.js';

/** The documented refusal of a vote whose fingerprint names no activity of the organization. */
export const NO_ACTIVITY_WITH_FINGERPRINT =
  'No activity found with fingerprint. Consensus activities must target an existing activity by fingerprint';

type Interlude = 'none' | 'submitter-votes-again' | 'outsider-votes' | 'unknown-fingerprint';

interface Case {
  digest: Uint8Array;
  decision: 'approve' | 'reject';
  interlude: Interlude;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  digest: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  decision: fc.constantFrom('approve' as const, 'reject' as const),
  interlude: fc.constantFrom<Interlude>(
    'none',
    'submitter-votes-again',
    'outsider-votes',
    'unknown-fingerprint',
  ),
});

interface Member {
  userId: string;
  client: ConformanceClient;
}

interface Setup {
  submitter: Member;
  approver: Member;
  outsider: Member;
  address: string;
}

/** A client of the same target acting with another API key. */
function clientWithKey(target: ConformanceTarget, apiPrivateKey: string): ConformanceClient {
  const secret = Uint8Array.from(Buffer.from(apiPrivateKey, 'hex'));
  return new ConformanceClient({
    ...target,
    apiPrivateKey,
    apiPublicKey: bytesToHex(p256.getPublicKey(secret, true)),
  });
}

async function createMember(root: ConformanceClient, label: string): Promise<Member> {
  const apiPrivateKey = bytesToHex(p256.utils.randomSecretKey());
  const client = clientWithKey(root.target, apiPrivateKey);
  const result = await root.execute(
    'ACTIVITY_TYPE_CREATE_USERS_V3',
    'create_users',
    {
      users: [
        {
          userName: uniqueName(`conformance-${label}`),
          apiKeys: [
            {
              apiKeyName: uniqueName('conformance-key'),
              publicKey: client.target.apiPublicKey,
              curveType: 'API_KEY_CURVE_P256',
            },
          ],
          authenticators: [],
          oauthProviders: [],
          userTags: [],
        },
      ],
    },
    'createUsersResult',
  );
  const userId = result.userIds?.[0];
  assert.equal(typeof userId, 'string', 'createUsersResult.userIds[0] is not a string');
  return { userId, client };
}

async function setUp(root: ConformanceClient): Promise<Setup> {
  const [submitter, approver, outsider] = [
    await createMember(root, 'submitter'),
    await createMember(root, 'approver'),
    await createMember(root, 'outsider'),
  ];
  const created = await root.execute(
    'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2',
    'create_private_keys',
    {
      privateKeys: [
        {
          privateKeyName: uniqueName('conformance-consensus'),
          curve: 'CURVE_SECP256K1',
          privateKeyTags: [],
          addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
        },
      ],
    },
    'createPrivateKeysResultV2',
  );
  const key = created.privateKeys?.[0];
  const address = key?.addresses?.[0]?.address;
  assert.equal(typeof address, 'string', 'createPrivateKeysResultV2 has no address');
  const policy = await root.execute(
    'ACTIVITY_TYPE_CREATE_POLICY_V3',
    'create_policy',
    {
      policyName: uniqueName('conformance-consensus'),
      effect: 'EFFECT_ALLOW',
      condition: `activity.action == 'SIGN' && private_key.id == '${key.privateKeyId}'`,
      consensus: `approvers.any(user, user.id == '${approver.userId}')`,
      notes: 'conformance: signing with this key needs the approver',
    },
    'createPolicyResult',
  );
  assert.equal(typeof policy.policyId, 'string', 'createPolicyResult.policyId is not a string');
  return { submitter, approver, outsider, address };
}

function voteBody(client: ConformanceClient, approve: boolean, fingerprint: string): string {
  const type = approve ? 'ACTIVITY_TYPE_APPROVE_ACTIVITY' : 'ACTIVITY_TYPE_REJECT_ACTIVITY';
  return JSON.stringify(client.envelope(type, { fingerprint }));
}

const votePath = (approve: boolean) =>
  `${SUBMIT_PREFIX}${approve ? 'approve_activity' : 'reject_activity'}`;

/** A vote that must be refused with a 4xx Status. */
async function refusedVote(
  client: ConformanceClient,
  approve: boolean,
  fingerprint: string,
  why: string,
  message?: string,
): Promise<void> {
  const body = voteBody(client, approve, fingerprint);
  const response = await client.postStamped(votePath(approve), body);
  expectStatusRefusal(response, {
    request: `${why}: ${body}`,
    ...(message === undefined ? {} : { message }),
  });
}

// biome-ignore lint/suspicious/noExplicitAny: activities are plain JSON.
async function activityAfterVote(client: ConformanceClient, id: string): Promise<any> {
  // Implementations may settle the vote asynchronously: give them a moment.
  for (let attempt = 0; ; attempt++) {
    const { activity } = await client.query('get_activity', { activityId: id });
    const settled = !['ACTIVITY_STATUS_CONSENSUS_NEEDED', 'ACTIVITY_STATUS_PENDING'].includes(
      activity?.status,
    );
    if (settled || attempt >= 10) return activity;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function check(root: ConformanceClient, setup: Setup, c: Case): Promise<void> {
  const { submitter, approver, outsider, address } = setup;
  const submitted = await submitter.client.submit(
    'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
    'sign_raw_payload',
    {
      signWith: address,
      payload: bytesToHex(c.digest),
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    },
  );
  const pending = submitted.activity;
  const fingerprint = fingerprintOf(submitted.bodyText);
  assert.equal(
    pending.status,
    'ACTIVITY_STATUS_CONSENSUS_NEEDED',
    `a signature whose policy names another approver must wait for consensus; got ${pending.status}`,
  );
  assert.equal(pending.fingerprint, fingerprint, 'the fingerprint is not sha256 of the body sent');
  assert.equal(pending.result?.signRawPayloadResult, undefined, 'a waiting activity has a result');
  assert.equal(pending.votes?.length, 1, 'a new activity carries exactly its submitter’s vote');
  assert.equal(pending.votes[0].userId, submitter.userId, 'the first vote is not the submitter’s');
  assert.equal(pending.votes[0].selection, 'VOTE_SELECTION_APPROVED');
  assert.equal(pending.votes[0].message, submitted.bodyText, 'the vote does not carry the body');

  switch (c.interlude) {
    case 'submitter-votes-again':
      await refusedVote(submitter.client, true, fingerprint, 'a second vote by the submitter');
      break;
    case 'outsider-votes':
      await refusedVote(outsider.client, true, fingerprint, 'a vote by a user no policy names');
      break;
    case 'unknown-fingerprint':
      await refusedVote(
        approver.client,
        true,
        fingerprintOf(`no such body ${bytesToHex(c.digest)}`),
        'a fingerprint that names no activity',
        NO_ACTIVITY_WITH_FINGERPRINT,
      );
      break;
    default:
      break;
  }
  if (c.interlude !== 'none') {
    const { activity } = await root.query('get_activity', { activityId: pending.id });
    assert.equal(activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED', 'a refused vote changed it');
    assert.equal(activity.votes.length, 1, 'a refused vote was recorded');
  }

  const approve = c.decision === 'approve';
  const body = voteBody(approver.client, approve, fingerprint);
  const response = await approver.client.postStamped(votePath(approve), body);
  const parsed = parseJson(response.body) as { activity?: unknown } | undefined;
  assert.equal(response.status, 200, `the approver's vote was refused: ${response.body}`);
  assert.ok(parsed?.activity, `the vote's answer has no activity: ${response.body}`);

  const decided = await activityAfterVote(root, pending.id);
  const votes = decided.votes as { userId: string; selection: string; message: string }[];
  assert.equal(votes.length, 2, 'the approver’s vote was not recorded once');
  assert.equal(votes[1]!.userId, approver.userId);
  assert.equal(votes[1]!.message, body, 'the vote does not carry the exact body the voter signed');
  if (approve) {
    assert.equal(decided.status, 'ACTIVITY_STATUS_COMPLETED', 'approved, the activity must run');
    assert.equal(votes[1]!.selection, 'VOTE_SELECTION_APPROVED');
    verifyRawPayloadSignature({
      curve: 'CURVE_SECP256K1',
      addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
      address,
      message: c.digest,
      hashFunction: 'HASH_FUNCTION_NO_OP',
      signature: decided.result?.signRawPayloadResult,
    });
  } else {
    assert.equal(decided.status, 'ACTIVITY_STATUS_REJECTED', 'rejected, the activity must end');
    assert.equal(votes[1]!.selection, 'VOTE_SELECTION_REJECTED');
    assert.equal(decided.result?.signRawPayloadResult, undefined, 'a rejected activity signed');
  }

  // Decided: any further vote is refused and changes nothing.
  await refusedVote(approver.client, !approve, fingerprint, 'a vote on a finished activity');
  await refusedVote(submitter.client, true, fingerprint, 'a vote on a finished activity');
  const after = (await root.query('get_activity', { activityId: pending.id })).activity;
  assert.equal(after.status, decided.status, 'a vote on a finished activity changed it');
  assert.equal(after.votes.length, 2, 'a vote on a finished activity was recorded');
}

export const consensusFlows: ConformanceProperty = {
  name: 'consensus-flows',
  description:
    'a signature held back by a policy consensus waits in CONSENSUS_NEEDED; the named approver ' +
    'approves (it runs and the signature verifies) or rejects (REJECTED) by fingerprint; second ' +
    'votes, votes by unnamed users, unknown fingerprints and votes on finished activities are ' +
    '4xx refusals that change nothing',
  async run(target: ConformanceTarget, options) {
    const root = new ConformanceClient(target);
    let setup: Setup | undefined;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        setup ??= await setUp(root);
        await check(root, setup, c);
      }),
      fcParameters(options),
    );
  },
};
