/**
 * A tiny stamped client over a target. It stamps with the published `@turnkey/api-key-stamper`
 * (exactly what `@turnkey/http` and `@turnkey/sdk-server` send), so the suite checks an
 * implementation against the real client's stamps rather than against its own code.
 * @module
 */

import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import type { ConformanceTarget, TargetResponse } from './target.js';

/** The header the API-key stamp travels in. */
export const STAMP_HEADER = 'X-Stamp';

export const SUBMIT_PREFIX = '/public/v1/submit/';
export const QUERY_PREFIX = '/public/v1/query/';

/** A request the target answered with something other than what the suite needed. */
export class UnexpectedResponseError extends Error {
  constructor(
    readonly request: { path: string; body: string },
    readonly response: TargetResponse,
    expected: string,
  ) {
    super(
      `${request.path}: expected ${expected}, got HTTP ${response.status} ${truncate(response.body, 600)}\n` +
        `  request body: ${truncate(request.body, 600)}`,
    );
    this.name = 'UnexpectedResponseError';
  }
}

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

/** `JSON.parse`, or `undefined` when the text is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

let lastTimestampMs = 0;

/**
 * `Date.now()` as the decimal string `timestampMs` wants, never the same twice in this
 * process: a call in the same millisecond as the previous one gets the next millisecond, so
 * two bodies that differ only in their timestamp really differ (one body is one activity).
 */
export function freshTimestampMs(): string {
  const now = Date.now();
  lastTimestampMs = now > lastTimestampMs ? now : lastTimestampMs + 1;
  return String(lastTimestampMs);
}

/** An `X-Stamp` value: base64url (no padding) of the stamp's compact JSON. */
export function encodeStamp(stamp: {
  publicKey: string;
  scheme: string;
  signature: string;
}): string {
  return Buffer.from(JSON.stringify(stamp), 'utf8').toString('base64url');
}

/** Decodes an `X-Stamp` value (the inverse of `encodeStamp`). */
export function decodeStamp(value: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/**
 * A P-256 API-key stamp over arbitrary bytes (the published stamper only signs strings, and
 * some bodies the suite sends are not UTF-8): ECDSA P-256 over SHA-256 of the bytes, DER hex.
 */
export function stampBytes(apiPrivateKey: string, body: Uint8Array, apiPublicKey?: string): string {
  const secret = hexToBytes(apiPrivateKey);
  const signature = p256.sign(body, secret, { prehash: true, format: 'der' });
  return encodeStamp({
    publicKey: apiPublicKey ?? bytesToHex(p256.getPublicKey(secret, true)),
    scheme: 'SIGNATURE_SCHEME_TK_API_P256',
    signature: bytesToHex(signature),
  });
}

/** A submitted activity: the exact body, the response and the parsed `activity`. */
export interface Submitted {
  bodyText: string;
  response: TargetResponse;
  // biome-ignore lint/suspicious/noExplicitAny: the suite reads activities as plain JSON.
  activity: any;
}

export class ConformanceClient {
  private readonly stamper: ApiKeyStamper;

  constructor(readonly target: ConformanceTarget) {
    this.stamper = new ApiKeyStamper({
      apiPublicKey: target.apiPublicKey,
      apiPrivateKey: target.apiPrivateKey,
    });
  }

  get organizationId(): string {
    return this.target.organizationId;
  }

  /** The `X-Stamp` header value for `body`, from the published stamper. */
  async stamp(body: string): Promise<string> {
    return (await this.stamper.stamp(body)).stampHeaderValue;
  }

  /** Sends the body with exactly these headers (no stamp added). */
  post(
    path: string,
    body: string | Uint8Array,
    headers: Record<string, string> = {},
  ): Promise<TargetResponse> {
    return this.target.post(path, body, headers);
  }

  /** Stamps the body with the target's API key and sends it. */
  async postStamped(path: string, body: string | Uint8Array): Promise<TargetResponse> {
    const stamp =
      typeof body === 'string'
        ? await this.stamp(body)
        : stampBytes(this.target.apiPrivateKey, body, this.target.apiPublicKey);
    return this.target.post(path, body, { [STAMP_HEADER]: stamp });
  }

  /** An activity request envelope with a fresh `timestampMs`, as the published clients build it. */
  envelope(
    type: string,
    parameters: unknown,
    organizationId = this.organizationId,
  ): Record<string, unknown> {
    return { type, timestampMs: freshTimestampMs(), organizationId, parameters };
  }

  /**
   * Submits an activity to `/public/v1/submit/<path>` and returns it. Throws
   * UnexpectedResponseError unless the answer is HTTP 200 with `{activity}`.
   * @example
   * const { activity } = await client.submit('ACTIVITY_TYPE_CREATE_WALLET', 'create_wallet', {
   *   walletName: 'w', accounts: [],
   * });
   */
  async submit(type: string, path: string, parameters: unknown): Promise<Submitted> {
    return this.submitBody(path, JSON.stringify(this.envelope(type, parameters)));
  }

  /** Submits this exact body text (stamped) and expects HTTP 200 with `{activity}`. */
  async submitBody(path: string, bodyText: string): Promise<Submitted> {
    const fullPath = `${SUBMIT_PREFIX}${path}`;
    const response = await this.postStamped(fullPath, bodyText);
    const parsed = parseJson(response.body) as { activity?: unknown } | undefined;
    if (
      response.status !== 200 ||
      typeof parsed?.activity !== 'object' ||
      parsed.activity === null
    ) {
      throw new UnexpectedResponseError(
        { path: fullPath, body: bodyText },
        response,
        'HTTP 200 {activity}',
      );
    }
    return { bodyText, response, activity: parsed.activity };
  }

  /**
   * Submits an activity and returns `activity.result[resultKey]`; throws unless the activity
   * COMPLETED.
   */
  // biome-ignore lint/suspicious/noExplicitAny: results are plain JSON.
  async execute(type: string, path: string, parameters: unknown, resultKey: string): Promise<any> {
    const submitted = await this.submit(type, path, parameters);
    const { activity } = submitted;
    if (activity.status !== 'ACTIVITY_STATUS_COMPLETED' || !activity.result?.[resultKey]) {
      throw new Error(
        `${type}: expected a COMPLETED activity with result.${resultKey}, got status ${String(activity.status)}` +
          `${activity.failure ? ` failure ${JSON.stringify(activity.failure)}` : ''}\n` +
          `  request body: ${truncate(submitted.bodyText, 600)}`,
      );
    }
    return activity.result[resultKey];
  }

  /**
   * Runs the query `/public/v1/query/<name>` (the body's `organizationId` defaults to the
   * target's) and returns the parsed answer. Throws UnexpectedResponseError unless HTTP 200.
   */
  // biome-ignore lint/suspicious/noExplicitAny: query answers are plain JSON.
  async query(name: string, body: Record<string, unknown> = {}): Promise<any> {
    const path = `${QUERY_PREFIX}${name}`;
    const bodyText = JSON.stringify({ organizationId: this.organizationId, ...body });
    const response = await this.postStamped(path, bodyText);
    const parsed = parseJson(response.body);
    if (response.status !== 200 || typeof parsed !== 'object' || parsed === null) {
      throw new UnexpectedResponseError(
        { path, body: bodyText },
        response,
        'HTTP 200 with a JSON object',
      );
    }
    return parsed;
  }
}
