/**
 * What an activity costs the rate limiter: the number of keys it derives or payloads it signs,
 * so a 100-account wallet spends 100 units of its organization's budget where an empty one
 * spends 1. Requests are admitted at this weight in their user's and organization's buckets
 * (the client-address bucket, charged before the body is read, counts requests).
 * @module
 */

/**
 * The most any request costs: the largest array an activity intent accepts (the intent
 * schemas' `maxItems`). The cost is read from the parameters before the intent is validated
 * (a refused request is still metered), so a body that validation will refuse never costs
 * more than the largest valid one.
 * @example
 * activityCost('CREATE_WALLET', { accounts: new Array(5000).fill({}) }); // MAX_ACTIVITY_COST
 */
export const MAX_ACTIVITY_COST = 100;

type Parameters = Readonly<Record<string, unknown>>;

const countOf = (value: unknown): number => (Array.isArray(value) ? value.length : 0);

/** The kinds whose cost is a count of what they carry; every other kind costs 1. */
const COUNTED: ReadonlyMap<string, (parameters: Parameters) => number> = new Map([
  ['CREATE_WALLET', (p: Parameters) => countOf(p.accounts)],
  ['CREATE_WALLET_ACCOUNTS', (p: Parameters) => countOf(p.accounts)],
  ['IMPORT_WALLET', (p: Parameters) => countOf(p.accounts)],
  ['CREATE_PRIVATE_KEYS', (p: Parameters) => countOf(p.privateKeys)],
  [
    'CREATE_SUB_ORGANIZATION',
    (p: Parameters) =>
      typeof p.wallet === 'object' && p.wallet !== null
        ? countOf((p.wallet as Parameters).accounts)
        : 0,
  ],
  ['SIGN_RAW_PAYLOADS', (p: Parameters) => countOf(p.payloads)],
]);

/**
 * The kinds whose cost depends on their parameters (the rest cost 1).
 * @example
 * WEIGHTED_KINDS.has('SIGN_RAW_PAYLOADS'); // true
 */
export const WEIGHTED_KINDS: ReadonlySet<string> = new Set(COUNTED.keys());

/**
 * The cost of an activity of `kind` (version-less, e.g. `CREATE_WALLET`) with these
 * parameters (read before they are validated): accounts created (CREATE_WALLET, CREATE_WALLET_ACCOUNTS, IMPORT_WALLET, the
 * wallet of CREATE_SUB_ORGANIZATION), private keys created (CREATE_PRIVATE_KEYS), payloads
 * signed (SIGN_RAW_PAYLOADS); 1 for anything else (SIGN_TRANSACTION, SIGN_RAW_PAYLOAD, votes)
 * and never less than 1 (a wallet without accounts still makes a seed) nor more than
 * MAX_ACTIVITY_COST.
 * @example
 * activityCost('CREATE_WALLET', { walletName: 'w', accounts: [a, b, c] }); // 3
 * activityCost('SIGN_TRANSACTION', { signWith, unsignedTransaction, type }); // 1
 */
export function activityCost(kind: string, parameters: unknown): number {
  const counted = COUNTED.get(kind);
  // Not yet validated: anything but an object counts as one request.
  if (!counted || typeof parameters !== 'object' || parameters === null) return 1;
  const count = counted(parameters as Parameters);
  return Math.min(MAX_ACTIVITY_COST, Math.max(1, count));
}
