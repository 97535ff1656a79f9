/**
 * An ActivityContext for handler unit tests, with no store, vault or HTTP behind it: the test
 * gives the repositories and vault methods the handler should use, and any other member throws
 * "not in this test", so a handler that reads more than the test expects is seen at once.
 * @module
 */
import type { KeyVault } from '@keyhold/keys';
import { activityDefinitionOf, type ServedActivityType } from '@keyhold/protocol';
import { ActivityScope } from '../../activity-scope.js';
import type { StoreTransaction } from '../../ports/store.js';
import type { Principal } from '../../principal.js';
import type { OrganizationRecord } from '../../records.js';
import type { ActivityContext } from '../activity-handler.js';

/** What a test supplies: only the parts the handler under test touches. */
export interface HandlerContextParts {
  readonly type: ServedActivityType;
  readonly tx?: { [R in keyof StoreTransaction]?: Partial<StoreTransaction[R]> };
  readonly vault?: Partial<KeyVault>;
  readonly organization?: Partial<OrganizationRecord>;
  readonly now?: number;
}

/** An object whose members are `given`, and every other member a throw naming `what`. */
function only<T extends object>(what: string, given: Partial<T>): T {
  return new Proxy(given, {
    get(target, member) {
      if (member in target) return target[member as keyof typeof target];
      if (typeof member === 'symbol' || member === 'then') return undefined;
      throw new Error(`${what}.${member} is not in this test`);
    },
  }) as T;
}

/**
 * @example
 * const ctx = handlerContext({
 *   type: 'ACTIVITY_TYPE_DELETE_POLICY',
 *   tx: { policies: { get: async () => policy, delete: async () => {} } },
 * });
 */
export function handlerContext(parts: HandlerContextParts): ActivityContext {
  const definition = activityDefinitionOf(parts.type);
  if (!definition) throw new Error(`${parts.type} is not in the catalogue`);
  const tx: Partial<Record<keyof StoreTransaction, unknown>> = {};
  for (const [name, repository] of Object.entries(parts.tx ?? {})) {
    tx[name as keyof StoreTransaction] = only(`tx.${name}`, repository as object);
  }
  let next = 0;
  const store = only<StoreTransaction>('tx', tx as Partial<StoreTransaction>);
  const organization: OrganizationRecord = {
    organizationId: 'org-1',
    name: 'Org',
    rootQuorum: { threshold: 1, userIds: ['root-1'] },
    createdAt: 0,
    updatedAt: 0,
    ...parts.organization,
  };
  return {
    tx: store,
    scope: new ActivityScope(store, organization.organizationId),
    organization,
    principal: only<Principal>('principal', {}),
    vault: only<KeyVault>('vault', parts.vault ?? {}),
    work: only('work', {}),
    signer: only('signer', {}),
    notarizer: only('notarizer', {}),
    tlsFetcher: only('tlsFetcher', {}),
    notifier: only('notifier', {}),
    oauth2: only('oauth2', {}),
    onRamp: only('onRamp', {}),
    oidc: only('oidc', {}),
    chains: only('chains', {}),
    ids: { uuid: () => `id-${++next}`, activityId: () => 'activity-1' },
    now: parts.now ?? 1_700_000_000_000,
    activityId: 'activity-1',
    definition,
    afterCommit: () => {},
  };
}
