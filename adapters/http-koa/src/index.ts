/**
 * @keyhold/http-koa — mounts a Keyhold RequestHandler into Koa.
 * @module
 */
export { isKeyholdPath } from './keyhold-paths.js';
export { createKeyholdMiddleware, type KeyholdMiddlewareOptions } from './koa-middleware.js';
export { readRawBody } from './read-raw-body.js';
