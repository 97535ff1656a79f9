/**
 * @keyhold/conformance/store — the Store contract: the checks any implementation of the Store
 * port (and of the Outbox port every store also is) must pass — the memory store, the SQL
 * store, a vendor's own — as plain `{ name, run }` objects for any test runner; and the record
 * builders the checks use, for an adapter's own tests.
 * @module
 */
export {
  account,
  activity,
  activityId,
  apiKey,
  authenticator,
  fresh,
  organization,
  policy,
  policyEvaluation,
  privateKey,
  tag,
  user,
  vote,
  wallet,
  webhookDelivery,
  webhookEndpoint,
} from './records.js';
export { runStoreChecks, type StoreCheckFailure } from './run-store-checks.js';
export type { StoreCheck } from './store-check.js';
export { storeContract } from './store-contract.js';
export type { OutboxStore, StoreContractOptions } from './store-contract-options.js';
