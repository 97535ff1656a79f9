/**
 * BEGIN sent at a transaction's first write rather than at its start (the pg driver, on a pool
 * of its own). Under READ COMMITTED every statement reads its own snapshot, in a transaction or
 * not, so the plain reads that come before the first write lose nothing by running on their own;
 * and a transaction whose one write is its last (`ActivityRepository.insertDecided`, after
 * reads) runs that statement on its own too, committed as it completes. A signature then costs
 * two round trips instead of four, and the audit chain's head is locked only while that
 * statement runs, not until a COMMIT that waits its turn on a busy event loop.
 * @module
 */

import { isRead } from './lazy-savepoints.js';

/** A locking clause (`FOR UPDATE`, `FOR NO KEY UPDATE`, `FOR SHARE`, `FOR KEY SHARE`). */
const LOCKING_CLAUSE = /\bfor\s+(?:update|no\s+key\s+update|share|key\s+share)\b/i;

/**
 * Whether a statement may run before the transaction's BEGIN: one of the store's fixed
 * statements (its text never built from varying parts) that is a plain SELECT, taking no
 * lock that would have to last until the end of the transaction. Anything else (a write, a
 * `WITH` that may write, a locking read, an advisory lock, a statement built at run time)
 * opens the transaction first.
 * @example
 * isPlainRead('SELECT * FROM users WHERE organization_id = $1', true); // true
 * isPlainRead('SELECT * FROM activities WHERE id = $1 FOR UPDATE', true); // false
 */
export function isPlainRead(text: string, fixed: boolean | undefined): boolean {
  return (
    fixed === true && isRead(text) && !LOCKING_CLAUSE.test(text) && !/\bpg_advisory/i.test(text)
  );
}

/** Where one transaction of the pg driver stands. */
export type DeferredState =
  /** Nothing written: statements so far ran on their own; nothing to commit or roll back. */
  | 'not begun'
  /** BEGIN was sent: the rest runs in the transaction, which ends with COMMIT or ROLLBACK. */
  | 'begun';

/**
 * Whether the next statement must open the transaction first (send BEGIN), given where the
 * transaction stands: not for a plain read, nor for the transaction's last write while
 * nothing was written before it (that statement commits on its own).
 * @example
 * needsBegin('not begun', insertDecided, true, true); // false: it runs, and commits, alone
 * needsBegin('not begun', 'INSERT INTO wallets …', true, false); // true
 */
export function needsBegin(
  state: DeferredState,
  text: string,
  fixed: boolean | undefined,
  last: boolean | undefined,
): boolean {
  return state === 'not begun' && last !== true && !isPlainRead(text, fixed);
}
