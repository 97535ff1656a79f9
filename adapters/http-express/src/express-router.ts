/**
 * The Express adapter: a Router that hands every request's raw bytes to a RequestHandler
 * and writes its response back unchanged. It never parses JSON, so stamps are verified
 * over exactly the bytes the client signed.
 * @module
 */
import {
  KeyholdError,
  MAX_REQUEST_BODY_BYTES,
  type RawResponse,
  type RequestHandler,
} from '@keyhold/protocol';
import express, { type Request, type Response, type Router } from 'express';

export interface KeyholdRouterOptions {
  /** Largest accepted body in bytes. Default 1 MiB. */
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
  const raw = express.raw({
    type: () => true,
    limit: options.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES,
  });

  router.use((req, res, next) => {
    raw(req, res, (error?: unknown) => {
      if (error) {
        const tooLarge = (error as { type?: string }).type === 'entity.too.large';
        send(res, refusal(new KeyholdError(tooLarge ? 'REQUEST_TOO_LARGE' : 'BAD_REQUEST_BODY')));
        return;
      }
      next();
    });
  });

  router.use((req, res, next) => {
    if (req.body !== undefined && !Buffer.isBuffer(req.body)) {
      // Another parser consumed the stream first: the signed bytes are gone.
      send(
        res,
        refusal(
          new KeyholdError('BAD_REQUEST_BODY', {
            reason:
              'the body was parsed before Keyhold saw it; mount the Keyhold router before body parsers',
          }),
        ),
      );
      return;
    }
    const rawBody: Uint8Array = Buffer.isBuffer(req.body) ? req.body : new Uint8Array();
    handler
      .handle({
        method: req.method,
        path: req.path,
        headers: headersOf(req),
        rawBody,
        remoteAddress: req.ip,
      })
      .then((response) => send(res, response), next);
  });

  return router;
}
