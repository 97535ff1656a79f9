/**
 * The Koa adapter: middleware that hands each of Keyhold's requests, with its raw body bytes,
 * to a RequestHandler and writes the response back unchanged, and passes every other request
 * on to the host's own middleware. It never parses JSON, so stamps are verified over exactly
 * the bytes the client signed.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { bodyLeftUnread, readRawBody } from '@keyhold/http-body';
import {
  internalStatus,
  isKeyholdError,
  type KeyholdError,
  MAX_REQUEST_BODY_BYTES,
  type RawResponse,
  type RequestHandler,
} from '@keyhold/protocol';
import type { Context, Middleware } from 'koa';
import { isKeyholdPath } from './keyhold-paths.js';

/**
 * How the middleware sits in the host's app.
 * @example
 * createKeyholdMiddleware(keyhold, { prefix: '/keyhold', maxBodyBytes: 256 * 1024 });
 */
export interface KeyholdMiddlewareOptions {
  /** Largest accepted body in bytes (after Content-Encoding is decoded). Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Where Keyhold lives in the host's URL space, e.g. `/keyhold` (clients then use
   * `http://host/keyhold` as their base URL). Requests outside it always go to `next()`.
   * Default: the root.
   */
  prefix?: string;
  /**
   * Under the prefix, pass paths that are not Keyhold's (see `isKeyholdPath`) to `next()`.
   * Default true. `false` answers every request under the prefix, unknown paths with
   * Keyhold's 404 Status body — what the Express router does, and what
   * `keyhold serve --http koa` uses.
   */
  fallThrough?: boolean;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function refusal(error: KeyholdError): RawResponse {
  return {
    status: error.httpStatus,
    headers: { ...JSON_HEADERS },
    body: JSON.stringify(error.toStatus()),
  };
}

/** `''` for the root, otherwise `/segment…` without a trailing slash. */
function normalizePrefix(prefix = ''): string {
  const trimmed = prefix.replace(/\/+$/, '');
  if (trimmed !== '' && !trimmed.startsWith('/'))
    throw new TypeError(`prefix must start with "/", got "${prefix}"`);
  return trimmed;
}

/** The path relative to the prefix, or undefined when the request is outside it. */
function pathUnder(prefix: string, path: string): string | undefined {
  if (prefix === '') return path;
  if (path === prefix) return '/';
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
}

function headersOf(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function write(ctx: Context, response: RawResponse): void {
  ctx.status = response.status;
  ctx.set(response.headers);
  ctx.body = response.body;
  // Koa types a string body as text/plain when no type is set; Express adds none, nor do we.
  if (!Object.keys(response.headers).some((name) => name.toLowerCase() === 'content-type'))
    ctx.remove('Content-Type');
}

/**
 * Koa middleware serving Keyhold's routes: the public API (`/public/v1/submit/*`,
 * `/public/v1/query/*`), `/health`, `/ready`, and CORS preflights on them. It reads the raw
 * body itself, so mount it before any body parser. Every outcome, including a fault in the
 * handler, is a Status body: a fault is a 500 "internal server error (<id>)" and is emitted
 * as the app's `error` event for the host's logs.
 * @example
 * import Koa from 'koa';
 * import { createKeyholdMiddleware } from '@keyhold/http-koa';
 * import { createKeyhold } from '@keyhold/server';
 *
 * const app = new Koa();
 * app.use(createKeyholdMiddleware(createKeyhold(), { prefix: '/keyhold' }));
 * app.use((ctx) => { ctx.body = { hello: 'world' }; }); // the host's own routes
 * app.listen(8080);
 */
export function createKeyholdMiddleware(
  handler: RequestHandler,
  options: KeyholdMiddlewareOptions = {},
): Middleware {
  const prefix = normalizePrefix(options.prefix);
  const limit = options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES;
  const fallThrough = options.fallThrough ?? true;

  return async function keyholdMiddleware(ctx, next) {
    const path = pathUnder(prefix, ctx.path);
    if (path === undefined || (fallThrough && !isKeyholdPath(path))) return next();

    let response: RawResponse;
    try {
      const { req } = ctx;
      const rawBody = await readRawBody(req, limit);
      response = await handler.handle({
        method: ctx.method,
        path,
        headers: headersOf(req),
        rawBody,
        // The socket's peer; X-Forwarded-For only when the host set `app.proxy = true` (as
        // Express's req.ip follows its 'trust proxy' setting). Koa gives '' for a gone socket.
        remoteAddress: ctx.ip || undefined,
      });
      if (!Number.isInteger(response.status) || response.status < 100 || response.status > 999)
        throw new Error(`the handler answered with HTTP status ${String(response.status)}`);
    } catch (error) {
      if (isKeyholdError(error)) {
        response = refusal(error);
      } else {
        const errorId = randomUUID();
        ctx.state.keyholdErrorId = errorId;
        ctx.app.emit('error', error instanceof Error ? error : new Error(String(error)), ctx);
        response = {
          status: 500,
          headers: { ...JSON_HEADERS },
          body: JSON.stringify(internalStatus(errorId)),
        };
      }
    }
    write(ctx, response);
    // A refused body's rest is never read off: the connection ends with this response.
    if (bodyLeftUnread(ctx.req)) ctx.set('Connection', 'close');
  };
}
