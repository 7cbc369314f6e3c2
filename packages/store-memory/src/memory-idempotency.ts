/** Idempotency records in memory, unique per (scope, key). */
import { type IdempotencyPort, type IdempotencyRecord, StoreFailure } from '@payrail/core';
import type { MemoryState } from './memory-state.js';
import type { UndoLog } from './undo-log.js';

const keyOf = (scope: string, key: string): string => JSON.stringify([scope, key]);

export const memoryIdempotency = (
  state: MemoryState,
  undo: UndoLog,
  guard: () => void,
): IdempotencyPort => ({
  async put(record: IdempotencyRecord): Promise<void> {
    guard();
    const key = keyOf(record.scope, record.key);
    if (state.idempotency.has(key)) {
      throw new StoreFailure('unique_violation', 'idempotency', ['scope', 'key']);
    }
    undo.set(state.idempotency, key, structuredClone(record));
  },

  async get(scope: string, key: string): Promise<IdempotencyRecord | undefined> {
    guard();
    const record = state.idempotency.get(keyOf(scope, key));
    return record === undefined ? undefined : structuredClone(record);
  },
});
