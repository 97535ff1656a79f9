/**
 * The first steps of every stamped request: read and verify the stamp over the raw bytes,
 * then parse the body as a JSON object. Nothing is parsed before the signature holds.
 * @module
 */
import { isUuid, KeyholdError } from '@keyhold/protocol';
import type { SignatureVerifier } from './ports/signature-verifier.js';
import { type ApiKeyStamp, parseStamp, verifyStamp } from './stamp.js';

export interface IncomingRequest {
  headers: Readonly<Record<string, string | undefined>>;
  rawBody: Uint8Array;
}

export interface SignedRequest {
  stamp: ApiKeyStamp;
  body: Record<string, unknown>;
  /** The body as the client signed it (UTF-8). */
  text: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export async function readSignedRequest(
  verifier: SignatureVerifier,
  request: IncomingRequest,
): Promise<SignedRequest> {
  const stamp = parseStamp(request.headers);
  await verifyStamp(verifier, stamp, request.rawBody);
  let text: string;
  let body: unknown;
  try {
    text = decoder.decode(request.rawBody);
    body = JSON.parse(text);
  } catch {
    throw new KeyholdError('BAD_REQUEST_BODY', { reason: 'body is not UTF-8 JSON' });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new KeyholdError('BAD_REQUEST_BODY', { reason: 'body is not a JSON object' });
  }
  return { stamp, body: body as Record<string, unknown>, text };
}

/**
 * The target organization id, lower-cased.
 * @throws KeyholdError MALFORMED_ORGANIZATION_ID
 */
export function organizationIdOf(body: Record<string, unknown>): string {
  const id = body.organizationId;
  if (!isUuid(id)) throw new KeyholdError('MALFORMED_ORGANIZATION_ID');
  return id.toLowerCase();
}
