/**
 * The conformance suite on a real PostgreSQL server (`DATABASE_URL`, or the local default), in
 * schemas of this run's own. In CI a missing server fails these tests instead of skipping them.
 */
import { runStoreConformance } from '@payrail/store-testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryModel } from './memory-model.test-support.js';
import {
  probeServer,
  serverForTests,
  serverStores,
  serverUrl,
} from './postgres-harness.test-support.js';

const server = await serverForTests();

describe.skipIf(server.skip)('PostgreSQL server', () => {
  const stores = serverStores();
  afterAll(() => stores.close());

  it(`a PostgreSQL server answers at ${serverUrl}`, async () => {
    expect(await probeServer()).toEqual({ available: true, reason: '' });
  });

  runStoreConformance({
    name: 'postgres',
    describe,
    it,
    createHarness: () => stores.harness(),
    // A new pool on the same schema: the data lives on the server, and migrating again is a no-op.
    reopen: (harness) => stores.reopen(harness),
    capabilities: {
      concurrentTransactions: { supported: true },
      durable: { supported: true },
    },
    createModel: memoryModel,
    // Each sequence opens a pool on the server and a memory store; 100 keep the file within seconds.
    modelRuns: 100,
  });
});
