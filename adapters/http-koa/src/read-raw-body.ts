/**
 * Reading a request's body as raw bytes, with the same rules as the Express adapter (whose
 * `express.raw()` is body-parser + raw-body): the limit counts decoded bytes, gzip / deflate /
 * br (and zstd where Node has it) are decoded, an unknown Content-Encoding is refused at once,
 * and a body over the limit is read off to the end (discarded, never buffered) before the
 * refusal, so the client can read the 413 instead of seeing its upload cut off.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { finished, type Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { KeyholdError } from '@keyhold/protocol';

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
  // No detail, as the Express adapter gives none: the two answer byte for byte alike.
  throw new KeyholdError('BAD_REQUEST_BODY');
}

/** Reads off and discards what is left of the request, so that the response can be read. */
function drain(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    finished(req, () => resolve());
    req.resume();
  });
}

/**
 * The request's body bytes, decoded from its Content-Encoding; an empty array when the request
 * has no body. Rejects with a KeyholdError: `REQUEST_TOO_LARGE` past `limit` decoded bytes,
 * `BAD_REQUEST_BODY` for an unknown encoding, corrupt compressed data, an aborted upload, or a
 * stream that someone else already read.
 * @example
 * const rawBody = await readRawBody(ctx.req, 1024 * 1024);
 */
export async function readRawBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  if (!hasBody(req)) return new Uint8Array();
  // Someone read the stream first (a body parser mounted before Keyhold): the signed bytes are
  // gone, and verifying a re-serialization is exactly what must never happen.
  if (req.readableDidRead || req.readableEnded) {
    throw new KeyholdError('BAD_REQUEST_BODY', {
      reason:
        'the body was read before Keyhold saw it; mount the Keyhold middleware before body parsers',
    });
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  const identity = encoding === 'identity';
  const decoder = identity ? undefined : decoderFor(encoding);
  const stream: Readable = decoder ?? req;
  // Only an identity body has a declared length worth checking (as raw-body does).
  const declared = identity ? Number(req.headers['content-length']) : Number.NaN;
  if (!Number.isNaN(declared) && declared > limit) {
    await drain(req);
    throw new KeyholdError('REQUEST_TOO_LARGE');
  }
  if (decoder) req.pipe(decoder);

  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;

    const cleanup = () => {
      settled = true;
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      req.off('close', onClose);
      if (decoder) {
        req.unpipe(decoder);
        decoder.on('error', () => {}); // late decoder errors on a destroyed stream are moot
        decoder.destroy();
      }
    };
    const fail = (error: KeyholdError) => {
      if (settled) return;
      cleanup();
      drain(req).then(() => reject(error));
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) fail(new KeyholdError('REQUEST_TOO_LARGE'));
      else chunks.push(chunk);
    };
    const onEnd = () => {
      if (settled) return;
      if (!Number.isNaN(declared) && received !== declared) {
        fail(new KeyholdError('BAD_REQUEST_BODY'));
        return;
      }
      cleanup();
      if (decoder) req.resume(); // the decoder may stop before the request's last bytes
      resolve(Buffer.concat(chunks, received));
    };
    const onError = () => fail(new KeyholdError('BAD_REQUEST_BODY'));
    // The client went away before the body ended ('close' without 'end').
    const onClose = () => {
      if (!req.readableEnded) fail(new KeyholdError('BAD_REQUEST_BODY'));
    };

    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    req.on('close', onClose);
  });
}
