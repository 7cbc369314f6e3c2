/** What the maps hold: anything but `undefined`. */
type Stored = NonNullable<unknown> | null;

/**
 * The memory store's atomicity: a unit of work writes the live maps directly and records how to
 * put back each entry it touched, so an abort costs as much as the work did, never a copy of the
 * whole store. Stored values are never mutated in place; a write replaces them, and none is
 * `undefined`, so `get` tells a missing entry from a stored one.
 */
export class UndoLog {
  private readonly steps: (() => void)[] = [];

  set<K, V extends Stored>(map: Map<K, V>, key: K, value: V): void {
    this.remember(map, key);
    map.set(key, value);
  }

  delete<K, V extends Stored>(map: Map<K, V>, key: K): void {
    if (!map.has(key)) return;
    this.remember(map, key);
    map.delete(key);
  }

  /** Puts back everything written since the log began, newest first. */
  rollback(): void {
    for (let i = this.steps.length - 1; i >= 0; i--) this.steps[i]?.();
    this.steps.length = 0;
  }

  private remember<K, V extends Stored>(map: Map<K, V>, key: K): void {
    const previous = map.get(key);
    if (previous !== undefined) {
      this.steps.push(() => map.set(key, previous));
    } else {
      this.steps.push(() => map.delete(key));
    }
  }
}
