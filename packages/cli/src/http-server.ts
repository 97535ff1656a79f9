/**
 * The node:http server in front of the adapters, and the limits that keep a client from holding
 * it: how long headers and a whole request may take to arrive, how long an idle keep-alive
 * connection is kept, how many connections are open at once, and how large the request head may
 * be. What Node itself refuses before any handler runs (headers too large, a request that did
 * not arrive in time, bytes that are not HTTP) is answered with a Status body, as every other
 * refusal is, instead of Node's bare status line.
 * @module
 */
import {
  createServer,
  type RequestListener,
  type Server,
  type ServerOptions,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { KeyholdError, type MessageKey } from '@keyhold/protocol';
import type { Logger } from '@keyhold/server';

/**
 * The node:http server's limits (`startServer` options; `keyhold serve --headers-timeout` and
 * the rest). Every value is a positive integer.
 * @example
 * await startServer({ requestTimeoutMs: 60_000, maxConnections: 4096 });
 */
export interface HttpServerLimits {
  /** Time for a request's headers to arrive, from its first byte, in ms. Default 10 s. */
  headersTimeoutMs?: number;
  /** Time for a whole request, headers and body, to arrive, in ms. Default 30 s. */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept open, in ms. Default 5 s. */
  keepAliveTimeoutMs?: number;
  /** Open connections at most; further ones are closed as they arrive. Default 1024. */
  maxConnections?: number;
  /** Largest request line and headers, in bytes. Default 16 KiB (Node's). */
  maxHeaderSize?: number;
}

/**
 * The defaults, and why. Headers: a client sends them in one round trip, so 10 s is generous
 * and ends a slow-loris connection early. Request: 30 s receives the 1 MiB body limit at about
 * 35 KB/s, and matches the Postgres statement timeout. Keep-alive: 5 s outlives a client's
 * pause between requests (undici keeps idle sockets 4 s) without holding idle sockets long.
 * Connections: 1024 is far more than a load balancer or an SDK's pool opens, and fits any
 * descriptor limit. Header size: 16 KiB is Node's, and holds a passkey stamp many times over.
 */
export const HTTP_SERVER_DEFAULTS: Readonly<Required<HttpServerLimits>> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
  maxHeaderSize: 16 * 1024,
});

/**
 * The limits with defaults filled in.
 * @throws TypeError naming the option when a value is not a positive integer, or when headers
 * may take longer than the whole request
 */
export function resolveHttpServerLimits(options: HttpServerLimits): Required<HttpServerLimits> {
  const limits = { ...HTTP_SERVER_DEFAULTS };
  for (const name of Object.keys(HTTP_SERVER_DEFAULTS) as (keyof HttpServerLimits)[]) {
    const value = options[name];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new TypeError(`${name} must be a positive integer, got ${String(value)}`);
    limits[name] = value;
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new TypeError(
      `headersTimeoutMs (${limits.headersTimeoutMs}) must not exceed requestTimeoutMs (${limits.requestTimeoutMs}): the headers are part of the request`,
    );
  }
  return limits;
}

/** Node's parser and timeout errors, and the Status each is answered with. */
function refusalFor(code: string | undefined): MessageKey | undefined {
  if (code === 'HPE_HEADER_OVERFLOW') return 'REQUEST_HEADERS_TOO_LARGE';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'REQUEST_TIMEOUT';
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return 'REQUEST_TOO_LARGE';
  if (code?.startsWith('HPE_')) return 'MALFORMED_REQUEST';
  return undefined; // ECONNRESET and the like: the client is gone, nothing to answer
}

/** A whole HTTP/1.1 response carrying the Status body, written straight to the socket. */
function rawRefusal(error: KeyholdError): string {
  const body = JSON.stringify(error.toStatus());
  const status = error.httpStatus;
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
    'Content-Type: application/json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/** A socket that does not take our last bytes in this long is destroyed regardless. */
const FLUSH_GRACE_MS = 1_000;
/** At most one "connection limit reached" line per this many ms. */
const DROP_LOG_INTERVAL_MS = 10_000;

/**
 * A certificate chain and its private key, PEM, for serving HTTPS (`--tls-cert`, `--tls-key`).
 * @example
 * const tls: TlsCredentials = { cert: readFileSync('cert.pem'), key: readFileSync('key.pem') };
 */
export interface TlsCredentials {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}

/** The server, and what closing it needs beyond `server.close()`. */
export interface HttpEdge {
  readonly server: Server;
  /**
   * Call as draining begins. Node stops checking its timeouts once `close()` is called, so a
   * stalled upload (or stalled headers) would hold the drain for ever: each connection still
   * receiving its request when the request timeout has passed gets its 408 and is closed.
   * Requests being answered are left to finish.
   */
  expireStalledWhileDraining(): void;
}

/**
 * A node:http server for `listener` with `limits` applied: Node's timeouts and connection cap,
 * its timeout checks run often enough to honour them (Node's default looks every 30 s), and its
 * own refusals answered with Status bodies.
 * @example
 * const { server } = createHttpServer(app, resolveHttpServerLimits({}), logger);
 */
export function createHttpServer(
  listener: RequestListener,
  limits: Required<HttpServerLimits>,
  logger: Logger,
  tls?: TlsCredentials,
): HttpEdge {
  const options: ServerOptions = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxHeaderSize: limits.maxHeaderSize,
    // A stalled request is answered within its timeout plus this.
    connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs, limits.requestTimeoutMs),
  };
  const server: Server = tls
    ? // A handshake that stalls is bounded as stalled headers are.
      createHttpsServer(
        { ...options, cert: tls.cert, key: tls.key, handshakeTimeout: limits.headersTimeoutMs },
        listener,
      )
    : createServer(options, listener);
  server.maxConnections = limits.maxConnections;

  // The response in flight on each socket: once its headers are out, nothing else may be written.
  const responses = new WeakMap<Duplex, ServerResponse>();
  server.on('request', (req, res: ServerResponse) => {
    responses.set(req.socket, res);
  });
  const sockets = new Set<Duplex>();
  // Under TLS the request's socket is the TLS socket, which 'secureConnection' gives.
  server.on(tls ? 'secureConnection' : 'connection', (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const key = refusalFor(error.code);
    if (key === undefined || !socket.writable || responses.get(socket)?.headersSent) {
      socket.destroy();
      return;
    }
    const refusal = new KeyholdError(key);
    logger.info('request refused by the HTTP server', {
      status: refusal.httpStatus,
      errorCode: refusal.errorCode,
    });
    const grace = setTimeout(() => socket.destroy(), FLUSH_GRACE_MS);
    grace.unref();
    socket.end(rawRefusal(refusal), () => {
      clearTimeout(grace);
      socket.destroy();
    });
  });

  // Past maxConnections Node closes new connections before a byte is read (no response is
  // possible without reading the request): say so, once in a while, not once per connection.
  let dropped = 0;
  let loggedAt = 0;
  server.on('drop', () => {
    dropped++;
    const now = Date.now();
    if (now - loggedAt < DROP_LOG_INTERVAL_MS) return;
    logger.warn('connection limit reached: new connections are closed', {
      maxConnections: limits.maxConnections,
      closedSinceLastLine: dropped,
    });
    dropped = 0;
    loggedAt = now;
  });

  const expireStalledWhileDraining = () => {
    const timer = setTimeout(() => {
      for (const socket of sockets) {
        const res = responses.get(socket);
        // A request whose body is all in and whose answer is being written: let it finish.
        if (res && !res.writableFinished && res.req.complete) continue;
        const timeout = Object.assign(new Error('request not received in time'), {
          code: 'ERR_HTTP_REQUEST_TIMEOUT',
        });
        server.emit('clientError', timeout, socket);
      }
    }, limits.requestTimeoutMs);
    timer.unref();
    server.once('close', () => clearTimeout(timer));
  };
  return { server, expireStalledWhileDraining };
}
