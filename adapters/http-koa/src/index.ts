/**
 * @keyhold/http-koa — mounts a Keyhold RequestHandler into Koa.
 * @module
 */

export { bodyLeftUnread, readRawBody } from '@keyhold/http-body';
export { isClientDisconnect } from './client-disconnect.js';
export { isKeyholdPath } from './keyhold-paths.js';
export { createKeyholdMiddleware, type KeyholdMiddlewareOptions } from './koa-middleware.js';
