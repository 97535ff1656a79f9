/**
 * The audit chain (fast-check): a chain built by appending verifies; any one tampering — a
 * body edited, a hash replaced, two entries swapped, an entry removed, the tail cut off — is
 * reported at the first entry it breaks, and never earlier.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuditEntryRecord, AuditHeadRecord } from '../records.js';
import { AUDIT_GENESIS_HASH, auditBody, auditEntryHash, verifyAuditChain } from './audit-chain.js';

const ORG = 'org-1';

function chainOf(userIds: string[]): { entries: AuditEntryRecord[]; head: AuditHeadRecord } {
  let previous = AUDIT_GENESIS_HASH;
  const entries = userIds.map((userId, i) => {
    const body = auditBody(
      ORG,
      {
        event: 'refusal',
        activityType: 'ACTIVITY_TYPE_CREATE_WALLET',
        errorCode: 'X',
        fingerprint: `sha256:${i}`,
        userId,
      },
      1_764_000_000_000 + i,
    );
    const hash = auditEntryHash(previous, body);
    previous = hash;
    return { organizationId: ORG, seq: i + 1, body, hash, createdAt: i };
  });
  const head = {
    organizationId: ORG,
    seq: entries.length,
    hash: previous,
    createdAt: 0,
    updatedAt: 0,
  };
  return { entries, head };
}

const chains = fc.array(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 2, maxLength: 12 });

describe('the audit chain', () => {
  it('property: a chain as appended verifies, head included', () => {
    fc.assert(
      fc.property(chains, (users) => {
        const { entries, head } = chainOf(users);
        expect(verifyAuditChain(entries, head)).toBeUndefined();
      }),
    );
  });

  it('property: one edited body or hash breaks the chain at that entry', () => {
    fc.assert(
      fc.property(chains, fc.nat(), fc.boolean(), (users, pick, editHash) => {
        const { entries, head } = chainOf(users);
        const at = pick % entries.length;
        const entry = entries[at]!;
        entries[at] = editHash
          ? { ...entry, hash: auditEntryHash(AUDIT_GENESIS_HASH, 'forged') }
          : { ...entry, body: entry.body.replace('"userId":"', '"userId":"x') };
        expect(verifyAuditChain(entries, head)?.seq).toBe(at + 1);
      }),
    );
  });

  it('property: a swapped, removed or cut-off entry is found where it happened', () => {
    fc.assert(
      fc.property(
        chains,
        fc.nat(),
        fc.constantFrom('swap', 'remove', 'cut'),
        (users, pick, how) => {
          const { entries, head } = chainOf(users);
          const at = pick % (entries.length - 1);
          if (how === 'swap') {
            [entries[at], entries[at + 1]] = [entries[at + 1]!, entries[at]!];
            expect(verifyAuditChain(entries, head)?.seq).toBe(at + 1);
          } else if (how === 'remove') {
            entries.splice(at, 1);
            expect(verifyAuditChain(entries, head)).toMatchObject({ seq: at + 1 });
          } else {
            entries.pop();
            expect(verifyAuditChain(entries, head)).toMatchObject({ seq: entries.length + 1 });
          }
        },
      ),
    );
  });

  it('hashes SHA-256 over the previous hash, a newline and the body (UTF-8)', () => {
    // Computed by OpenSSL (node:crypto), not by the implementation under test.
    expect(auditEntryHash(AUDIT_GENESIS_HASH, '{}')).toBe(
      '5649d09ed68c17156095d175eef152856c5b1a81c117c409c1e00f096aa6838e',
    );
    const body = '{"name":"Zoë ✓"}';
    expect(auditEntryHash('ab'.repeat(32), body)).toBe(
      createHash('sha256')
        .update(`${'ab'.repeat(32)}\n${body}`, 'utf8')
        .digest('hex'),
    );
  });
});
