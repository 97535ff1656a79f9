/**
 * Resource limits (issue 15 item 8): an operator may cap how many users, wallets, wallet
 * accounts, private keys and policies one organization holds, and how many sub-organizations
 * one organization has; default none. The counts are the store's, taken inside the activity's
 * transaction before and after its handler wrote, so every instance sharing the store sees the
 * same, and an activity that makes a resource grow past its limit is refused with the spec's
 * over-quota message and leaves nothing behind (no records, no activity). Deleting a resource
 * frees its place. Signing activities are not counted (they create nothing limited).
 *
 * A sub-organization is an organization of its own here: its limits count its own records,
 * and creating it counts against its parent's `subOrganizations`. As with signing quotas,
 * two activities racing on the last place may both pass (the count is read, not reserved).
 * @module
 */
import { KeyholdError, Messages } from '@keyhold/protocol';
import type { ResourceCounts, StoreTransaction } from './ports/store.js';

/**
 * The operator's per-organization limits; a missing member is no limit.
 * @example
 * const limits: ResourceLimits = { wallets: 10, walletAccounts: 100, subOrganizations: 1000 };
 */
export type ResourceLimits = { readonly [K in keyof ResourceCounts]?: number };

/** The names `keyhold serve --resource-limits` takes, in the order they are reported. */
export const RESOURCE_KINDS: readonly (keyof ResourceCounts)[] = [
  'users',
  'wallets',
  'walletAccounts',
  'privateKeys',
  'policies',
  'subOrganizations',
];

/** Whether any limit is set: without one, nothing is counted. */
export const hasResourceLimits = (limits: ResourceLimits | undefined): limits is ResourceLimits =>
  limits !== undefined && RESOURCE_KINDS.some((kind) => limits[kind] !== undefined);

/** Nothing of anything: what a just-created organization held before its activity. */
export const NO_RESOURCES: ResourceCounts = {
  users: 0,
  wallets: 0,
  walletAccounts: 0,
  privateKeys: 0,
  policies: 0,
  subOrganizations: 0,
};

/**
 * Refuses when the activity made a resource of `organizationId` grow past its limit
 * (ORGANIZATION_OVER_QUOTA, whose details name the organization, the resource, the count and
 * the limit). Only growth is refused: an organization left over a limit the operator lowered
 * can still delete, update and create other kinds of records.
 * @throws KeyholdError ORGANIZATION_OVER_QUOTA
 * @example
 * const before = await tx.organizations.countResources(organizationId);
 * // … the handler runs …
 * await requireResourceLimits(tx, organizationId, before, { wallets: 10 }, 'ops@example.com');
 */
export async function requireResourceLimits(
  tx: StoreTransaction,
  organizationId: string,
  before: ResourceCounts,
  limits: ResourceLimits,
  supportContact: string | undefined,
): Promise<void> {
  const after = await tx.organizations.countResources(organizationId);
  for (const resource of RESOURCE_KINDS) {
    const limit = limits[resource];
    if (limit === undefined || after[resource] <= limit || after[resource] <= before[resource]) {
      continue;
    }
    throw new KeyholdError(
      'ORGANIZATION_OVER_QUOTA',
      { organizationId, resource, count: after[resource], limit },
      Messages.ORGANIZATION_OVER_QUOTA.message.replace(
        '<SUPPORT_EMAIL>',
        supportContact ?? 'the operator of this Keyhold server',
      ),
    );
  }
}

/**
 * The organization a handler's result names as created (a new sub-organization), so its own
 * limits are checked too: a sub-organization created with more accounts than one
 * organization may hold is refused like any other crossing.
 * @example
 * createdOrganizationOf({ subOrganizationId: 'o-2', rootUserIds: [] }); // 'o-2'
 */
export function createdOrganizationOf(result: unknown): string | undefined {
  const id = (result as { subOrganizationId?: unknown } | undefined)?.subOrganizationId;
  return typeof id === 'string' ? id : undefined;
}
