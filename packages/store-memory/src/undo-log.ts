/**
 * The memory store's atomicity: a unit of work writes the live maps directly and records how to
 * put back each entry it touched, so an abort costs as much as the work did, never a copy of the
 * whole store. Stored values are never mutated in place; a write replaces them.
 */
export class UndoLog {
  private readonly steps: (() => void)[] = [];

  set<K, V>(map: Map<K, V>, key: K, value: V): void {
    this.remember(map, key);
    map.set(key, value);
  }

  delete<K, V>(map: Map<K, V>, key: K): void {
    if (!map.has(key)) return;
    this.remember(map, key);
    map.delete(key);
  }

  /** Puts back everything written since the log began, newest first. */
  rollback(): void {
    for (let i = this.steps.length - 1; i >= 0; i--) this.steps[i]?.();
    this.steps.length = 0;
  }

  private remember<K, V>(map: Map<K, V>, key: K): void {
    if (map.has(key)) {
      const previous = map.get(key) as V;
      this.steps.push(() => map.set(key, previous));
    } else {
      this.steps.push(() => map.delete(key));
    }
  }
}
