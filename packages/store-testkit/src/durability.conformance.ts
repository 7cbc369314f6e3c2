/**
 * Durable stores: what a unit of work committed is still there after the store is closed and
 * opened again on the same data; what an aborted one wrote is still absent; posting order carries
 * on where it was rather than starting over; the recorded environment is still the one recorded.
 */
import assert from 'node:assert/strict';
import { depositJournal, money } from '@payrail/core';
import { t0 } from './conformance-context.js';
import { samplePayout } from './fixtures.js';
import type { ConformanceOptions, StoreHarness } from './harness.js';
import { idempotencyRecord } from './idempotency.conformance.js';
import { outboxMessage } from './outbox.conformance.js';
import { timerRecord } from './timers.conformance.js';

export const durabilityConformance = (
  options: ConformanceOptions,
  reopen: (harness: StoreHarness) => Promise<StoreHarness>,
): void => {
  options.it(
    'committed data survives closing and reopening the store; aborted data does not',
    async () => {
      let harness = await options.createHarness();
      try {
        const payout = samplePayout({ n: 1, scope: 'acc_1', createdAt: t0 });
        const inserted = await harness.store.transaction(async (tx) => {
          const stored = await tx.payouts.insert(payout);
          await tx.ledger.post(
            depositJournal({ accountId: 'acc_1', businessId: 'dep_1' }, money('USD', '10.00')),
            t0,
          );
          await tx.outbox.enqueue([outboxMessage('ob_1')]);
          await tx.timers.set(timerRecord('ord_1', t0 + 60));
          await tx.idempotency.put(idempotencyRecord('acc_1', 'k1'));
          return stored;
        });
        await assert.rejects(
          harness.store.transaction(async (tx) => {
            await tx.payouts.insert(samplePayout({ n: 2, scope: 'acc_1', createdAt: t0 }));
            throw new Error('crash');
          }),
        );
        await harness.store.close();
        harness = await reopen(harness);
        const seen = await harness.store.transaction(async (tx) => ({
          payout: await tx.payouts.get(payout.payout_id),
          aborted: await tx.payouts.get(
            samplePayout({ n: 2, scope: 'acc_1', createdAt: t0 }).payout_id,
          ),
          balances: await tx.ledger.balances('acc_1'),
          outbox: await tx.outbox.get('ob_1'),
          timer: await tx.timers.get('order.expiry:ord_1'),
          idempotency: await tx.idempotency.get('acc_1', 'k1'),
        }));
        assert.deepEqual(seen, {
          payout: inserted,
          aborted: undefined,
          balances: [{ currency: 'USD', available: '10.00', held: '0.00' }],
          outbox: { ...outboxMessage('ob_1'), status: 'pending', attempts: 0 },
          timer: timerRecord('ord_1', t0 + 60),
          idempotency: idempotencyRecord('acc_1', 'k1'),
        });
        assert.equal(await harness.oracle.count('payouts'), 1);
        assert.deepEqual(await harness.oracle.journalIds(), ['dep_1:deposit']);
        // Same second, an id that sorts first: only a posting order that survived the reopen
        // still lists it after the journal posted before.
        await harness.store.transaction((tx) =>
          tx.ledger.post(
            depositJournal({ accountId: 'acc_1', businessId: 'a_dep' }, money('USD', '1.00')),
            t0,
          ),
        );
        const ledger = await harness.store.transaction((tx) =>
          tx.ledger.entries({ accountId: 'acc_1', sort: 'asc', limit: 10, offset: 0 }),
        );
        assert.deepEqual(
          ledger.items.map((entry) => entry.journal_id),
          ['dep_1:deposit', 'a_dep:deposit'],
        );
      } finally {
        await harness.close();
      }
    },
  );

  options.it('the recorded environment survives closing and reopening the store', async () => {
    let harness = await options.createHarness();
    try {
      assert.equal(await harness.store.claimEnvironment('sandbox'), 'sandbox');
      await harness.store.close();
      harness = await reopen(harness);
      assert.equal(await harness.oracle.environment(), 'sandbox');
      assert.equal(await harness.store.claimEnvironment('live'), 'sandbox');
    } finally {
      await harness.close();
    }
  });
};
