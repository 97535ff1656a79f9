/// <reference lib="dom" />
/**
 * The frame's side of `@turnkey/iframe-stamper`'s handshake. The parent posts
 * `TURNKEY_INIT_MESSAGE_CHANNEL` with a MessagePort to the frame's window; the frame accepts
 * it once, only from its own parent and only from an allowed origin, answers
 * `PUBLIC_KEY_READY` on the port, and from then on reads requests `{type, requestId, …}` from
 * the port and answers each with `{type, value, requestId}` (or `{type: 'ERROR', value}`).
 * Everything else that reaches the window — another origin, another window, a second channel,
 * a request posted to the window instead of the port — is refused: ignored, and shown in the
 * page's status line. The port is the only way in, and only the accepted parent holds it.
 * @module
 */
import { isAllowedFrameOrigin } from '../frame-origins.js';

/** A request read from the channel. */
export interface FrameRequest {
  readonly type: string;
  readonly requestId?: string;
  readonly [field: string]: unknown;
}

/** What a request is answered with (the channel adds the request's id). */
export interface FrameReply {
  readonly type: string;
  readonly value: unknown;
}

export interface FrameChannelOptions {
  readonly allowedOrigins: readonly string[];
  /** The value of `PUBLIC_KEY_READY`: the embedded key (export) or `''` (import). */
  readonly readyValue: () => string;
  /** Answers one request; a thrown Error becomes an `ERROR` reply with its message. */
  readonly answer: (request: FrameRequest) => Promise<FrameReply>;
  /** Told of every refused message, with the reason. */
  readonly refused: (reason: string) => void;
}

/** A request larger than this is refused before it is parsed (bundles are a few KB). */
const MAX_REQUEST_CHARS = 64 * 1024;

/** Starts listening for the parent's channel. */
export function listenForParent(options: FrameChannelOptions): void {
  let port: MessagePort | undefined;
  // One request at a time: a second injection waits for the first to finish.
  let queue: Promise<void> = Promise.resolve();

  const serve = async (data: unknown, channel: MessagePort): Promise<void> => {
    const request = data as FrameRequest | null;
    if (typeof request !== 'object' || request === null || typeof request.type !== 'string') {
      options.refused('a message that is not a request');
      return;
    }
    const requestId = typeof request.requestId === 'string' ? request.requestId : undefined;
    try {
      if (JSON.stringify(request).length > MAX_REQUEST_CHARS) throw new Error('request too large');
      const reply = await options.answer(request);
      channel.postMessage({ ...reply, ...(requestId ? { requestId } : {}) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      channel.postMessage({ type: 'ERROR', value: message, ...(requestId ? { requestId } : {}) });
    }
  };

  window.addEventListener('message', (event: MessageEvent) => {
    if (window.parent === window || event.source !== window.parent) {
      options.refused('a message from a window that is not this frame’s parent');
      return;
    }
    if (!isAllowedFrameOrigin(event.origin, options.allowedOrigins)) {
      options.refused(`a message from an origin that is not allowed: ${event.origin}`);
      return;
    }
    const type = (event.data as { type?: unknown } | null)?.type;
    const offered = event.ports[0];
    if (type !== 'TURNKEY_INIT_MESSAGE_CHANNEL' || !offered) {
      options.refused('a message outside the channel (use @turnkey/iframe-stamper ≥ 2.1)');
      return;
    }
    if (port) {
      options.refused('a second channel');
      return;
    }
    port = offered;
    const channel = offered;
    channel.onmessage = (message) => {
      queue = queue.then(() => serve(message.data, channel));
    };
    channel.postMessage({ type: 'PUBLIC_KEY_READY', value: options.readyValue() });
  });
}
