/**
 * `StoreTransaction.savepoint` over SQL, with the SAVEPOINT sent only when needed: the first
 * statement inside `run` that is not a SELECT sets it. Work that only reads — signing, the most
 * common activity — costs no round trip; work that writes costs one, and one more to roll back
 * when it fails. Savepoints are never released: each ends with its transaction, and an
 * activity takes at most one.
 * @module
 */
import type { SqlClient } from './sql-client.js';

interface Frame {
  readonly name: string;
  set: boolean;
}

/**
 * Wraps one transaction's client.
 * @example
 * const savepoints = new LazySavepoints(client);
 * const tx = transactionOver(savepoints.client);
 * await savepoints.run(() => tx.wallets.insert(wallet)); // SAVEPOINT sp_1; INSERT …
 */
export class LazySavepoints {
  private readonly frames: Frame[] = [];
  private count = 0;
  /** The client the repositories use: it sets wanted savepoints before a write. */
  readonly client: SqlClient;

  constructor(private readonly inner: SqlClient) {
    this.client = {
      query: async (text, params, fixed, last) => {
        if (this.frames.length > 0 && !isRead(text)) await this.setWanted();
        return inner.query(text, params, fixed, last);
      },
      exec: async (script) => {
        if (this.frames.length > 0) await this.setWanted();
        await inner.exec(script);
      },
    };
  }

  /** Runs `work`; when it throws after writing, rolls its writes back and rethrows. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const frame: Frame = { name: `keyhold_savepoint_${++this.count}`, set: false };
    this.frames.push(frame);
    try {
      return await work();
    } catch (error) {
      if (frame.set) await this.inner.query(`ROLLBACK TO SAVEPOINT ${frame.name}`);
      throw error;
    } finally {
      this.frames.splice(this.frames.indexOf(frame), 1);
    }
  }

  private async setWanted(): Promise<void> {
    for (const frame of this.frames) {
      if (frame.set) continue;
      await this.inner.query(`SAVEPOINT ${frame.name}`);
      frame.set = true;
    }
  }
}

/** A statement that changes nothing (a plain SELECT; `FOR UPDATE` locks, which stay). */
export function isRead(text: string): boolean {
  return /^\s*select\b/i.test(text);
}
