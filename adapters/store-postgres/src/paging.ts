/**
 * Paging in SQL with exactly the semantics of the memory store's `pageOf`: cursors are
 * record ids that must be in the filtered listing (an unknown cursor gives an empty page),
 * `after` and `before` bound the listing, and `limit` keeps the first records — or, for
 * `before` alone, the last ones (the page just ahead of the cursor). Limits that are not
 * positive integers behave as JavaScript's `Array.prototype.slice` makes them behave there.
 * @module
 */
import type { PageRequest } from '@keyhold/activities';

/** Which records of the cursor-bounded listing a page keeps. */
export type PagePlan =
  | { kind: 'all' }
  | { kind: 'none' }
  /** The first n, in listing order. */
  | { kind: 'head'; n: number }
  /** The last n, in listing order. */
  | { kind: 'tail'; n: number }
  /** All but the last n. */
  | { kind: 'drop-tail'; n: number };

/** ECMAScript ToIntegerOrInfinity. */
function toInteger(x: number): number {
  if (Number.isNaN(x)) return 0;
  return Math.trunc(x) + 0;
}

const bounded = (n: number, plan: PagePlan): PagePlan =>
  n > Number.MAX_SAFE_INTEGER ? { kind: 'all' } : plan;

export function planPage(page: PageRequest | undefined): PagePlan {
  // An absent limit (possible from untyped callers) keeps everything, as slice does.
  if (!page || page.limit === undefined) return { kind: 'all' };
  const limit = Number(page.limit);
  if (page.before !== undefined && page.after === undefined) {
    // slice(Math.max(0, length - limit))
    if (Number.isNaN(limit) || limit === Number.POSITIVE_INFINITY) return { kind: 'all' };
    if (limit < 0) return { kind: 'none' };
    const n = Math.ceil(limit);
    return n === 0 ? { kind: 'none' } : bounded(n, { kind: 'tail', n });
  }
  // slice(0, limit)
  const n = toInteger(limit);
  if (n === Number.POSITIVE_INFINITY) return { kind: 'all' };
  if (n === Number.NEGATIVE_INFINITY || n === 0) return { kind: 'none' };
  if (n > 0) return bounded(n, { kind: 'head', n });
  return bounded(-n, { kind: 'drop-tail', n: -n });
}

export interface PagedQuery {
  /** SELECT … FROM … WHERE … (without ORDER BY). */
  select: string;
  params: unknown[];
  /** Listing order, e.g. `seq ASC`; and its reverse. */
  order: string;
  reverse: string;
}

/**
 * Completes a query with ORDER BY / LIMIT / OFFSET for a plan. Returns the SQL, its
 * parameters, and whether the fetched rows must be reversed back into listing order;
 * undefined when the plan keeps nothing.
 */
export function pagedSql(
  query: PagedQuery,
  plan: PagePlan,
): { text: string; params: unknown[]; reversed: boolean } | undefined {
  const { select, params, order, reverse } = query;
  const next = `$${params.length + 1}`;
  switch (plan.kind) {
    case 'none':
      return undefined;
    case 'all':
      return { text: `${select} ORDER BY ${order}`, params, reversed: false };
    case 'head':
      return {
        text: `${select} ORDER BY ${order} LIMIT ${next}`,
        params: [...params, plan.n],
        reversed: false,
      };
    case 'tail':
      return {
        text: `${select} ORDER BY ${reverse} LIMIT ${next}`,
        params: [...params, plan.n],
        reversed: true,
      };
    case 'drop-tail':
      return {
        text: `${select} ORDER BY ${reverse} OFFSET ${next}`,
        params: [...params, plan.n],
        reversed: true,
      };
  }
}

/** A listing to page through: one table, filtered, in one order. */
export interface CursorListing {
  table: string;
  /** The filter (`organization_id = $1 …`), over `params`. */
  where: string;
  params: unknown[];
  /** The column of the listing order, and whether it runs descending (newest first). */
  orderColumn: string;
  descending: boolean;
  /** The column a cursor names a record by. */
  idColumn: string;
}

/**
 * The paged query of a listing: its `SELECT`, bounded by the page's cursors (the records after
 * or before the cursor's record in listing order; a cursor that is not in the filtered listing
 * bounds everything away, as the memory store's `pageOf` does), and the listing order.
 */
export function cursorQuery(listing: CursorListing, page: PageRequest | undefined): PagedQuery {
  const { table, where, orderColumn, descending, idColumn } = listing;
  const params = [...listing.params];
  const bounds: string[] = [];
  for (const [cursor, after] of [
    [page?.after, true],
    [page?.before, false],
  ] as const) {
    if (cursor === undefined) continue;
    params.push(cursor);
    const op = after === descending ? '<' : '>';
    bounds.push(
      `${orderColumn} ${op} (SELECT ${orderColumn} FROM ${table} WHERE ${where} AND ${idColumn} = $${params.length})`,
    );
  }
  const [forward, backward] = descending ? ['DESC', 'ASC'] : ['ASC', 'DESC'];
  return {
    select: `SELECT * FROM ${table} WHERE ${[where, ...bounds].join(' AND ')}`,
    params,
    order: `${orderColumn} ${forward}`,
    reverse: `${orderColumn} ${backward}`,
  };
}
