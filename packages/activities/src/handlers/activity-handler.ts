/**
 * What one activity type does. `precheck` refuses what is wrong with the parameters alone
 * (the request is refused and nothing is stored); `execute` runs against the organization's
 * state inside the activity's transaction, and what it throws makes the activity FAILED.
 * @module
 */

import type { BundleSigner, CryptoWorkPool, KeyVault } from '@keyhold/keys';
import type { ActivityDefinition } from '@keyhold/protocol';
import type { Ids } from '../ports/ids.js';
import type { StoreTransaction } from '../ports/store.js';
import type { Principal } from '../principal.js';
import type { OrganizationRecord } from '../records.js';

export interface ActivityContext {
  readonly tx: StoreTransaction;
  readonly organization: OrganizationRecord;
  readonly principal: Principal;
  readonly vault: KeyVault;
  /**
   * Where CPU-heavy public-key work runs (addresses of many accounts: a Taproot tweak is a point
   * multiplication): `ctx.work.run('addresses', …)`. Inline unless the server was given a pool.
   */
  readonly work: CryptoWorkPool;
  /** The server's signer key: signs export and import bundles. */
  readonly signer: BundleSigner;
  readonly ids: Ids;
  /** The activity's time (epoch ms): every record it writes carries it. */
  readonly now: number;
  readonly activityId: string;
  readonly definition: ActivityDefinition;
  /**
   * Runs `effect` once the activity's transaction has committed, never if it rolls back: work
   * outside the Store, such as destroying the HSM objects of a deleted key. Effects run in order
   * before the response; one that fails is reported to the service's `onEffectError` and the
   * activity stands (its records are already committed).
   */
  afterCommit(description: string, effect: () => Promise<unknown>): void;
}

/** Settings of the service that a precheck may depend on. */
export interface PrecheckSettings {
  /**
   * Accept webhook URLs with private, loopback and link-local destinations, and http to
   * loopback hosts (the server's `--allow-private-webhooks`).
   */
  readonly allowPrivateWebhookDestinations: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: parameters are validated by the intent schema first.
export interface ActivityHandler<P = any> {
  precheck?(parameters: P, definition: ActivityDefinition, settings: PrecheckSettings): void;
  /** Returns the content of the result member. */
  execute(ctx: ActivityContext, parameters: P): Promise<Record<string, unknown>>;
}
