/**
 * Rate-limit lanes: requests that cost the server alike share a lane, and each lane has its
 * own buckets, so a flood of reads never starves signing and an operator can meter signing
 * more tightly than reads.
 * @module
 */

/**
 * `query` (reads), `activity` (writes), `chain_expensive` (signing chain transactions, batches).
 * @example
 * const lane: RateLimitLane = laneOfRoute('submit', 'sign_transaction'); // 'chain_expensive'
 */
export type RateLimitLane = 'query' | 'activity' | 'chain_expensive';

/**
 * Every lane, in the order the spec lists them.
 * @example
 * for (const lane of RATE_LIMIT_LANES) console.log(lane); // query, activity, chain_expensive
 */
export const RATE_LIMIT_LANES: readonly RateLimitLane[] = ['query', 'activity', 'chain_expensive'];

/**
 * The activity kinds (version-less types) in the `chain_expensive` lane. Their cost grows with
 * what the request carries rather than being one signature: SIGN_TRANSACTION parses a chain's
 * transaction format and may sign many inputs (a Bitcoin PSBT signs every input the key
 * owns), and SIGN_RAW_PAYLOADS signs a whole batch in one request. Every other activity does
 * a bounded amount of work (SIGN_RAW_PAYLOAD is one signature), so it stays in `activity`.
 * @example
 * CHAIN_EXPENSIVE_KINDS.has('SIGN_TRANSACTION'); // true
 */
export const CHAIN_EXPENSIVE_KINDS: ReadonlySet<string> = new Set([
  'SIGN_TRANSACTION',
  'SIGN_RAW_PAYLOADS',
]);

/**
 * The lane of a public API route: `submit` routes are activities (or `chain_expensive`), and
 * `query` routes are queries. `name` is the last path segment, e.g. `sign_transaction`.
 * @example
 * laneOfRoute('submit', 'sign_transaction'); // 'chain_expensive'
 * laneOfRoute('query', 'list_wallets'); // 'query'
 */
export function laneOfRoute(kind: 'submit' | 'query', name: string): RateLimitLane {
  if (kind === 'query') return 'query';
  return CHAIN_EXPENSIVE_KINDS.has(name.toUpperCase()) ? 'chain_expensive' : 'activity';
}
