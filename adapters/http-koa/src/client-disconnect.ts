/**
 * Telling a client that went away from a fault. Koa emits the app's `error` event when the
 * socket of a request in flight is reset (on-finished sees the socket's error); that is the
 * client's doing, not the server's, and a host should log it below error level.
 * @module
 */

/** What Node calls a connection the peer reset or closed under a request or its response. */
const DISCONNECT_CODES = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_DESTROYED',
]);

/**
 * True when `error` says that the client went away (a reset, an aborted upload, a response
 * written to a closed socket) rather than that the server failed.
 * @example
 * app.on('error', (error) => {
 *   if (isClientDisconnect(error)) logger.info('client disconnected');
 *   else logger.error('request failed', { error: error.message });
 * });
 */
export function isClientDisconnect(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && DISCONNECT_CODES.has(code);
}
