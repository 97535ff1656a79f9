/**
 * Rate-limit lanes: requests that cost the server alike share a lane, and each lane has its
 * own buckets, so a flood of reads never starves signing and an operator can meter signing
 * more tightly than reads.
 * @module
 */

/**
 * `query` (reads), `activity` (writes), `chain_expensive` (key derivation and signing whose
 * cost grows with what the request carries).
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
 * The activity kinds (version-less types) in the `chain_expensive` lane: those whose work
 * grows with what the request carries, and whose admission is weighted by it
 * (`activityCost`). Creating wallets, wallet accounts, private keys, a sub-organization's
 * wallet, or importing a wallet derives a key per account (a 100-account Taproot wallet is
 * hundreds of milliseconds of CPU); SIGN_RAW_PAYLOADS signs a batch; SIGN_TRANSACTION parses
 * a chain's transaction format and may sign many inputs (a Bitcoin PSBT signs every input
 * the key owns). Every other activity does a bounded amount of work (SIGN_RAW_PAYLOAD is one
 * signature), so it stays in `activity`. ETH_SEND_TRANSACTION, ETH_SEND_RAW_TRANSACTION and
 * SOL_SEND_TRANSACTION also spend the chain's RPC endpoint (a simulation, an estimate, a broadcast). The lane follows from the route alone, so the
 * client-address bucket, charged before the body is read, is in the same lane.
 * @example
 * CHAIN_EXPENSIVE_KINDS.has('CREATE_WALLET'); // true
 */
export const CHAIN_EXPENSIVE_KINDS: ReadonlySet<string> = new Set([
  'CREATE_WALLET',
  'CREATE_WALLET_ACCOUNTS',
  'CREATE_PRIVATE_KEYS',
  'CREATE_SUB_ORGANIZATION',
  'IMPORT_WALLET',
  'SIGN_TRANSACTION',
  'SIGN_RAW_PAYLOADS',
  'ETH_SEND_TRANSACTION',
  'ETH_SEND_RAW_TRANSACTION',
  'SOL_SEND_TRANSACTION',
]);

/**
 * The lane of a public API route: `submit` routes are activities (or `chain_expensive`), and
 * `query` routes are queries. `name` is the last path segment, e.g. `sign_transaction`
 * (a submit path is its activity kind in lower case).
 * @example
 * laneOfRoute('submit', 'create_wallet'); // 'chain_expensive'
 * laneOfRoute('query', 'list_wallets'); // 'query'
 */
export function laneOfRoute(kind: 'submit' | 'query', name: string): RateLimitLane {
  if (kind === 'query') return 'query';
  return CHAIN_EXPENSIVE_KINDS.has(name.toUpperCase()) ? 'chain_expensive' : 'activity';
}
