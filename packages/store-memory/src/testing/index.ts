/**
 * @payrail/store-memory/testing: the oracle that reads a memory store back without its ports, for
 * the conformance suite (`@payrail/store-testkit`) and tests that check what was really stored.
 * A host running payrail has no use for it, so it stays out of the package's main entry.
 */

export { countingStore } from './counting-store.js';
export { type MemoryOracle, memoryOracle } from './memory-oracle.js';
