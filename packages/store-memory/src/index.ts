/**
 * @payrail/store-memory: the reference store. Every port in memory, units of work serialized and
 * undone on failure; graded by @payrail/store-testkit like every other store.
 */
export { createMemoryStore, type MemoryStore } from './memory-store.js';
