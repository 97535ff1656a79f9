/**
 * A lookup index on a value several records of an organization may share (an address, a
 * public key): it names the first record inserted with the value, as the SQL store's
 * `ORDER BY seq LIMIT 1` does, and when that record is deleted, the next one that holds it.
 * Writes go through the transaction's undo journal.
 * @module
 */
import type { Journal } from './journal.js';
import { k } from './memory-table.js';

/**
 * The first holder of each value, per organization.
 * @example
 * const byPublicKey = new FirstHolderIndex((a: WalletAccountRecord) => [a.publicKey], (a) => a.walletAccountId);
 * byPublicKey.add(journal, account);
 * byPublicKey.get(organizationId, publicKey); // the account's id
 */
export class FirstHolderIndex<R extends { organizationId: string }> {
  private readonly entries = new Map<string, string>();

  constructor(
    private readonly valuesOf: (record: R) => readonly string[],
    private readonly idOf: (record: R) => string,
  ) {}

  /** The id of the first record of the organization holding the value. */
  get(organizationId: string, value: string): string | undefined {
    return this.entries.get(k(organizationId, value));
  }

  /** A record was inserted: it holds the values nobody held yet. */
  add(j: Journal, record: R): void {
    for (const value of this.valuesOf(record)) {
      const key = k(record.organizationId, value);
      if (!this.entries.has(key)) j.set(this.entries, key, this.idOf(record));
    }
  }

  /**
   * A record was deleted: the values it held go to the first of `rest` (the organization's
   * remaining records, in insertion order) that holds them too.
   */
  remove(j: Journal, record: R, rest: readonly R[]): void {
    for (const value of this.valuesOf(record)) {
      const key = k(record.organizationId, value);
      if (this.entries.get(key) !== this.idOf(record)) continue;
      const next = rest.find((r) => this.valuesOf(r).includes(value));
      if (next) j.set(this.entries, key, this.idOf(next));
      else j.delete(this.entries, key);
    }
  }
}
