/**
 * The port between HTTP adapters and the server. Adapters hand raw bytes in and write the
 * response out; they never parse bodies or know about Keyhold's internals, so every arrow
 * points inward (adapter → protocol ← server).
 * @module
 */

/** A request as an HTTP adapter received it. Header names are lower-case. */
export interface RawRequest {
  method: string;
  /** The path without the query string, e.g. `/public/v1/submit/create_wallet`. */
  path: string;
  headers: Readonly<Record<string, string | undefined>>;
  /** The exact body bytes: stamps are verified over these, never a re-serialization. */
  rawBody: Uint8Array;
  /**
   * The client's address, for per-IP rate limits: the socket's peer unless the adapter was
   * told to trust a proxy's `X-Forwarded-For` (never by default — a client can write that
   * header). Absent for in-process calls: they have no IP scope.
   */
  remoteAddress?: string | undefined;
}

/** The response an adapter writes back unchanged. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Implemented by the server's `handle()`; consumed by HTTP adapters. */
export interface RequestHandler {
  handle(request: RawRequest): Promise<RawResponse>;
}

/** Largest request body accepted, in bytes. Adapters refuse larger bodies before buffering. */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;
