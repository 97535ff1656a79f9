/**
 * Which request paths belong to Keyhold, so that the Koa middleware can leave every other
 * path to the host application's own routes.
 * @module
 */

/**
 * Prefixes of Keyhold's route space: the public API (`/public/v1/submit/*`,
 * `/public/v1/query/*`, discovery under `/public/v1/discovery/*`), Keyhold's own extension
 * endpoints (`/keyhold/v1/*`), the payment gateway networks of the spec, and the gateway as
 * `keyhold serve --evm-rpc` mounts it (`/pay/*`). Unknown names under these prefixes still go to Keyhold, so that
 * clients get its 404/501 Status body rather than the host's 404 page.
 */
const PREFIXES = ['/public/', '/keyhold/', '/base-mainnet/', '/base-sepolia/', '/pay/'];

/** The probes, and the OpenAPI document of what Keyhold serves. */
const EXACT = new Set(['/health', '/ready', '/openapi.json']);

/**
 * True when `path` (without the query string, relative to the mount prefix) is Keyhold's.
 * @example
 * isKeyholdPath('/public/v1/query/whoami'); // true
 * isKeyholdPath('/health'); // true
 * isKeyholdPath('/api/orders'); // false: the host's own route
 */
export function isKeyholdPath(path: string): boolean {
  return EXACT.has(path) || PREFIXES.some((prefix) => path.startsWith(prefix));
}
