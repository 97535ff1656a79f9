/**
 * The end-to-end bench's load generator connection: one keep-alive HTTP/1.1 socket with one
 * request in flight, each request written as bytes built before the timing starts, each
 * response read up to its Content-Length.
 *
 * Why not `node:http`'s client: the client shares the machine's CPUs with the server it
 * measures, and every millisecond it spends is one the server does not get (the bare loop it is
 * compared with has no client at all). Measured on the bench's 2 vCPUs, an `http.request` with a
 * keep-alive Agent cost 0.26–0.38 ms of client CPU per signing request; wrk and autocannon
 * exist for the same reason. The wire is the same: one request per connection at a time, no
 * pipelining, so the server reads and answers exactly as it would for any HTTP/1.1 client.
 * @module
 */
import { connect, type Socket } from 'node:net';

/** A response: its status and its body as text. */
export interface BenchResponse {
  status: number;
  body: string;
}

/**
 * The bytes of one POST: request line, Host, the given headers, Content-Length, then the body.
 * @example
 * const bytes = postRequestBytes(new URL('http://127.0.0.1:8080'), '/public/v1/submit/x', body, { 'x-stamp': stamp });
 */
export function postRequestBytes(
  url: URL,
  path: string,
  body: Buffer,
  headers: Readonly<Record<string, string>>,
): Buffer {
  let head = `POST ${path} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  head += `content-length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * One connection, opened on its first request and again after the server closed it.
 * @example
 * const connection = new KeepAliveConnection(new URL(server.url));
 * const { status, body } = await connection.send(postRequestBytes(url, path, body, headers));
 * connection.close();
 */
export class KeepAliveConnection {
  private socket: Socket | undefined;
  private pending:
    | { resolve: (response: BenchResponse) => void; reject: (error: Error) => void }
    | undefined;
  private received: Buffer = Buffer.alloc(0);
  /** Where the body starts and how long it is, once the head has been read. */
  private head: { status: number; bodyStart: number; length: number; close: boolean } | undefined;

  constructor(private readonly url: URL) {}

  /** Sends one request and resolves with its response; one at a time. */
  send(request: Buffer): Promise<BenchResponse> {
    if (this.pending) return Promise.reject(new Error('a request is already in flight'));
    const socket = this.socket ?? this.open();
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      socket.write(request);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private open(): Socket {
    const socket = connect({ host: this.url.hostname, port: Number(this.url.port) });
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const fail = (error: Error) => {
      // A socket this connection already let go (`close()`, or a `connection: close` answer)
      // says nothing about the request now in flight on its successor.
      if (this.socket === socket) this.abandon(error);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the server closed the connection')));
    this.socket = socket;
    return socket;
  }

  private onData(chunk: Buffer): void {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    if (!this.head) {
      const end = this.received.indexOf(HEADER_END);
      if (end < 0) return;
      try {
        this.head = parseHead(this.received.toString('latin1', 0, end), end + HEADER_END.length);
      } catch (error) {
        this.abandon(error as Error);
        return;
      }
    }
    const { status, bodyStart, length, close } = this.head;
    if (this.received.length < bodyStart + length) return;
    const body = this.received.toString('utf8', bodyStart, bodyStart + length);
    this.received = Buffer.alloc(0);
    this.head = undefined;
    const pending = this.pending;
    this.pending = undefined;
    if (close) this.close();
    pending?.resolve({ status, body });
  }

  /** Drops the socket and whatever was read from it, and fails the request in flight. */
  private abandon(error: Error): void {
    this.close();
    this.received = Buffer.alloc(0);
    this.head = undefined;
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(error);
  }
}

/** The status, Content-Length and Connection of a response head (chunked bodies are refused:
 * Keyhold answers every request with a Content-Length). */
function parseHead(
  text: string,
  bodyStart: number,
): { status: number; bodyStart: number; length: number; close: boolean } {
  const lines = text.split('\r\n');
  const status = Number(lines[0]?.split(' ')[1]);
  let length = -1;
  let close = false;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    if (name === 'content-length') length = Number(line.slice(colon + 1).trim());
    else if (name === 'connection')
      close =
        line
          .slice(colon + 1)
          .trim()
          .toLowerCase() === 'close';
  }
  if (!Number.isInteger(status) || length < 0) {
    throw new Error(`unreadable response head: ${JSON.stringify(text.slice(0, 200))}`);
  }
  return { status, bodyStart, length, close };
}
