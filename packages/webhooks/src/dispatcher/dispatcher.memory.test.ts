/** The dispatcher suite on the memory store (one process: a second "store" is the same one). */
import { createMemoryStore } from '@payrail/store-memory';
import { memoryOracle } from '@payrail/store-memory/testing';
import { runDispatcherSuite } from './dispatcher.suite.test-support.js';

runDispatcherSuite({
  name: 'the memory store',
  open: async () => {
    const store = createMemoryStore();
    const oracle = memoryOracle(store);
    return {
      store,
      outbox: () => oracle.outbox(),
      another: async () => store,
      close: async () => undefined,
    };
  },
});
