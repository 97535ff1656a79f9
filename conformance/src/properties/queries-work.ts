/**
 * queries-work: reads answer with what was written.
 * - `whoami` names the target organization and the stamping user;
 * - `get_activity` returns the activity a submission returned (the same object once it is
 *   terminal), and `list_activities` contains it;
 * - `get_activity` of an id that names no activity is a 4xx Status refusal.
 * @module
 */
import assert from 'node:assert/strict';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { ConformanceClient, QUERY_PREFIX } from '../client.js';
import { type ConformanceProperty, fcParameters } from '../property.js';
import { expectStatusRefusal } from '../status-body.js';
import type { ConformanceTarget } from '../target.js';
import { uniqueName } from './signatures-verify.js';

const TERMINAL = new Set([
  'ACTIVITY_STATUS_COMPLETED',
  'ACTIVITY_STATUS_FAILED',
  'ACTIVITY_STATUS_REJECTED',
]);

type Case =
  | { kind: 'whoami' }
  | { kind: 'create-wallet' }
  | { kind: 'create-private-key'; curve: string }
  | { kind: 'failed-sign'; digest: Uint8Array }
  | { kind: 'unknown-activity'; activityId: string };

const caseArb: fc.Arbitrary<Case> = fc.oneof(
  fc.constant({ kind: 'whoami' as const }),
  fc.constant({ kind: 'create-wallet' as const }),
  fc.record({
    kind: fc.constant('create-private-key' as const),
    curve: fc.constantFrom('CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'),
  }),
  fc.record({
    kind: fc.constant('failed-sign' as const),
    digest: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  }),
  fc.record({ kind: fc.constant('unknown-activity' as const), activityId: fc.uuid() }),
);

async function check(
  client: ConformanceClient,
  c: Case,
  whoamiUserId: { value?: string },
): Promise<void> {
  switch (c.kind) {
    case 'whoami': {
      const me = await client.query('whoami');
      assert.equal(me.organizationId, client.organizationId, 'whoami names another organization');
      assert.equal(typeof me.organizationName, 'string', 'whoami.organizationName is not a string');
      assert.equal(typeof me.userId, 'string', 'whoami.userId is not a string');
      assert.equal(typeof me.username, 'string', 'whoami.username is not a string');
      whoamiUserId.value ??= me.userId;
      assert.equal(me.userId, whoamiUserId.value, 'whoami named another user for the same key');
      return;
    }
    case 'unknown-activity': {
      const body = JSON.stringify({
        organizationId: client.organizationId,
        activityId: c.activityId,
      });
      const response = await client.postStamped(`${QUERY_PREFIX}get_activity`, body);
      expectStatusRefusal(response, { request: body });
      return;
    }
    default:
      break;
  }
  const submitted =
    c.kind === 'create-wallet'
      ? await client.submit('ACTIVITY_TYPE_CREATE_WALLET', 'create_wallet', {
          walletName: uniqueName('conformance-query'),
          accounts: [],
        })
      : c.kind === 'create-private-key'
        ? await client.submit('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', 'create_private_keys', {
            privateKeys: [
              {
                privateKeyName: uniqueName('conformance-query'),
                curve: c.curve,
                privateKeyTags: [],
                addressFormats: [],
              },
            ],
          })
        : await client.submit('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', 'sign_raw_payload', {
            signWith: `0x${'00'.repeat(19)}03`,
            payload: bytesToHex(c.digest),
            encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
            hashFunction: 'HASH_FUNCTION_NO_OP',
          });
  const { activity } = submitted;
  assert.equal(typeof activity.id, 'string', 'the submitted activity has no id');
  const { activity: read } = await client.query('get_activity', { activityId: activity.id });
  assert.ok(read, `get_activity returned no activity for ${activity.id}`);
  if (TERMINAL.has(activity.status)) {
    assert.deepEqual(read, activity, 'get_activity differs from what the submission returned');
  } else {
    for (const field of ['id', 'organizationId', 'type', 'fingerprint', 'intent'] as const) {
      assert.deepEqual(
        read[field],
        activity[field],
        `get_activity.${field} differs from the submission's`,
      );
    }
  }
  const { activities } = await client.query('list_activities', {
    filterByType: [activity.type],
    paginationOptions: { limit: '100' },
  });
  assert.ok(Array.isArray(activities), 'list_activities returned no activities array');
  assert.ok(
    (activities as { id: string }[]).some((a) => a.id === activity.id),
    `list_activities (newest first, limit 100) does not contain the activity just submitted (${activity.id})`,
  );
}

export const queriesWork: ConformanceProperty = {
  name: 'queries-work',
  description:
    'whoami names the target organization; get_activity returns what the submission returned and ' +
    'list_activities contains it; an unknown activity id is a 4xx Status refusal',
  async run(target: ConformanceTarget, options) {
    const client = new ConformanceClient(target);
    const whoamiUserId: { value?: string } = {};
    await fc.assert(
      fc.asyncProperty(caseArb, (c) => check(client, c, whoamiUserId)),
      fcParameters(options),
    );
  },
};
