/**
 * tampered-requests-401: a stamp authenticates exactly the bytes it was made over, by exactly
 * the key it names (wire-compat §1.1). Any change to a stamped body, or to the stamp, is HTTP
 * 401 with a Status body (code 16, UNAUTHENTICATED), and nothing is stored.
 *
 * Body changes: flip, replace, insert or delete one byte (the result need not be JSON or even
 * UTF-8: the signature is checked first, so it is still 401), or append whitespace (the same
 * JSON, other bytes). Stamp changes: a corrupted signature, the signature of another body,
 * another or corrupted public key, a valid stamp by a key the organization does not have,
 * another scheme, garbage, and no stamp at all (401 with the spec's exact message).
 * @module
 */
import assert from 'node:assert/strict';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import {
  ConformanceClient,
  decodeStamp,
  encodeStamp,
  QUERY_PREFIX,
  STAMP_HEADER,
  SUBMIT_PREFIX,
  stampBytes,
} from '../client.js';
import { type ConformanceProperty, fcParameters } from '../property.js';
import { expectStatusRefusal } from '../status-body.js';
import type { ConformanceTarget } from '../target.js';
import { uniqueName } from './signatures-verify.js';

export const STAMP_MISSING_MESSAGE =
  'cannot authenticate public API activity request without a stamp (X-Stamp/X-Stamp-Webauthn header)';

type BodyKind = 'whoami' | 'sign' | 'create-wallet';

type Tamper =
  | { kind: 'flip-byte'; at: number; mask: number }
  | { kind: 'replace-byte'; at: number; byte: number }
  | { kind: 'insert-byte'; at: number; byte: number }
  | { kind: 'delete-byte'; at: number }
  | { kind: 'append-whitespace'; whitespace: string }
  | { kind: 'corrupt-signature'; at: number; mask: number }
  | { kind: 'signature-of-other-body' }
  | { kind: 'other-public-key' }
  | { kind: 'corrupt-public-key'; at: number; mask: number }
  | { kind: 'unknown-key' }
  | { kind: 'other-scheme'; scheme: string }
  | { kind: 'garbage-stamp'; value: string }
  | { kind: 'huge-stamp'; length: number }
  | { kind: 'no-stamp' };

const at = fc.nat({ max: 10_000 });
const mask = fc.integer({ min: 1, max: 255 });
const byte = fc.integer({ min: 0, max: 255 });

const tamperArb: fc.Arbitrary<Tamper> = fc.oneof(
  fc.record({ kind: fc.constant('flip-byte' as const), at, mask }),
  fc.record({ kind: fc.constant('replace-byte' as const), at, byte }),
  fc.record({ kind: fc.constant('insert-byte' as const), at, byte }),
  fc.record({ kind: fc.constant('delete-byte' as const), at }),
  fc.record({
    kind: fc.constant('append-whitespace' as const),
    whitespace: fc.constantFrom(' ', '\n', '\t', '\r\n', '  '),
  }),
  fc.record({
    kind: fc.constant('corrupt-signature' as const),
    at,
    mask: fc.integer({ min: 1, max: 15 }),
  }),
  fc.record({ kind: fc.constant('signature-of-other-body' as const) }),
  fc.record({ kind: fc.constant('other-public-key' as const) }),
  fc.record({
    kind: fc.constant('corrupt-public-key' as const),
    at,
    mask: fc.integer({ min: 1, max: 15 }),
  }),
  fc.record({ kind: fc.constant('unknown-key' as const) }),
  fc.record({
    kind: fc.constant('other-scheme' as const),
    scheme: fc.constantFrom(
      'SIGNATURE_SCHEME_TK_API_SECP256K1',
      'SIGNATURE_SCHEME_TK_API_ED25519',
      'SIGNATURE_SCHEME_UNSPECIFIED',
      'p256',
      '',
    ),
  }),
  fc.record({
    kind: fc.constant('garbage-stamp' as const),
    value: fc.stringMatching(/^[!-~]{1,300}$/),
  }),
  // Below Node's default 16 KiB header limit, past which the HTTP layer answers 431 itself.
  fc.record({
    kind: fc.constant('huge-stamp' as const),
    length: fc.integer({ min: 4_000, max: 8_000 }),
  }),
  fc.record({ kind: fc.constant('no-stamp' as const) }),
);

const encoder = new TextEncoder();

/** Flips bits of the hex digit at `at` (mod length), keeping it a hex digit. */
function corruptHex(hex: string, at: number, mask: number): string {
  const i = at % hex.length;
  const digit = (Number.parseInt(hex[i]!, 16) ^ mask).toString(16);
  return `${hex.slice(0, i)}${digit}${hex.slice(i + 1)}`;
}

interface Sent {
  body: Uint8Array;
  headers: Record<string, string>;
}

async function tampered(client: ConformanceClient, bodyText: string, t: Tamper): Promise<Sent> {
  const body = encoder.encode(bodyText);
  const stamp = await client.stamp(bodyText);
  const withStamp = (value: string, bytes = body): Sent => ({
    body: bytes,
    headers: { [STAMP_HEADER]: value },
  });
  const editedStamp = (edit: (s: Record<string, unknown>) => void): Sent => {
    const decoded = decodeStamp(stamp);
    edit(decoded);
    return withStamp(
      encodeStamp(decoded as { publicKey: string; scheme: string; signature: string }),
    );
  };
  const index = (n: number, length: number) => n % length;
  switch (t.kind) {
    case 'flip-byte': {
      const bytes = body.slice();
      bytes[index(t.at, bytes.length)]! ^= t.mask;
      return withStamp(stamp, bytes);
    }
    case 'replace-byte': {
      const bytes = body.slice();
      const i = index(t.at, bytes.length);
      bytes[i] = bytes[i] === t.byte ? t.byte ^ 1 : t.byte;
      return withStamp(stamp, bytes);
    }
    case 'insert-byte': {
      const i = index(t.at, body.length + 1);
      return withStamp(
        stamp,
        Uint8Array.from([...body.subarray(0, i), t.byte, ...body.subarray(i)]),
      );
    }
    case 'delete-byte': {
      const i = index(t.at, body.length);
      return withStamp(stamp, Uint8Array.from([...body.subarray(0, i), ...body.subarray(i + 1)]));
    }
    case 'append-whitespace':
      return withStamp(stamp, encoder.encode(bodyText + t.whitespace));
    case 'corrupt-signature':
      return editedStamp((s) => {
        s.signature = corruptHex(String(s.signature), t.at, t.mask);
      });
    case 'signature-of-other-body': {
      const other = decodeStamp(await client.stamp(`${bodyText} `));
      return editedStamp((s) => {
        s.signature = other.signature;
      });
    }
    case 'other-public-key':
      return editedStamp((s) => {
        s.publicKey = bytesToHex(p256.getPublicKey(p256.utils.randomSecretKey(), true));
      });
    case 'corrupt-public-key':
      return editedStamp((s) => {
        s.publicKey = corruptHex(String(s.publicKey), t.at, t.mask);
      });
    case 'unknown-key':
      return withStamp(stampBytes(bytesToHex(p256.utils.randomSecretKey()), body));
    case 'other-scheme':
      return editedStamp((s) => {
        s.scheme = t.scheme;
      });
    case 'garbage-stamp':
      return withStamp(t.value);
    case 'huge-stamp':
      return withStamp(`${stamp}${'A'.repeat(t.length)}`);
    case 'no-stamp':
      return { body, headers: {} };
  }
}

function bodyFor(client: ConformanceClient, kind: BodyKind): { path: string; text: string } {
  switch (kind) {
    case 'whoami':
      return {
        path: `${QUERY_PREFIX}whoami`,
        text: JSON.stringify({ organizationId: client.organizationId }),
      };
    case 'sign':
      return {
        path: `${SUBMIT_PREFIX}sign_raw_payload`,
        text: JSON.stringify(
          client.envelope('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', {
            signWith: `0x${'00'.repeat(19)}01`,
            payload: 'conformance',
            encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
            hashFunction: 'HASH_FUNCTION_KECCAK256',
          }),
        ),
      };
    case 'create-wallet':
      return {
        path: `${SUBMIT_PREFIX}create_wallet`,
        text: JSON.stringify(
          client.envelope('ACTIVITY_TYPE_CREATE_WALLET', {
            walletName: uniqueName('conformance-tamper'),
            accounts: [],
          }),
        ),
      };
  }
}

export const tamperedRequests401: ConformanceProperty = {
  name: 'tampered-requests-401',
  description:
    'changing any byte of a stamped body, or the stamp (signature, public key, scheme), or omitting it, ' +
    'gives HTTP 401 with a Status body, and stores nothing',
  async run(target: ConformanceTarget, options) {
    const client = new ConformanceClient(target);
    const submittedFingerprints = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<BodyKind>('whoami', 'sign', 'create-wallet'),
        tamperArb,
        async (kind, tamper) => {
          const { path, text } = bodyFor(client, kind);
          const sent = await tampered(client, text, tamper);
          if (path.startsWith(SUBMIT_PREFIX))
            submittedFingerprints.add(`sha256:${bytesToHex(sha256(sent.body))}`);
          const response = await client.post(path, sent.body, sent.headers);
          const request = `${path} ${tamper.kind}: ${new TextDecoder().decode(sent.body)} ${JSON.stringify(sent.headers)}`;
          const status = expectStatusRefusal(response, {
            httpStatus: 401,
            request,
            ...(tamper.kind === 'no-stamp' ? { message: STAMP_MISSING_MESSAGE } : {}),
          });
          assert.equal(status.code, 16, `a 401 carries code 16 (UNAUTHENTICATED); ${request}`);
        },
      ),
      fcParameters(options),
    );
    // Nothing was stored: no recent activity has the fingerprint of a tampered submission.
    const { activities } = await client.query('list_activities', {
      paginationOptions: { limit: '100' },
    });
    assert.ok(Array.isArray(activities), 'list_activities returned no activities array');
    for (const activity of activities as { id: string; fingerprint: string }[]) {
      assert.ok(
        !submittedFingerprints.has(activity.fingerprint),
        `a refused (tampered) request was stored as activity ${activity.id}`,
      );
    }
  },
};
