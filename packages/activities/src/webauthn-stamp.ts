/**
 * The passkey stamp (`X-Stamp-Webauthn`): plain JSON `{authenticatorData, clientDataJson,
 * credentialId, signature}`, each a base64url string from the assertion's webauthn-json
 * `toJSON()` (wire-compat §1.2). `@turnkey/webauthn-stamper` passes the ASCII bytes of
 * hex(sha256(body)) to `navigator.credentials.get` as the challenge, so clientDataJSON's
 * `challenge` is base64url of those 64 bytes.
 *
 * Parsing and the challenge check need nothing but the request; the assertion's signature
 * needs the credential's public key, which lives in the Store, so it is verified when the
 * principal is found (`verifyWebauthnAssertion`), by `@simplewebauthn/server`: the type
 * `webauthn.get`, user presence, the rpId hash, the origin, the COSE key (ES256, RS256, EdDSA)
 * and the signature counter.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { DER } from '@noble/curves/abstract/weierstrass.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { relyingPartyIdsOf, requireAllowedOrigin } from './webauthn-origins.js';

/** A parsed passkey stamp. Binary members are base64url without padding. */
export interface WebauthnStamp {
  kind: 'webauthn';
  credentialId: string;
  authenticatorData: string;
  clientDataJson: string;
  signature: string;
  /** The members of clientDataJSON the checks read. */
  clientData: { type: string; challenge: string; origin: string };
  /** The header as the client sent it: a vote keeps it, so the vote can be verified again. */
  header: string;
}

/**
 * The `scheme` of a vote stamped by a passkey. The wire leaves `v1Vote.scheme` a free string;
 * this one is Keyhold's.
 */
export const WEBAUTHN_VOTE_SCHEME = 'SIGNATURE_SCHEME_WEBAUTHN';

/** Real headers are well under 2 KiB; refuse anything absurd before parsing it. */
const MAX_WEBAUTHN_STAMP_LENGTH = 16384;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const malformed = (reason: string) => new KeyholdError('MALFORMED_STAMP', { reason });

/** base64url (padding and standard-alphabet base64 tolerated) → base64url without padding. */
function canonicalBase64url(value: unknown, member: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw malformed(`${member} is not a base64url string`);
  }
  const trimmed = value.replace(/=+$/, '');
  if (BASE64URL.test(trimmed)) return trimmed;
  if (BASE64.test(value)) return trimmed.replace(/\+/g, '-').replace(/\//g, '_');
  throw malformed(`${member} is not a base64url string`);
}

/**
 * Reads an `X-Stamp-Webauthn` header: plain JSON (as every published stamper sends it), or
 * the same JSON in base64url.
 * @throws KeyholdError MALFORMED_STAMP
 */
export function parseWebauthnStamp(header: string): WebauthnStamp {
  if (header.length > MAX_WEBAUTHN_STAMP_LENGTH) throw malformed('X-Stamp-Webauthn is too long');
  let parsed: unknown;
  try {
    const text = header.trimStart().startsWith('{')
      ? header
      : Buffer.from(header, 'base64url').toString('utf8');
    parsed = JSON.parse(text);
  } catch {
    throw malformed('X-Stamp-Webauthn is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw malformed('X-Stamp-Webauthn is not a JSON object');
  }
  const fields = parsed as Record<string, unknown>;
  const clientDataJson = canonicalBase64url(fields.clientDataJson, 'clientDataJson');
  return {
    kind: 'webauthn',
    credentialId: canonicalBase64url(fields.credentialId, 'credentialId'),
    authenticatorData: canonicalBase64url(fields.authenticatorData, 'authenticatorData'),
    clientDataJson,
    signature: canonicalBase64url(fields.signature, 'signature'),
    clientData: parseClientData(clientDataJson),
    header,
  };
}

function parseClientData(clientDataJson: string): WebauthnStamp['clientData'] {
  let data: unknown;
  try {
    data = JSON.parse(
      new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(clientDataJson, 'base64url')),
    );
  } catch {
    throw malformed('clientDataJson is not base64url JSON');
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw malformed('clientDataJson is not a JSON object');
  }
  const { type, challenge, origin } = data as Record<string, unknown>;
  if (typeof type !== 'string' || typeof challenge !== 'string' || typeof origin !== 'string') {
    throw malformed('clientDataJson lacks type, challenge or origin');
  }
  return { type, challenge, origin };
}

/** The challenge `@turnkey/webauthn-stamper` signs for a body: ASCII of hex(sha256(body)). */
export function webauthnChallengeOf(rawBody: Uint8Array): Uint8Array {
  return utf8ToBytes(bytesToHex(sha256(rawBody)));
}

/**
 * The assertion was made over this body: its challenge is the body's, and it is an
 * assertion (`webauthn.get`), not a registration.
 * @throws KeyholdError WEBAUTHN_SIGNATURE_INVALID
 */
export function checkWebauthnChallenge(stamp: WebauthnStamp, rawBody: Uint8Array): void {
  if (stamp.clientData.type !== 'webauthn.get') {
    throw new KeyholdError('WEBAUTHN_SIGNATURE_INVALID', {
      reason: 'clientDataJSON type is not webauthn.get',
    });
  }
  const expected = Buffer.from(webauthnChallengeOf(rawBody)).toString('base64url');
  if (stamp.clientData.challenge.replace(/=+$/, '') !== expected) {
    throw new KeyholdError('WEBAUTHN_SIGNATURE_INVALID', {
      reason: 'the challenge is not hex(sha256(body))',
    });
  }
}

/** What an assertion is checked against: the stored passkey and the organization's origins. */
export interface AssertionExpectations {
  /** The COSE public key, base64url. */
  publicKey: string;
  credentialId: string;
  /** The signature counter stored for the passkey. */
  signCount: number;
  /** The organization's allowed origins; empty: any origin. */
  allowedOrigins: readonly string[];
}

/**
 * Verifies a passkey stamp whose challenge `checkWebauthnChallenge` accepted: the origin (in
 * the allowed list when there is one), the rpId hash (the origin's host or a registrable
 * parent of it), user presence, the signature with the stored COSE key, and a signature
 * counter above the stored one when the authenticator counts.
 * @returns the assertion's signature counter
 * @throws KeyholdError WEBAUTHN_SIGNATURE_INVALID
 */
export async function verifyWebauthnAssertion(
  stamp: WebauthnStamp,
  expected: AssertionExpectations,
): Promise<number> {
  const { origin } = stamp.clientData;
  requireAllowedOrigin(origin, expected.allowedOrigins, 'WEBAUTHN_SIGNATURE_INVALID');
  const rpIds = relyingPartyIdsOf(origin, expected.allowedOrigins);
  if (rpIds.length === 0) {
    throw new KeyholdError('WEBAUTHN_SIGNATURE_INVALID', {
      reason: 'the origin names no host a passkey can belong to',
    });
  }
  let verified = false;
  let signCount = 0;
  // Loaded on first use (see webauthn-attestation.ts).
  const { verifyAuthenticationResponse } = await import('@simplewebauthn/server');
  const { decodeCredentialPublicKey, cose } = await import('@simplewebauthn/server/helpers');
  const publicKey = new Uint8Array(Buffer.from(expected.publicKey, 'base64url'));
  // An EC2 (ES256) signature is DER; the library's parser takes a SEQUENCE whose length byte
  // was changed (trailing bytes ignored), so one signature would have many spellings. Only
  // the one strict DER encoding of (r, s) is accepted.
  if (decodeCredentialPublicKey(publicKey).get(cose.COSEKEYS.kty) === cose.COSEKTY.EC2) {
    requireStrictDer(Buffer.from(stamp.signature, 'base64url'));
  }
  try {
    const result = await verifyAuthenticationResponse({
      response: {
        id: stamp.credentialId,
        rawId: stamp.credentialId,
        type: 'public-key',
        response: {
          authenticatorData: stamp.authenticatorData,
          clientDataJSON: stamp.clientDataJson,
          signature: stamp.signature,
        },
        clientExtensionResults: {},
      },
      // Checked by checkWebauthnChallenge against the raw body.
      expectedChallenge: () => true,
      expectedOrigin: origin,
      expectedRPID: rpIds,
      expectedType: 'webauthn.get',
      credential: {
        id: expected.credentialId,
        publicKey,
        counter: expected.signCount,
      },
      // The stampers ask for "preferred" user verification: presence is what is required.
      requireUserVerification: false,
    });
    verified = result.verified;
    signCount = result.authenticationInfo.newCounter;
  } catch (error) {
    throw new KeyholdError('WEBAUTHN_SIGNATURE_INVALID', {
      reason: error instanceof Error ? error.message : 'assertion does not verify',
    });
  }
  if (!verified) {
    throw new KeyholdError('WEBAUTHN_SIGNATURE_INVALID', {
      reason: 'the signature does not verify',
    });
  }
  return signCount;
}

/** Refuses an ECDSA signature that is not the strict DER encoding of its (r, s). */
function requireStrictDer(signature: Uint8Array): void {
  let canonical = false;
  try {
    canonical = DER.hexFromSig(DER.toSig(signature)) === bytesToHex(signature);
  } catch {
    canonical = false;
  }
  if (!canonical) {
    throw new KeyholdError('WEBAUTHN_SIGNATURE_INVALID', {
      reason: 'the signature is not strict DER',
    });
  }
}
