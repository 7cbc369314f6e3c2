/**
 * The conformance suite on PGlite: in memory, and on a data directory that is closed and opened
 * again. One PGlite instance per variant (starting PGlite takes seconds).
 */
import { runStoreConformance } from '@payrail/store-testkit';
import { afterAll, describe, it } from 'vitest';
import { memoryModel } from './memory-model.test-support.js';
import { pgliteStores } from './postgres-harness.test-support.js';

const serialized = {
  supported: false,
  reason: 'PGlite is one connection: units of work run one after another',
} as const;

const inMemory = pgliteStores('memory');
const onDisk = pgliteStores('directory');
afterAll(async () => {
  await inMemory.close();
  await onDisk.close();
});

runStoreConformance({
  name: 'pglite in memory',
  describe,
  it,
  createHarness: () => inMemory.harness(),
  capabilities: {
    concurrentTransactions: serialized,
    durable: { supported: false, reason: 'in memory: the data ends with the instance' },
  },
  createModel: memoryModel,
  // Each sequence opens a store on PGlite and one in memory; 200 keep the file within seconds.
  modelRuns: 200,
});

runStoreConformance({
  name: 'pglite on a data directory',
  describe,
  it,
  createHarness: () => onDisk.harness(),
  reopen: (harness) => onDisk.reopen(harness),
  capabilities: { concurrentTransactions: serialized, durable: { supported: true } },
});
