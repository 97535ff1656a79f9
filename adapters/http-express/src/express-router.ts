/**
 * The Express adapter: a Router that hands every request's raw bytes to a RequestHandler
 * and writes its response back unchanged. It never parses JSON, so stamps are verified
 * over exactly the bytes the client signed. A body over the limit is refused as soon as that
 * is known, and the connection closes with the refusal rather than reading off the rest.
 * @module
 */

import { bodyLeftUnread, readRawBody } from '@keyhold/http-body';
import {
  KeyholdError,
  MAX_REQUEST_BODY_BYTES,
  type RawResponse,
  type RequestHandler,
} from '@keyhold/protocol';
import express, { type Request, type Response, type Router } from 'express';

export interface KeyholdRouterOptions {
  /**
   * Largest accepted body in bytes (after Content-Encoding is decoded). Default 1 MiB. A larger
   * declared Content-Length is refused before the body is read.
   */
  maxBodyBytes?: number;
}

function headersOf(req: Request): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function send(res: Response, response: RawResponse): void {
  res.status(response.status);
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.end(response.body);
}

function refusal(error: KeyholdError): RawResponse {
  return {
    status: error.httpStatus,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(error.toStatus()),
  };
}

/**
 * An Express Router serving Keyhold. Mount it at the root of an app, or under a prefix.
 * @example
 * const app = express();
 * app.use(createKeyholdRouter(keyhold));
 * app.listen(8080);
 */
export function createKeyholdRouter(
  handler: RequestHandler,
  options: KeyholdRouterOptions = {},
): Router {
  const router = express.Router();
  const limit = options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES;

  router.use((req, res, next) => {
    // A refused body's rest is never read off: the connection ends with the response.
    const reply = (response: RawResponse) => {
      if (bodyLeftUnread(req)) res.setHeader('connection', 'close');
      send(res, response);
    };
    if (req.body !== undefined && !Buffer.isBuffer(req.body)) {
      // Another parser consumed the stream first: the signed bytes are gone.
      reply(
        refusal(
          new KeyholdError('REQUEST_INVALID', {
            reason:
              'the body was parsed before Keyhold saw it; mount the Keyhold router before body parsers',
          }),
        ),
      );
      return;
    }
    // express.raw() mounted before us left the bytes as they came; otherwise read them here.
    const body: Promise<Uint8Array> = Buffer.isBuffer(req.body)
      ? Promise.resolve(req.body)
      : readRawBody(req, limit);
    body.then(
      (rawBody) =>
        handler
          .handle({
            method: req.method,
            path: req.path,
            headers: headersOf(req),
            rawBody,
            remoteAddress: req.ip,
          })
          .then(reply, next),
      (error: KeyholdError) => reply(refusal(error)),
    );
  });

  return router;
}
