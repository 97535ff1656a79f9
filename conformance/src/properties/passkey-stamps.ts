/**
 * passkey-stamps: an `X-Stamp-Webauthn` assertion (wire-compat §1.2) authenticates exactly the
 * body whose digest it signed, once. The suite registers a software passkey (ES256, origin
 * `http://localhost`, rpId `localhost`) on the target's root user with CREATE_AUTHENTICATORS_V2,
 * then: a fresh assertion over a body is accepted (whoami answers the root user; CREATE_WALLET
 * completes); changing any byte of the body, the authenticatorData, the clientDataJSON or the
 * signature, replaying an accepted assertion, or naming a credential the organization does not
 * hold is HTTP 401 with a Status body (code 16) and the catalogue's message, and nothing is
 * stored. The passkey is deleted afterwards (DELETE_AUTHENTICATORS). The target's organization
 * must not restrict passkeys to other origins.
 * @module
 */
import assert from 'node:assert/strict';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { ConformanceClient, parseJson, QUERY_PREFIX, SUBMIT_PREFIX } from '../client.js';
import {
  SoftwarePasskey,
  stampChallengeOf,
  WEBAUTHN_STAMP_HEADER,
  type WebauthnAssertion,
} from '../passkey/software-passkey.js';
import { type ConformanceProperty, fcParameters } from '../property.js';
import { expectStatusRefusal } from '../status-body.js';
import type { ConformanceTarget } from '../target.js';
import { uniqueName } from './signatures-verify.js';

/** The catalogue's message for a passkey stamp that does not verify. */
export const WEBAUTHN_SIGNATURE_INVALID_MESSAGE = 'could not verify WebAuthN signature';
/** The catalogue's message for a passkey stamp whose credential the organization does not hold. */
export const WEBAUTHN_AUTHENTICATOR_NOT_FOUND_MESSAGE =
  'webauthn authenticator not found in organization or parent organization';
const MALFORMED_STAMP_MESSAGE = 'malformed activity stamp';

type BodyKind = 'whoami' | 'create-wallet';
type Member = 'authenticatorData' | 'clientDataJson' | 'signature';

type Case =
  | { kind: 'valid' }
  | { kind: 'body-byte'; at: number; mask: number }
  | { kind: 'assertion-byte'; member: Member; at: number; mask: number }
  | { kind: 'replay' }
  | { kind: 'unknown-credential' };

const at = fc.nat({ max: 10_000 });
const mask = fc.integer({ min: 1, max: 255 });

const caseArb: fc.Arbitrary<Case> = fc.oneof(
  fc.record({ kind: fc.constant('valid' as const) }),
  fc.record({ kind: fc.constant('body-byte' as const), at, mask }),
  fc.record({
    kind: fc.constant('assertion-byte' as const),
    member: fc.constantFrom<Member>('authenticatorData', 'clientDataJson', 'signature'),
    at,
    mask,
  }),
  fc.record({ kind: fc.constant('replay' as const) }),
  fc.record({ kind: fc.constant('unknown-credential' as const) }),
);

const ORIGIN = 'http://localhost';
const RP_ID = 'localhost';
const encoder = new TextEncoder();

/** base64url with one byte of the decoded value changed. */
function flipByte(value: string, at: number, mask: number): string {
  const bytes = Buffer.from(value, 'base64url');
  bytes[at % bytes.length]! ^= mask;
  return bytes.toString('base64url');
}

function bodyFor(client: ConformanceClient, kind: BodyKind): { path: string; text: string } {
  if (kind === 'whoami') {
    return {
      path: `${QUERY_PREFIX}whoami`,
      text: JSON.stringify({ organizationId: client.organizationId }),
    };
  }
  return {
    path: `${SUBMIT_PREFIX}create_wallet`,
    text: JSON.stringify(
      client.envelope('ACTIVITY_TYPE_CREATE_WALLET', {
        walletName: uniqueName('conformance-passkey'),
        accounts: [],
      }),
    ),
  };
}

const header = (assertion: WebauthnAssertion) => ({
  [WEBAUTHN_STAMP_HEADER]: JSON.stringify(assertion),
});

/** The passkey-stamps property (see the module comment). */
export const passkeyStamps: ConformanceProperty = {
  name: 'passkey-stamps',
  description:
    'a passkey assertion over the exact body is accepted once; changing any byte of the body, ' +
    'authenticatorData, clientDataJSON or signature, replaying it, or an unknown credential gives ' +
    'HTTP 401 with a Status body and the catalogue message, and stores nothing',
  async run(target: ConformanceTarget, options) {
    const client = new ConformanceClient(target);
    const { userId } = (await client.query('whoami')) as { userId: string };
    const passkey = new SoftwarePasskey({ rpId: RP_ID, origin: ORIGIN });
    const { authenticatorIds } = (await client.execute(
      'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2',
      'create_authenticators',
      { userId, authenticators: [passkey.register(uniqueName('conformance-passkey'))] },
      'createAuthenticatorsResult',
    )) as { authenticatorIds: string[] };
    const refusedFingerprints = new Set<string>();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<BodyKind>('whoami', 'create-wallet'),
          caseArb,
          async (kind, c) => {
            const { path, text } = bodyFor(client, kind);
            let body = encoder.encode(text);
            let assertion = passkey.assert(stampChallengeOf(text));
            if (c.kind === 'valid' || c.kind === 'replay') {
              const response = await client.post(path, body, header(assertion));
              const answer = parseJson(response.body) as
                | { userId?: string; activity?: { status?: string } }
                | undefined;
              assert.equal(response.status, 200, `a valid passkey stamp: ${response.body}`);
              if (kind === 'whoami') assert.equal(answer?.userId, userId);
              else assert.equal(answer?.activity?.status, 'ACTIVITY_STATUS_COMPLETED');
              if (c.kind === 'valid') return;
            } else if (c.kind === 'body-byte') {
              body = body.slice();
              body[c.at % body.length]! ^= c.mask;
            } else if (c.kind === 'assertion-byte') {
              assertion = { ...assertion, [c.member]: flipByte(assertion[c.member], c.at, c.mask) };
            } else {
              assertion = new SoftwarePasskey({ rpId: RP_ID, origin: ORIGIN }).assert(
                stampChallengeOf(text),
              );
            }
            if (c.kind !== 'replay' && path.startsWith(SUBMIT_PREFIX)) {
              refusedFingerprints.add(`sha256:${bytesToHex(sha256(body))}`);
            }
            const response = await client.post(path, body, header(assertion));
            const request = `${path} ${JSON.stringify(c)}`;
            const status = expectStatusRefusal(response, { httpStatus: 401, request });
            assert.equal(status.code, 16, `a 401 carries code 16 (UNAUTHENTICATED); ${request}`);
            const expected =
              c.kind === 'unknown-credential'
                ? [WEBAUTHN_AUTHENTICATOR_NOT_FOUND_MESSAGE]
                : c.kind === 'assertion-byte' && c.member === 'clientDataJson'
                  ? // A changed byte may leave clientDataJSON no longer JSON: a malformed stamp.
                    [WEBAUTHN_SIGNATURE_INVALID_MESSAGE, MALFORMED_STAMP_MESSAGE]
                  : [WEBAUTHN_SIGNATURE_INVALID_MESSAGE];
            assert.ok(
              expected.includes(status.message),
              `expected ${expected.join(' or ')}, got ${status.message}; ${request}`,
            );
          },
        ),
        fcParameters(options),
      );
    } finally {
      await client.execute(
        'ACTIVITY_TYPE_DELETE_AUTHENTICATORS',
        'delete_authenticators',
        { userId, authenticatorIds },
        'deleteAuthenticatorsResult',
      );
    }
    const { activities } = await client.query('list_activities', {
      paginationOptions: { limit: '100' },
    });
    for (const activity of activities as { id: string; fingerprint: string }[]) {
      assert.ok(
        !refusedFingerprints.has(activity.fingerprint),
        `a refused passkey-stamped request was stored as activity ${activity.id}`,
      );
    }
  },
};
