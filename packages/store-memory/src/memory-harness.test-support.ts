import type { StoreHarness } from '@payrail/store-testkit';
import { memoryOracle } from './memory-oracle.js';
import { createMemoryStore } from './memory-store.js';

export const createMemoryHarness = async (): Promise<StoreHarness> => {
  const store = createMemoryStore();
  return { store, oracle: memoryOracle(store), close: () => store.close() };
};
