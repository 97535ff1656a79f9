/**
 * The first steps of every stamped request: read and verify the stamp over the raw bytes,
 * then parse the body as a JSON object whose text carries nothing the parse discards
 * (raw-body-bounds). Nothing is parsed before an API key's signature holds. A passkey's
 * public key is in the Store, under the organization the body names, so for a passkey stamp
 * only its challenge (the body's digest) is checked here, and the assertion itself when the
 * principal is found (`principal.ts`).
 * @module
 */
import { isUuid, KeyholdError } from '@keyhold/protocol';
import type { SignatureVerifier } from './ports/signature-verifier.js';
import { checkRawBodyBounds } from './raw-body-bounds.js';
import { parseStamp, type Stamp, verifyStamp } from './stamp.js';
import { checkWebauthnChallenge } from './webauthn-stamp.js';

/** A request as the HTTP adapter hands it over: its headers and the raw body bytes, unparsed. */
export interface IncomingRequest {
  headers: Readonly<Record<string, string | undefined>>;
  rawBody: Uint8Array;
}

/** A request whose stamp was read and checked against the raw body, and its parsed body. */
export interface SignedRequest {
  stamp: Stamp;
  body: Record<string, unknown>;
  /** The body as the client signed it (UTF-8). */
  text: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Deepest nesting of objects and arrays a body may have (the body itself is level 1): far
 * beyond what any activity's schema nests, and a bound on every recursive walk of a body
 * (schema validation, the checks here, policy evaluation).
 */
export const MAX_BODY_DEPTH = 64;

export async function readSignedRequest(
  verifier: SignatureVerifier,
  request: IncomingRequest,
): Promise<SignedRequest> {
  const stamp = parseStamp(request.headers);
  if (stamp.kind === 'webauthn') checkWebauthnChallenge(stamp, request.rawBody);
  else
    await verifyStamp(verifier, stamp.kind === 'attested' ? stamp.signed : stamp, request.rawBody);
  return { stamp, ...parseRequestBody(request.rawBody) };
}

/**
 * The body of an authenticated request, parsed: a JSON object within the nesting and text
 * bounds, whose strings every Store can keep. Call it only once the request is authenticated
 * (a verified stamp, a verified session).
 * @throws KeyholdError REQUEST_INVALID
 */
export function parseRequestBody(rawBody: Uint8Array): {
  body: Record<string, unknown>;
  text: string;
} {
  let text: string;
  let body: unknown;
  try {
    text = decoder.decode(rawBody);
    body = JSON.parse(text);
  } catch {
    throw new KeyholdError('REQUEST_INVALID', { reason: 'body is not UTF-8 JSON' });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new KeyholdError('REQUEST_INVALID', { reason: 'body is not a JSON object' });
  }
  if (nestedDeeperThan(body, MAX_BODY_DEPTH)) {
    throw new KeyholdError('REQUEST_INVALID', {
      reason: `JSON nested too deep: at most ${MAX_BODY_DEPTH} levels of objects and arrays`,
    });
  }
  checkRawBodyBounds(text);
  if (!storableText(body)) {
    throw new KeyholdError('REQUEST_INVALID', {
      reason: 'strings must be well-formed Unicode without U+0000',
    });
  }
  return { body: body as Record<string, unknown>, text };
}

/**
 * The target organization id, lower-cased.
 * @throws KeyholdError INVALID_ORGANIZATION_ID
 */
export function organizationIdOf(body: Record<string, unknown>): string {
  const id = body.organizationId;
  if (!isUuid(id)) throw new KeyholdError('INVALID_ORGANIZATION_ID');
  return id.toLowerCase();
}

/** True when objects and arrays nest deeper than `max` levels; stops walking at `max + 1`. */
function nestedDeeperThan(value: unknown, max: number, level = 1): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (level > max) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  return children.some((child) => nestedDeeperThan(child, max, level + 1));
}

/**
 * True when every string (and key) in a parsed body is well-formed Unicode without NUL: a
 * lone surrogate or U+0000 (legal JSON escapes) cannot be stored by every Store, so it is
 * refused up front rather than failing, or being altered, in a database. Called on a body
 * {@link nestedDeeperThan} passed, so its recursion is bounded.
 */
function storableText(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed() && !value.includes('\u0000');
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) return value.every((v) => storableText(v));
  return Object.entries(value).every(([k, v]) => storableText(k) && storableText(v));
}
