/**
 * An undo journal over Maps: every write inside a transaction records how to reverse it, so
 * a failed transaction leaves the maps exactly as they were. One journal serves every
 * transaction of a store in turn (they run one at a time), so the repositories that write
 * through it are built once per store, not once per transaction; a write outside a
 * transaction is refused.
 * @module
 */
export class Journal {
  private readonly undo: (() => void)[] = [];
  private open = false;

  /** A transaction starts: writes are recorded from now on. */
  begin(): void {
    this.undo.length = 0;
    this.open = true;
  }

  /** The transaction committed: its writes stay. */
  commit(): void {
    this.undo.length = 0;
    this.open = false;
  }

  private assertOpen(): void {
    if (!this.open) throw new Error('transaction is closed: it committed or rolled back');
  }

  set<K, V>(map: Map<K, V>, key: K, value: V): void {
    this.assertOpen();
    const had = map.has(key);
    const previous = map.get(key);
    map.set(key, value);
    this.undo.push(() => (had ? map.set(key, previous as V) : map.delete(key)));
  }

  delete<K, V>(map: Map<K, V>, key: K): void {
    this.assertOpen();
    if (!map.has(key)) return;
    const previous = map.get(key) as V;
    map.delete(key);
    this.undo.push(() => map.set(key, previous));
  }

  /** Records an arbitrary reversal (for sorted lists). */
  onRollback(step: () => void): void {
    this.assertOpen();
    this.undo.push(step);
  }

  /** Where the journal stands now: `rollbackTo` it to undo only what came after. */
  mark(): number {
    this.assertOpen();
    return this.undo.length;
  }

  /** Reverses the writes made since `mark`, newest first; the transaction stays open. */
  rollbackTo(mark: number): void {
    this.assertOpen();
    while (this.undo.length > mark) this.undo.pop()!();
  }

  /** The transaction failed: every write is reversed, newest first. */
  rollback(): void {
    for (let i = this.undo.length - 1; i >= 0; i--) this.undo[i]!();
    this.undo.length = 0;
    this.open = false;
  }
}
