/**
 * Reads what a memory store really holds straight from its maps, never through its ports, so the
 * conformance suite can check the store's answers against an independent path. It reads the
 * committed state between units of work (a unit of work in progress writes the maps directly).
 * The shape is the core's `StoreOracle` port.
 */
import type { StoreOracle } from '@payrail/core';
import { collectionStateOf } from '../memory-state.js';
import { type MemoryStore, memoryStateOf } from '../memory-store.js';

/** The core's `StoreOracle`, by the name this store gives it. */
export type MemoryOracle = StoreOracle;

export const memoryOracle = (store: MemoryStore): MemoryOracle => {
  const state = memoryStateOf(store);
  return {
    async record(collection, id) {
      return structuredClone(collectionStateOf(state, collection).rows.get(String(id)));
    },
    async count(collection) {
      return collectionStateOf(state, collection).rows.size;
    },
    async postings() {
      return [...state.journals.values()].flatMap(({ journal }) =>
        journal.postings.map((p) => ({ ...p, journal_id: journal.journalId })),
      );
    },
    async journalIds() {
      return [...state.journals.keys()];
    },
    async outbox() {
      return [...state.outbox.values()].map((stored) => structuredClone(stored.message));
    },
    async timers() {
      return [...state.timers.values()].map((stored) => structuredClone(stored.timer));
    },
    async idempotencyCount() {
      return state.idempotency.size;
    },
    async environment() {
      return state.environment;
    },
  };
};
