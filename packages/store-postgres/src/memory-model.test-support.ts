/**
 * The reference store as the model of the conformance suite's model-based run. Only tests import
 * it: `@payrail/store-memory` is a dev dependency, and the store's own source never imports
 * another store.
 */
import { createMemoryStore } from '@payrail/store-memory';
import { memoryOracle } from '@payrail/store-memory/testing';
import type { StoreHarness } from '@payrail/store-testkit';

export const memoryModel = async (): Promise<StoreHarness> => {
  const store = createMemoryStore();
  return { store, oracle: memoryOracle(store), close: () => store.close() };
};
