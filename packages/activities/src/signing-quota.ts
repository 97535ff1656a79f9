/**
 * Signing quotas (issue 15 item 8): an operator may cap the signatures each root organization
 * and its sub-organizations make in a calendar month (UTC); default none. The count is the
 * store's (completed signing activities), so every instance sharing the store sees the same.
 * Over the quota, a new signing activity is refused with the spec's message — for an
 * organization, or for a sub-organization whose parent is over — and nothing is stored. The
 * `free-tier` profile behaves like the hosted free tier: 25 signatures a month.
 *
 * The check reads the count and the activity commits later: signatures racing on the last
 * unit may pass together, so the quota can be overshot by the number of concurrent requests.
 * @module
 */
import {
  ACTIVITY_DEFINITIONS,
  type ActivityDefinition,
  type ActivityType,
  KeyholdError,
  Messages,
} from '@keyhold/protocol';
import type { StoreTransaction } from './ports/store.js';
import type { OrganizationRecord } from './records.js';

/** Signatures a month of the `free-tier` profile, as the hosted free tier gives them. */
export const FREE_TIER_MONTHLY_SIGNATURES = 25;

/**
 * The operator's quota settings.
 * @example
 * const quotas: SigningQuotas = { monthlySignatures: FREE_TIER_MONTHLY_SIGNATURES, supportContact: 'ops@example.com' };
 */
export interface SigningQuotas {
  /** Completed signing activities a root organization and its sub-organizations may make a month. */
  readonly monthlySignatures?: number;
  /** Who to reach out to, in place of the spec's `<SUPPORT_EMAIL>`. */
  readonly supportContact?: string;
}

const SIGNING_TYPES: readonly ActivityType[] = ACTIVITY_DEFINITIONS.filter(
  (d) => d.action === 'SIGN',
).map((d) => d.type);

/** The first millisecond of `now`'s calendar month, UTC. */
const monthStart = (now: number) => {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};

/**
 * Refuses a new signing activity when its root organization has used its monthly quota.
 * @throws KeyholdError ORGANIZATION_OVER_QUOTA, or PARENT_OVER_QUOTA for a sub-organization
 * @example
 * await requireSigningQuota(tx, organization, definition, { monthlySignatures: 25 }, Date.now());
 */
export async function requireSigningQuota(
  tx: StoreTransaction,
  organization: OrganizationRecord,
  definition: ActivityDefinition,
  quotas: SigningQuotas | undefined,
  now: number,
): Promise<void> {
  const limit = quotas?.monthlySignatures;
  if (limit === undefined || definition.action !== 'SIGN') return;
  const root = organization.parentOrganizationId || organization.organizationId;
  const used = await tx.activities.countInTree(
    root,
    { statuses: ['ACTIVITY_STATUS_COMPLETED'], types: SIGNING_TYPES },
    monthStart(now),
  );
  if (used < limit) return;
  const key =
    root === organization.organizationId ? 'ORGANIZATION_OVER_QUOTA' : 'PARENT_OVER_QUOTA';
  const contact = quotas?.supportContact ?? 'the operator of this Keyhold server';
  throw new KeyholdError(
    key,
    { organizationId: root, monthlySignatures: limit },
    Messages[key].message.replace('<SUPPORT_EMAIL>', contact),
  );
}
