/**
 * An undo journal over Maps: every write inside a transaction records how to reverse it, so
 * a failed transaction leaves the maps exactly as they were.
 * @module
 */
export class Journal {
  private readonly undo: (() => void)[] = [];

  set<K, V>(map: Map<K, V>, key: K, value: V): void {
    const had = map.has(key);
    const previous = map.get(key);
    map.set(key, value);
    this.undo.push(() => (had ? map.set(key, previous as V) : map.delete(key)));
  }

  delete<K, V>(map: Map<K, V>, key: K): void {
    if (!map.has(key)) return;
    const previous = map.get(key) as V;
    map.delete(key);
    this.undo.push(() => map.set(key, previous));
  }

  /** Records an arbitrary reversal (for sorted lists). */
  onRollback(step: () => void): void {
    this.undo.push(step);
  }

  rollback(): void {
    for (let i = this.undo.length - 1; i >= 0; i--) this.undo[i]!();
    this.undo.length = 0;
  }
}
