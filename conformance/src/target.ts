/**
 * What the suite runs against: a `ConformanceTarget` is one implementation of the public API
 * plus the API key of a root user of one of its organizations. `httpTarget` reaches any
 * implementation over HTTP (what vendors use); `handlerTarget` calls a transport-agnostic
 * `handle()` in this process, with no HTTP in between (what Keyhold's own tests use).
 * @module
 */
import type { RequestHandler } from '@keyhold/protocol';
import { p256 } from '@noble/curves/nist.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

/** A response as the suite sees it. Header names are lower-case. */
export interface TargetResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One implementation under test and the credentials the suite acts with. */
export interface ConformanceTarget {
  /** Shown in reports, e.g. `http://127.0.0.1:8080`. */
  readonly name: string;
  /** An organization whose root quorum is the API key below alone (threshold 1). */
  readonly organizationId: string;
  /** Compressed P-256 public key, hex (66 characters). */
  readonly apiPublicKey: string;
  /** The 32-byte P-256 private key, hex. */
  readonly apiPrivateKey: string;
  /**
   * POSTs exactly these body bytes (a string is sent as its UTF-8 bytes) to `path`, e.g.
   * `/public/v1/submit/create_wallet`, with these headers. Never throws for an HTTP status.
   */
  post(
    path: string,
    body: string | Uint8Array,
    headers: Record<string, string>,
  ): Promise<TargetResponse>;
}

export interface HttpTargetOptions {
  /** e.g. `http://127.0.0.1:8080`; a trailing slash is ignored. */
  baseUrl: string;
  organizationId: string;
  apiPrivateKey: string;
  /** Derived from the private key when omitted. */
  apiPublicKey?: string;
  name?: string;
}

export interface HandlerTargetOptions {
  /** Anything with Keyhold's transport-agnostic `handle()` (the `RequestHandler` port). */
  handler: RequestHandler;
  organizationId: string;
  apiPrivateKey: string;
  /** Derived from the private key when omitted. */
  apiPublicKey?: string;
  name?: string;
}

const encoder = new TextEncoder();

/** The compressed P-256 public key (hex) of a private key (hex). */
export function apiPublicKeyOf(apiPrivateKey: string): string {
  return bytesToHex(p256.getPublicKey(hexToBytes(apiPrivateKey), true));
}

function bytesOf(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? encoder.encode(body) : body;
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/**
 * A target reached over HTTP with the global `fetch`.
 * @example
 * const target = httpTarget({ baseUrl: 'http://127.0.0.1:8080', organizationId, apiPrivateKey });
 */
export function httpTarget(options: HttpTargetOptions): ConformanceTarget {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  return {
    name: options.name ?? baseUrl,
    organizationId: options.organizationId,
    apiPrivateKey: options.apiPrivateKey,
    apiPublicKey: options.apiPublicKey ?? apiPublicKeyOf(options.apiPrivateKey),
    async post(path, body, headers) {
      const response = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...lowerCaseKeys(headers) },
        // A copy backed by a plain ArrayBuffer, as `BodyInit` wants.
        body: new Uint8Array(bytesOf(body)),
      });
      const responseHeaders: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        responseHeaders[name.toLowerCase()] = value;
      });
      return { status: response.status, headers: responseHeaders, body: await response.text() };
    },
  };
}

/**
 * A target in this process: requests go straight to `handler.handle()`, no HTTP.
 * @example
 * const target = handlerTarget({ handler: keyhold, organizationId, apiPrivateKey, apiPublicKey });
 */
export function handlerTarget(options: HandlerTargetOptions): ConformanceTarget {
  const { handler } = options;
  return {
    name: options.name ?? 'in-process handler',
    organizationId: options.organizationId,
    apiPrivateKey: options.apiPrivateKey,
    apiPublicKey: options.apiPublicKey ?? apiPublicKeyOf(options.apiPrivateKey),
    async post(path, body, headers) {
      const response = await handler.handle({
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', ...lowerCaseKeys(headers) },
        rawBody: bytesOf(body),
      });
      return {
        status: response.status,
        headers: lowerCaseKeys(response.headers),
        body: response.body,
      };
    },
  };
}
