/**
 * same-body-same-activity: the fingerprint is `sha256:` + hex(SHA-256(raw body)), and one
 * body is one activity (wire-compat §6).
 *
 * For a generated activity body: the response's fingerprint is the hash of the bytes sent;
 * two copies sent at once, a replay with the same stamp and one with a fresh stamp all
 * return the same activity (id, fingerprint, type, status) and its effects happen once; the
 * same parameters with a new `timestampMs`, or the same JSON with different whitespace, are
 * different bodies and so different activities. An activity that fails is deduplicated the same way; if the
 * target refuses it instead, the replay is refused the same way.
 * @module
 */
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { ConformanceClient, parseJson, STAMP_HEADER, SUBMIT_PREFIX } from '../client.js';
import { type ConformanceProperty, fcParameters } from '../property.js';
import { expectStatusRefusal } from '../status-body.js';
import type { ConformanceTarget } from '../target.js';
import { KEY_KINDS, SignerPool, uniqueName } from './signatures-verify.js';

/** `sha256:` + lower-case hex of SHA-256 of the body's UTF-8 bytes. */
export function fingerprintOf(bodyText: string): string {
  return `sha256:${bytesToHex(sha256(utf8ToBytes(bodyText)))}`;
}

const TERMINAL = new Set([
  'ACTIVITY_STATUS_COMPLETED',
  'ACTIVITY_STATUS_FAILED',
  'ACTIVITY_STATUS_REJECTED',
]);

type ActivityCase =
  | { kind: 'sign'; digest: Uint8Array }
  | { kind: 'sign-unknown-signer'; address: Uint8Array; digest: Uint8Array }
  | { kind: 'create-private-key'; curve: string };

const caseArb: fc.Arbitrary<ActivityCase> = fc.oneof(
  fc.record({
    kind: fc.constant('sign' as const),
    digest: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  }),
  fc.record({
    kind: fc.constant('sign-unknown-signer' as const),
    address: fc.uint8Array({ minLength: 20, maxLength: 20 }),
    digest: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  }),
  fc.record({
    kind: fc.constant('create-private-key' as const),
    curve: fc.constantFrom('CURVE_SECP256K1', 'CURVE_P256', 'CURVE_ED25519'),
  }),
);

interface Request {
  type: string;
  path: string;
  parameters: Record<string, unknown>;
}

async function requestOf(c: ActivityCase, pool: SignerPool): Promise<Request> {
  const sign = (signWith: string, digest: Uint8Array): Request => ({
    type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
    path: 'sign_raw_payload',
    parameters: {
      signWith,
      payload: bytesToHex(digest),
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    },
  });
  switch (c.kind) {
    case 'sign': {
      const { address } = await pool.privateKey(KEY_KINDS[0]!, 0);
      return sign(address, c.digest);
    }
    case 'sign-unknown-signer':
      return sign(`0x${bytesToHex(c.address)}`, c.digest);
    case 'create-private-key':
      return {
        type: 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2',
        path: 'create_private_keys',
        parameters: {
          privateKeys: [
            {
              privateKeyName: uniqueName('conformance-dedupe'),
              curve: c.curve,
              privateKeyTags: [],
              addressFormats: [],
            },
          ],
        },
      };
  }
}

// biome-ignore lint/suspicious/noExplicitAny: activities are plain JSON.
function activityOf(response: { status: number; body: string }, what: string): any {
  const parsed = parseJson(response.body) as { activity?: Record<string, unknown> } | undefined;
  assert.equal(
    response.status,
    200,
    `${what}: expected HTTP 200, got ${response.status} ${response.body}`,
  );
  assert.ok(parsed?.activity, `${what}: no activity in ${response.body}`);
  return parsed.activity;
}

async function check(client: ConformanceClient, pool: SignerPool, c: ActivityCase): Promise<void> {
  const request = await requestOf(c, pool);
  const path = `${SUBMIT_PREFIX}${request.path}`;
  const envelope = client.envelope(request.type, request.parameters);
  const body = JSON.stringify(envelope);
  const stamp = await client.stamp(body);

  // Two copies race, then one replay with the same stamp and one with a fresh stamp.
  const [first, twin] = await Promise.all([
    client.post(path, body, { [STAMP_HEADER]: stamp }),
    client.post(path, body, { [STAMP_HEADER]: stamp }),
  ]);
  const replay = await client.post(path, body, { [STAMP_HEADER]: stamp });
  const restamped = await client.postStamped(path, body);

  if (first.status !== 200) {
    // Only an activity that may fail is allowed to be refused instead, and then consistently.
    assert.equal(
      c.kind,
      'sign-unknown-signer',
      `expected HTTP 200, got ${first.status} ${first.body}\n  body: ${body}`,
    );
    const refusal = expectStatusRefusal(first, { request: body });
    for (const again of [twin, replay, restamped]) {
      const next = expectStatusRefusal(again, { httpStatus: first.status, request: body });
      assert.equal(next.code, refusal.code, 'the same body was refused with a different code');
      assert.equal(
        next.message,
        refusal.message,
        'the same body was refused with a different message',
      );
    }
    return;
  }

  const activity = activityOf(first, 'first submission');
  assert.equal(
    activity.fingerprint,
    fingerprintOf(body),
    `fingerprint is not sha256 of the raw body\n  body: ${body}`,
  );
  assert.equal(activity.type, request.type);
  assert.equal(activity.organizationId, client.organizationId);
  if (c.kind === 'sign-unknown-signer') {
    assert.equal(
      activity.status,
      'ACTIVITY_STATUS_FAILED',
      'signing with an unknown signer must fail',
    );
    assert.ok(activity.failure, 'a FAILED activity carries `failure`');
  }
  for (const [name, response] of [
    ['a concurrent copy of the body', twin],
    ['the same body and stamp', replay],
    ['the same body with a fresh stamp', restamped],
  ] as const) {
    const again = activityOf(response, name);
    assert.equal(again.id, activity.id, `${name} gave another activity\n  body: ${body}`);
    assert.equal(again.fingerprint, activity.fingerprint, `${name}: fingerprint changed`);
    assert.equal(again.type, activity.type, `${name}: type changed`);
    if (TERMINAL.has(activity.status))
      assert.equal(again.status, activity.status, `${name}: status changed`);
  }

  if (c.kind === 'create-private-key') {
    // The replays did not create the key again.
    const name = (request.parameters.privateKeys as { privateKeyName: string }[])[0]!
      .privateKeyName;
    const { privateKeys } = await client.query('list_private_keys');
    const named = (privateKeys as { privateKeyName?: string }[]).filter(
      (k) => k.privateKeyName === name,
    );
    assert.equal(
      named.length,
      1,
      `replaying one body created ${named.length} private keys named ${name}`,
    );
    return; // a new body would create a second key with the same name: not what this checks
  }

  const variants = [
    [
      'the same parameters with a new timestampMs',
      JSON.stringify(client.envelope(request.type, request.parameters)),
    ],
    ['the same JSON with other whitespace', JSON.stringify(envelope, null, 1)],
  ] as const;
  for (const [name, other] of variants) {
    const different = activityOf(await client.postStamped(path, other), name);
    assert.equal(
      different.fingerprint,
      fingerprintOf(other),
      `${name}: fingerprint is not sha256 of the raw body`,
    );
    assert.notEqual(different.id, activity.id, `${name} returned the earlier activity`);
  }
}

export const sameBodySameActivity: ConformanceProperty = {
  name: 'same-body-same-activity',
  description:
    'the fingerprint is "sha256:" + hex(sha256(raw body)); the same body (racing copies, same or fresh ' +
    'stamp) is the same activity, executed once; a new timestampMs or other bytes make a new activity',
  async run(target: ConformanceTarget, options) {
    const client = new ConformanceClient(target);
    const pool = new SignerPool(client);
    await fc.assert(
      fc.asyncProperty(caseArb, (c) => check(client, pool, c)),
      fcParameters(options),
    );
  },
};
