/**
 * Units of work started at the same time. A store with a pool runs them concurrently and must
 * still give serializable answers; a serialized store must give the same answers.
 */
import assert from 'node:assert/strict';
import {
  depositJournal,
  isStoreFailure,
  money,
  payInJournal,
  payoutHoldJournal,
  payoutReleaseJournal,
  type StoreFailureReason,
} from '@payrail/core';
import { fund, type SuiteContext, t0 } from './conformance-context.js';
import { recordFixtures, samplePayout } from './fixtures.js';
import { assertReplays } from './ledger-replay.js';
import { outboxMessage } from './outbox.conformance.js';

/** The refusal reasons of the rejected results, counted. */
const refusals = (results: readonly PromiseSettledResult<unknown>[]) => {
  const counts = new Map<StoreFailureReason | 'other', number>();
  for (const result of results) {
    if (result.status === 'fulfilled') continue;
    const reason = isStoreFailure(result.reason) ? result.reason.reason : 'other';
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return Object.fromEntries(counts);
};

const fulfilled = (results: readonly PromiseSettledResult<unknown>[]) =>
  results.filter((result) => result.status === 'fulfilled').length;

// The heavy tests get more time on a database than the runner's default.
const heavy = 120_000;

export const concurrencyConformance = (ctx: SuiteContext): void => {
  const { test } = ctx;

  test(
    '50 concurrent inserts of one reference: exactly one row, 49 unique violations',
    async (h) => {
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) =>
          h.store.transaction((tx) =>
            tx.payouts.insert(
              samplePayout({ n: i, scope: 'acc_1', createdAt: t0 }, { reference: 'inv-race' }),
            ),
          ),
        ),
      );
      assert.equal(fulfilled(results), 1);
      assert.deepEqual(refusals(results), { unique_violation: 49 });
      assert.equal(await h.oracle.count('payouts'), 1);
    },
    heavy,
  );

  test(
    '20 accounts binding one provider payment id at once, each crediting it: one binding, one credit (a payment id binds one order across accounts)',
    async (h) => {
      const accounts = Array.from({ length: 20 }, (_, i) => `acc_${i + 1}`);
      const results = await Promise.allSettled(
        accounts.map((account, i) =>
          h.store.transaction(async (tx) => {
            await tx.acquiringPayments.insert({
              ...recordFixtures.acquiringPayments.build({ n: i, scope: account, createdAt: t0 }),
              payment_id: 'pay_race',
            });
            await tx.ledger.post(
              payInJournal(
                { accountId: account, businessId: 'pay_race' },
                money('USDT', '5.000000'),
              ),
              t0 + 1,
            );
          }),
        ),
      );
      assert.equal(fulfilled(results), 1);
      assert.deepEqual(refusals(results), { unique_violation: 19 });
      assert.equal(await h.oracle.count('acquiringPayments'), 1);
      const credits = (await h.oracle.journalIds()).filter((id) => id === 'pay_race:pay_in');
      assert.equal(credits.length, 1);
    },
    heavy,
  );

  test(
    '100 concurrent holds of 1.00 on 10.00: 10 holds, 90 refusals, never negative',
    async (h) => {
      await fund(h, 'acc_1', '10.00');
      const results = await Promise.allSettled(
        Array.from({ length: 100 }, (_, i) =>
          h.store.transaction((tx) =>
            tx.ledger.post(
              payoutHoldJournal(
                { accountId: 'acc_1', businessId: `po_${i}` },
                money('USD', '1.00'),
              ),
              t0 + 1,
            ),
          ),
        ),
      );
      assert.equal(fulfilled(results), 10);
      assert.deepEqual(refusals(results), { insufficient_balance: 90 });
      const balances = await h.store.transaction((tx) => tx.ledger.balances('acc_1'));
      assert.deepEqual(balances, [{ currency: 'USD', available: '0.00', held: '10.00' }]);
      const holds = (await h.oracle.journalIds()).filter((id) => id.endsWith(':payout_hold'));
      assert.equal(holds.length, 10);
      await assertReplays(h, 'acc_1');
    },
    heavy,
  );

  test(
    '90 units of work posting to one account at once (deposits, holds, hold and release), in two seconds: the ledger replays to the balances',
    async (h) => {
      await fund(h, 'acc_1', '10.00');
      const head = (businessId: string) => ({ accountId: 'acc_1', businessId });
      const one = money('USD', '1.00');
      const results = await Promise.allSettled(
        Array.from({ length: 90 }, (_, i) =>
          h.store.transaction(async (tx) => {
            // Dated in two seconds, so a unit of work may post before one dated earlier.
            const at = t0 + 1 + (i % 2);
            if (i % 3 === 0) return tx.ledger.post(depositJournal(head(`dep_${i}`), one), at);
            await tx.ledger.post(payoutHoldJournal(head(`po_${i}`), one), at);
            if (i % 3 === 2) await tx.ledger.post(payoutReleaseJournal(head(`po_${i}`), one), at);
          }),
        ),
      );
      const refused = refusals(results);
      assert.deepEqual(
        Object.keys(refused).filter((r) => r !== 'insufficient_balance'),
        [],
      );
      // Every deposit lands; a hold kept takes 1.00 from available into held.
      const kept = (await h.oracle.journalIds()).filter((id) => id.endsWith(':payout_hold'));
      const released = (await h.oracle.journalIds()).filter((id) => id.endsWith(':payout_release'));
      const held = kept.length - released.length;
      const balances = await h.store.transaction((tx) => tx.ledger.balances('acc_1'));
      assert.deepEqual(balances, [
        { currency: 'USD', available: `${10 + 30 - held}.00`, held: `${held}.00` },
      ]);
      await assertReplays(h, 'acc_1');
    },
    heavy,
  );

  test(
    'two workers draining 1000 outbox rows claim each exactly once',
    async (h) => {
      const ids = Array.from({ length: 1000 }, (_, i) => `ob_${String(i).padStart(4, '0')}`);
      await h.store.transaction((tx) =>
        tx.outbox.enqueue(ids.map((id) => outboxMessage(id, { created_at: t0 }))),
      );
      const drain = async (worker: string): Promise<string[]> => {
        const claimed: string[] = [];
        for (;;) {
          const batch = await h.store.transaction((tx) =>
            tx.outbox.claim({ worker, now: t0 + 1, limit: 50, leaseSeconds: 600 }),
          );
          if (batch.length === 0) return claimed;
          claimed.push(...batch.map((message) => message.outbox_id));
          const settled = await h.store.transaction(async (tx) => {
            let done = 0;
            for (const message of batch) {
              if (await tx.outbox.complete(message.outbox_id, worker)) done++;
            }
            return done;
          });
          assert.equal(settled, batch.length, `${worker} completes everything it claimed`);
        }
      };
      const [first, second] = await Promise.all([drain('w1'), drain('w2')]);
      const all = [...first, ...second];
      assert.equal(all.length, 1000);
      assert.equal(new Set(all).size, 1000);
      const outbox = await h.oracle.outbox();
      assert.equal(outbox.filter((message) => message.status === 'delivered').length, 1000);
    },
    heavy,
  );
};
