/**
 * `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, as milliseconds from now.
 * @module
 */

/**
 * Milliseconds to wait per a `Retry-After` value, or `undefined` if absent or malformed. A
 * date in the past is 0.
 * @example
 * parseRetryAfter('120'); // 120000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('2015-10-21T07:27:00Z')); // 60000
 * parseRetryAfter('soon'); // undefined
 */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  if (value == null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) {
    const seconds = Number(v);
    return Number.isSafeInteger(seconds * 1000) ? seconds * 1000 : undefined;
  }
  if (!/[A-Za-z]/.test(v)) return undefined; // not an HTTP-date either
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
