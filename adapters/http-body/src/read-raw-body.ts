/**
 * Reading a request's body as raw bytes, on `raw-body` (what `express.raw()` reads with): the
 * limit counts decoded bytes, gzip / deflate / br (and zstd where Node has it) are decoded, and
 * an unknown Content-Encoding is refused at once. A body over the limit is refused as soon as
 * that is known — a declared Content-Length before a byte of it is read, a chunked or
 * compressed one at the first chunk past the limit — and the rest is never read: the response
 * then says `Connection: close` (see {@link bodyLeftUnread}), so a client cannot make the server
 * read off an upload it has already refused.
 *
 * Both HTTP adapters read bodies with it, so they refuse alike.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { KeyholdError } from '@keyhold/protocol';
import getRawBody from 'raw-body';

/**
 * True when the request carries a body (type-is's `hasBody`): a Transfer-Encoding, or a
 * numeric Content-Length (`0` included).
 */
function hasBody(req: IncomingMessage): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined ||
    !Number.isNaN(Number(req.headers['content-length']))
  );
}

/** Node ≥ 22.15 has zstd; typed loosely so that this compiles against Node 20's types too. */
const createZstdDecompress = (zlib as unknown as { createZstdDecompress?: () => Transform })
  .createZstdDecompress;

function decoderFor(encoding: string): Transform {
  switch (encoding) {
    case 'deflate':
      return zlib.createInflate();
    case 'gzip':
      return zlib.createGunzip();
    case 'br':
      return zlib.createBrotliDecompress();
    case 'zstd':
      if (createZstdDecompress) return createZstdDecompress();
  }
  // No detail, as `express.raw()` gives none: the two adapters answer byte for byte alike.
  throw new KeyholdError('REQUEST_INVALID');
}

/** The declared length of the body, or null when it is chunked. */
function declaredLength(req: IncomingMessage): number | null {
  if (req.headers['transfer-encoding'] !== undefined) return null;
  const length = Number(req.headers['content-length']);
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

/**
 * True when part of the request's body may still be on the wire, unread: the body was refused
 * (too large, an unknown encoding, corrupt) or not read at all. The response must then say
 * `Connection: close`; otherwise Node would read off the rest, however long, to reach the next
 * request on the connection.
 * @example
 * if (bodyLeftUnread(ctx.req)) ctx.set('Connection', 'close');
 */
export function bodyLeftUnread(req: IncomingMessage): boolean {
  return !req.complete;
}

/**
 * The request's body bytes, decoded from its Content-Encoding; an empty array when the request
 * has no body. Rejects with a KeyholdError: `REQUEST_TOO_LARGE` past `limit` decoded bytes
 * (declared: before reading any), `REQUEST_INVALID` for an unknown encoding, corrupt
 * compressed data, an aborted upload, or a stream that someone else already read. After a
 * rejection the rest of the body is left unread: answer with `Connection: close`.
 * @example
 * const rawBody = await readRawBody(ctx.req, 1024 * 1024);
 */
export async function readRawBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  if (!hasBody(req)) return new Uint8Array();
  // Someone read the stream first (a body parser mounted before Keyhold): the signed bytes are
  // gone, and verifying a re-serialization is exactly what must never happen.
  if (req.readableDidRead || req.readableEnded) {
    throw new KeyholdError('REQUEST_INVALID', {
      reason:
        'the body was read before Keyhold saw it; mount the Keyhold middleware before body parsers',
    });
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  const decoder = encoding === 'identity' ? undefined : decoderFor(encoding);
  // Only an identity body's declared length counts toward the limit (as raw-body's callers do):
  // a compressed one is measured as it inflates.
  const length = decoder ? null : declaredLength(req);
  if (length !== null && length > limit) throw new KeyholdError('REQUEST_TOO_LARGE');
  if (decoder) req.pipe(decoder);
  const stopDecoder = () => {
    if (!decoder) return;
    req.unpipe(decoder);
    decoder.on('error', () => {}); // late decoder errors on a destroyed stream are moot
    decoder.destroy();
  };
  try {
    const body = await new Promise<Uint8Array>((resolve, reject) => {
      // raw-body hears a request's 'aborted' but not the request going away under a decoder,
      // nor a close after the last byte arrived but before it was read: both end here. (A
      // request that ended closes while its decoder may still be inflating: not a failure.)
      const onClose = () => {
        if (!req.readableEnded) reject(new Error('the client went away'));
      };
      req.once('close', onClose);
      // The callback form settles in the same tick as 'end', before any later 'close'.
      getRawBody(decoder ?? req, { length, limit }, (error, bytes) => {
        req.off('close', onClose);
        if (error) reject(error);
        else resolve(bytes);
      });
    });
    stopDecoder();
    return body;
  } catch (error) {
    stopDecoder();
    // Whatever already arrived is in memory: drop it, so that the connection can carry the
    // next request. What has not arrived is never read (see bodyLeftUnread).
    if (req.complete) req.resume();
    const tooLarge = (error as { type?: string }).type === 'entity.too.large';
    throw new KeyholdError(tooLarge ? 'REQUEST_TOO_LARGE' : 'REQUEST_INVALID');
  }
}
