/**
 * The conformance suite on the embedded default's database: a PostgreSQL 18 server that the store
 * starts under a data directory (ADR 0037), shared by the file's stores in schemas of their own.
 * What only `createEmbeddedPostgresStore` does (owning the server, the lock, durability across a
 * full stop) is in embedded-postgres-store.test.ts.
 */
import { runStoreConformance } from '@payrail/store-testkit';
import { afterAll, describe, it } from 'vitest';
import { memoryModel } from './memory-model.test-support.js';
import { embeddedServerForTests, serverStores } from './postgres-harness.test-support.js';

const server = await embeddedServerForTests();
const stores = serverStores({}, server.url);
afterAll(async () => {
  await stores.close();
  await server.stop();
});

runStoreConformance({
  name: 'embedded PostgreSQL',
  describe,
  it,
  createHarness: () => stores.harness(),
  reopen: (harness) => stores.reopen(harness),
  capabilities: {
    concurrentTransactions: { supported: true },
    durable: { supported: true },
  },
  createModel: memoryModel,
  modelRuns: 100,
});
