/**
 * list_suborgs (`getSubOrgIds`): the ids of an organization's sub-organizations, oldest
 * first, optionally filtered, paged by organization id. list_verified_suborgs
 * (`getVerifiedSubOrgIds`): the same, keeping only sub-organizations with a user whose contact
 * a verification token proved (sign-up with `verificationToken`, UPDATE_USER_EMAIL /
 * UPDATE_USER_PHONE_NUMBER with one); filtered by EMAIL or PHONE_NUMBER, that user's verified
 * contact must be the one asked for.
 * @module
 */
import { KeyholdError, type SUB_ORG_FILTER_TYPES } from '@keyhold/protocol';
import { oauthProviderOf, readOidcTokenShape } from '../handlers/oidc-token.js';
import type { StoreTransaction } from '../ports/store.js';
import type { OrganizationRecord } from '../records.js';
import { DEFAULT_PAGE_LIMIT } from './activity-queries.js';
import type { QueryHandlerOf } from './query-handler.js';

type Filter = (tx: StoreTransaction, org: OrganizationRecord, value: string) => Promise<boolean>;

const userMatches =
  (pick: (u: { userName: string; userEmail?: string; userPhoneNumber?: string }) => unknown) =>
  (normalize: (v: string) => string = (v) => v): Filter =>
  async (tx, org, value) =>
    (await tx.users.list(org.organizationId)).some((u) => {
      const field = pick(u);
      return typeof field === 'string' && normalize(field) === normalize(value);
    });

/**
 * The sub-organizations with a user whose OAuth provider has the token's issuer, subject and
 * one of its audiences. The token is read, not verified: the caller is the parent, which may
 * read every sub-organization's providers anyway; a token that is not a JWT matches nothing.
 */
const oidcTokenMatches: Filter = async (tx, org, value) => {
  let claims: ReturnType<typeof readOidcTokenShape>;
  try {
    claims = readOidcTokenShape(value);
  } catch {
    return false;
  }
  try {
    await oauthProviderOf(tx, org.organizationId, claims);
    return true;
  } catch {
    return false;
  }
};

/** The filters by `filterType`. CREDENTIAL_ID matches nothing yet. */
const FILTERS: Record<(typeof SUB_ORG_FILTER_TYPES)[number], Filter> = {
  NAME: async (_tx, org, value) => org.name === value,
  USERNAME: userMatches((u) => u.userName)(),
  EMAIL: userMatches((u) => u.userEmail)((v) => v.toLowerCase()),
  PHONE_NUMBER: userMatches((u) => u.userPhoneNumber)(),
  PUBLIC_KEY: async (tx, org, value) =>
    (await tx.apiKeys.findByPublicKey(
      org.organizationId,
      value.toLowerCase().replace(/^0x/, ''),
    )) !== undefined,
  WALLET_ACCOUNT_ADDRESS: async (tx, org, value) =>
    (await tx.walletAccounts.findByAddress(org.organizationId, value)) !== undefined,
  CREDENTIAL_ID: async () => false,
  OIDC_TOKEN: oidcTokenMatches,
};

/** A verified contact of the sub-organization's users (of the filter's kind, if it names one). */
async function hasVerifiedContact(
  tx: StoreTransaction,
  org: OrganizationRecord,
  filterType: string | undefined,
  value: string | undefined,
): Promise<boolean> {
  const users = await tx.users.list(org.organizationId);
  return users.some((u) => {
    const email = u.emailVerifiedAt !== undefined && u.userEmail !== undefined;
    const phone = u.phoneNumberVerifiedAt !== undefined && u.userPhoneNumber !== undefined;
    if (filterType === 'EMAIL') return email && u.userEmail!.toLowerCase() === value?.toLowerCase();
    if (filterType === 'PHONE_NUMBER') return phone && u.userPhoneNumber === value;
    return email || phone;
  });
}

type SubOrganizationQuery = Parameters<QueryHandlerOf<'list_suborgs'>>[1];

export const listSubOrganizations: QueryHandlerOf<'list_suborgs'> = (ctx, body) =>
  subOrganizationIds(ctx, body, false);

export const listVerifiedSubOrganizations: QueryHandlerOf<'list_verified_suborgs'> = (ctx, body) =>
  subOrganizationIds(ctx, body, true);

async function subOrganizationIds(
  ctx: Parameters<QueryHandlerOf<'list_suborgs'>>[0],
  body: SubOrganizationQuery,
  verifiedOnly: boolean,
): Promise<{ organizationIds: string[] }> {
  let children = await ctx.tx.organizations.listChildren(ctx.organization.organizationId);
  if (verifiedOnly) {
    const kept: OrganizationRecord[] = [];
    for (const child of children) {
      if (await hasVerifiedContact(ctx.tx, child, body.filterType, body.filterValue)) {
        kept.push(child);
      }
    }
    children = kept;
  }
  if (body.filterType !== undefined) {
    const filter = FILTERS[body.filterType];
    if (body.filterValue === undefined) {
      throw new KeyholdError('REQUEST_INVALID', { field: '/filterValue', reason: 'missing' });
    }
    const value = body.filterValue;
    const kept: OrganizationRecord[] = [];
    for (const child of children) if (await filter(ctx.tx, child, value)) kept.push(child);
    children = kept;
  }
  let ids = children.map((c) => c.organizationId);
  const page = body.paginationOptions ?? {};
  const limit = page.limit ? Number(page.limit) : DEFAULT_PAGE_LIMIT;
  if (page.after) {
    const i = ids.indexOf(page.after.toLowerCase());
    ids = i === -1 ? [] : ids.slice(i + 1);
  }
  if (page.before) {
    const i = ids.indexOf(page.before.toLowerCase());
    ids = i === -1 ? [] : ids.slice(0, i);
    // `before` alone asks for the page just ahead of the cursor.
    if (!page.after) return { organizationIds: ids.slice(Math.max(0, ids.length - limit)) };
  }
  return { organizationIds: ids.slice(0, limit) };
}
