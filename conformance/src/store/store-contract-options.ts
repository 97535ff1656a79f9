/**
 * What the Store contract needs: the store under test, which is also the Outbox of the webhook
 * deliveries its transactions enqueue (the Store port says every adapter is both).
 * @module
 */
import type { Store } from '@keyhold/activities';
import type { Outbox } from '@keyhold/webhooks';

/**
 * A Store adapter as the contract sees it: the Store port of `@keyhold/activities` and the
 * Outbox port of `@keyhold/webhooks`, on one object.
 * @example
 * const store: OutboxStore = new MemoryStore();
 */
export type OutboxStore = Store & Outbox;

/**
 * Options of `storeContract`.
 * @example
 * const options: StoreContractOptions = { store: () => opened }; // opened in beforeAll
 */
export interface StoreContractOptions {
  /**
   * The store under test, or a function giving it (called by every check; return the same
   * store each time, e.g. one opened in `beforeAll`). Checks use fresh ids, so they can share
   * one store and its database with each other and with other tests; the outbox checks claim
   * and finish every delivery left pending before them.
   */
  readonly store: OutboxStore | (() => OutboxStore | Promise<OutboxStore>);
}
