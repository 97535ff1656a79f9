/**
 * The audit chain: every activity, vote and authenticated refusal of an organization, each
 * entry committing to the one before it. Entry n's hash is the hex SHA-256 of entry n-1's hash
 * (64 zeros before entry 1), a newline, and entry n's body (its JSON text, as stored), so an
 * edited, removed or reordered entry breaks every hash after it, and a cut-off tail no longer
 * reaches the chain's stored head. Anyone can re-check an exported chain with SHA-256 alone.
 * @module
 */
// node:crypto, not noble: measured 3.4 µs against 17 µs for a 900-byte entry, once per activity.
import { createHash } from 'node:crypto';
import type { StoreTransaction } from '../ports/store.js';
import type { AuditEntryRecord, AuditHeadRecord } from '../records.js';

/**
 * The hash entry 1 commits to.
 * @example
 * AUDIT_GENESIS_HASH; // '0000…0000' (64 zeros)
 */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);

/**
 * The hash of an entry: hex SHA-256 over `previousHash + "\n" + body` (UTF-8).
 * @example
 * auditEntryHash(AUDIT_GENESIS_HASH, '{"event":"activity",…}'); // '5f0c…'
 */
export function auditEntryHash(previousHash: string, body: string): string {
  return createHash('sha256').update(`${previousHash}\n${body}`, 'utf8').digest('hex');
}

/** What an entry records. Never a request body, a stamp or a secret: ids, types and outcomes. */
export type AuditEvent =
  | {
      readonly event: 'activity';
      readonly activityId: string;
      readonly activityType: string;
      readonly status: string;
      /** The request body's fingerprint (`sha256:…`): binds the entry to what was signed. */
      readonly fingerprint: string;
      readonly userId: string;
    }
  | {
      readonly event: 'vote';
      readonly activityId: string;
      readonly activityType: string;
      /** The activity's status after the vote. */
      readonly status: string;
      readonly selection: string;
      readonly fingerprint: string;
      readonly userId: string;
    }
  | {
      readonly event: 'refusal';
      /** The activity type the refused request named. */
      readonly activityType: string;
      readonly errorCode: string;
      readonly fingerprint: string;
      readonly userId: string;
    };

/**
 * The body of an entry: the event with the organization and time, as JSON text.
 * @example
 * auditBody('org-1', { event: 'refusal', … }, 1764142800000);
 */
export function auditBody(organizationId: string, event: AuditEvent, at: number): string {
  return JSON.stringify({ organizationId, at: new Date(at).toISOString(), ...event });
}

/**
 * Appends an event to the organization's chain, in the caller's transaction: call it last, as
 * the chain's head stays locked until the transaction ends.
 * @example
 * await appendAuditEvent(tx, organizationId, { event: 'activity', … }, now);
 */
export function appendAuditEvent(
  tx: StoreTransaction,
  organizationId: string,
  event: AuditEvent,
  now: number,
): Promise<void> {
  return tx.auditLog.append(organizationId, auditBody(organizationId, event, now), now);
}

/** Where a chain breaks, and how. */
export interface AuditBreak {
  /** The first entry that does not hold (for a missing tail: the head's seq). */
  readonly seq: number;
  readonly reason: string;
}

/**
 * Checks a chain from its first entry: consecutive seqs from 1, each hash recomputed, bodies of
 * this organization, and the last entry equal to the head. Returns the first break, or none.
 * @example
 * const broken = verifyAuditChain(entries, head); // undefined when intact
 */
export function verifyAuditChain(
  entries: Iterable<AuditEntryRecord>,
  head: AuditHeadRecord | undefined,
): AuditBreak | undefined {
  const checker = auditChainChecker(head?.organizationId);
  for (const entry of entries) {
    const broken = checker.next(entry);
    if (broken) return broken;
  }
  return checker.end(head);
}

/**
 * The streaming form of `verifyAuditChain`, for chains read page by page.
 * @example
 * const checker = auditChainChecker(organizationId);
 * for (const entry of page) if (checker.next(entry)) break;
 * checker.end(head);
 */
export function auditChainChecker(organizationId: string | undefined): {
  next(entry: AuditEntryRecord): AuditBreak | undefined;
  end(head: AuditHeadRecord | undefined): AuditBreak | undefined;
} {
  let previous = AUDIT_GENESIS_HASH;
  let seq = 0;
  return {
    next(entry) {
      if (entry.seq !== seq + 1) {
        return { seq: seq + 1, reason: `entry ${seq + 1} is missing (next is ${entry.seq})` };
      }
      seq = entry.seq;
      if (organizationId !== undefined && entry.organizationId !== organizationId) {
        return { seq, reason: 'the entry belongs to another organization' };
      }
      let owner: unknown;
      try {
        owner = (JSON.parse(entry.body) as { organizationId?: unknown }).organizationId;
      } catch {
        return { seq, reason: 'the body is not JSON' };
      }
      if (owner !== entry.organizationId) {
        return { seq, reason: "the body names another organization than the entry's" };
      }
      const expected = auditEntryHash(previous, entry.body);
      if (entry.hash !== expected) {
        return { seq, reason: 'the hash does not match the previous hash and the body' };
      }
      previous = entry.hash;
      return undefined;
    },
    end(head) {
      if (head === undefined) return undefined;
      if (head.seq !== seq) {
        return {
          seq: seq + 1,
          reason: `the head is at entry ${head.seq}, the chain ends at ${seq}`,
        };
      }
      if (head.hash !== previous) return { seq, reason: 'the head hash is not the last entry' };
      return undefined;
    },
  };
}
