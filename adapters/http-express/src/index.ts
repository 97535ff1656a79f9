/**
 * @keyhold/http-express — mounts a Keyhold RequestHandler into Express.
 * @module
 */
export { createKeyholdRouter, type KeyholdRouterOptions } from './express-router.js';
