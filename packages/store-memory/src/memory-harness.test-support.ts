import type { StoreHarness } from '@payrail/store-testkit';
import { createMemoryStore } from './memory-store.js';
import { memoryOracle } from './testing/index.js';

export const createMemoryHarness = async (): Promise<StoreHarness> => {
  const store = createMemoryStore();
  return { store, oracle: memoryOracle(store), close: () => store.close() };
};
