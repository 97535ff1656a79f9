/**
 * Which parent pages may embed a frame and talk to it. An entry is an exact origin
 * (`https://app.example.com`), an origin with any port (`http://localhost:*`, as CSP's
 * `frame-ancestors` writes it) or `*` (any origin: only when an operator asks for it). The
 * same list is the page's `frame-ancestors` and the frame's own check of the origin that opens
 * its message channel, so a page the browser would not let embed the frame cannot talk to it
 * either.
 * @module
 */

/** An entry of an origin list that is not `*`, `scheme://host` or `scheme://host:port|*`. */
const ORIGIN_PATTERN = /^(https?):\/\/(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}|\*))?$/;

/**
 * Reads an operator's comma-separated origin list (`--frame-origins`), lower-cased and without
 * a trailing slash; throws an Error naming the first entry that is not an origin.
 * @example
 * parseFrameOrigins('https://app.example.com, http://localhost:*');
 * // ['https://app.example.com', 'http://localhost:*']
 */
export function parseFrameOrigins(list: string): string[] {
  const origins = list
    .split(',')
    .map((entry) => entry.trim().toLowerCase().replace(/\/$/, ''))
    .filter((entry) => entry !== '');
  for (const origin of origins) {
    if (origin !== '*' && !ORIGIN_PATTERN.test(origin)) {
      throw new Error(`not an origin: ${JSON.stringify(origin)} (want scheme://host[:port|:*])`);
    }
  }
  return origins;
}

/**
 * Whether `origin` (a browser's `MessageEvent.origin`, e.g. `http://localhost:5173`) is one of
 * `allowed`. An opaque origin (`null`) is never allowed, not even by `*`.
 */
export function isAllowedFrameOrigin(origin: string, allowed: readonly string[]): boolean {
  const candidate = origin.toLowerCase();
  const match = ORIGIN_PATTERN.exec(candidate);
  if (!match) return false;
  return allowed.some((entry) => {
    if (entry === '*') return true;
    if (!entry.endsWith(':*')) return entry === candidate;
    // `scheme://host:*`: the same scheme and host, any port (or none).
    const prefix = entry.slice(0, -2);
    return candidate === prefix || candidate.startsWith(`${prefix}:`);
  });
}
