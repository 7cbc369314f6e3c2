import assert from 'node:assert/strict';
import { runStoreConformance } from '@payrail/store-testkit';
import { describe, it } from 'vitest';
import { createMemoryHarness } from './memory-harness.test-support.js';
import { createMemoryStore } from './memory-store.js';
import { memoryOracle } from './testing/index.js';

runStoreConformance({
  name: 'memory',
  describe,
  it,
  createHarness: createMemoryHarness,
  createModel: createMemoryHarness,
  capabilities: {
    concurrentTransactions: {
      supported: false,
      reason: 'units of work are serialized in one process',
    },
    durable: { supported: false, reason: 'memory is lost when the process ends' },
  },
});

const merchant = (n: number) => ({
  merchant_id: `mer_${n}`,
  name: `Merchant ${n}`,
  status: 'active' as const,
  created_at: 1,
  updated_at: 1,
});

describe('memory store: what the conformance suite cannot reach', () => {
  it('runs units of work one at a time: a read-then-write never interleaves', async () => {
    const store = createMemoryStore();
    await store.transaction((tx) => tx.merchants.insert(merchant(1)));
    const bump = () =>
      store.transaction(async (tx) => {
        const current = await tx.merchants.get('mer_1');
        assert.ok(current);
        // Yield to the event loop between the read and the write.
        await new Promise((resolve) => setTimeout(resolve, 5));
        return tx.merchants.update({ ...current, updated_at: current.updated_at + 1 });
      });
    await Promise.all([bump(), bump(), bump()]);
    const stored = await memoryOracle(store).record('merchants', 'mer_1');
    assert.deepEqual(stored, { ...merchant(1), updated_at: 4, version: 4 });
  });

  it('refuses a transaction object kept past its unit of work', async () => {
    const store = createMemoryStore();
    const leaked = await store.transaction(async (tx) => tx);
    await assert.rejects(leaked.merchants.insert(merchant(1)), /already ended/);
    await assert.rejects(leaked.ledger.balances('acc_1'), /already ended/);
    assert.equal(await memoryOracle(store).count('merchants'), 0);
  });

  it('close waits for queued units of work, then refuses new ones', async () => {
    const store = createMemoryStore();
    const queued = store.transaction(async (tx) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return tx.merchants.insert(merchant(1));
    });
    await store.close();
    assert.equal(store.closed, true);
    assert.equal((await queued).version, 1);
    await assert.rejects(
      store.transaction(async () => 1),
      /closed/,
    );
  });

  it('findUnique on fields that are not a unique key is a programming error', async () => {
    const store = createMemoryStore();
    await assert.rejects(
      store.transaction((tx) => tx.payouts.findUnique({ reference: 'ref_1' })),
      /no unique key \(reference\)/,
    );
  });

  it('memoryOracle refuses a store it did not make', () => {
    const impostor = { closed: false, transaction: async () => undefined, close: async () => {} };
    assert.throws(
      () => memoryOracle(impostor as unknown as Parameters<typeof memoryOracle>[0]),
      /createMemoryStore/,
    );
  });
});
