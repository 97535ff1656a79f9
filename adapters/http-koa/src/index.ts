/**
 * @keyhold/http-koa — mounts a Keyhold RequestHandler into Koa.
 * @module
 */
export { isClientDisconnect } from './client-disconnect.js';
export { isKeyholdPath } from './keyhold-paths.js';
export { createKeyholdMiddleware, type KeyholdMiddlewareOptions } from './koa-middleware.js';
export { bodyLeftUnread, readRawBody } from './read-raw-body.js';
