/**
 * The unit of work: what it wrote commits when it resolves, and nothing does when it throws,
 * checked through the oracle. The crash-safety test aborts one unit of work that touches every
 * port after each of its steps.
 */
import assert from 'node:assert/strict';
import { depositJournal, money, type StoreTransaction } from '@payrail/core';
import { assertRefused, type SuiteContext, t0 } from './conformance-context.js';
import { samplePayout } from './fixtures.js';
import type { StoreHarness } from './harness.js';
import { idempotencyRecord } from './idempotency.conformance.js';
import { outboxMessage } from './outbox.conformance.js';
import { timerRecord } from './timers.conformance.js';

const account = 'acc_uow';
const payout = samplePayout({ n: 1, scope: account, createdAt: t0 });

/** The writes of one payout creation, in order: every port once. */
const steps: readonly ((tx: StoreTransaction) => Promise<unknown>)[] = [
  (tx) => tx.payouts.insert(payout),
  async (tx) => {
    const stored = await tx.payouts.get(payout.payout_id);
    assert.ok(stored, 'the unit of work reads its own insert');
    return tx.payouts.update({ ...stored, status: 'processing', updated_at: t0 + 1 });
  },
  (tx) =>
    tx.ledger.post(
      depositJournal({ accountId: account, businessId: 'dep_1' }, money('USD', '10.00')),
      t0,
    ),
  (tx) => tx.outbox.enqueue([outboxMessage('ob_1', { account_id: account })]),
  (tx) => tx.timers.set(timerRecord('po_000001', t0 + 60, 'payout.execute')),
  (tx) => tx.idempotency.put(idempotencyRecord(`${account}:payout.create`, 'k1')),
];

class Crash extends Error {}

/** Everything the oracle sees, in a form that compares as a whole. */
const everything = async (h: StoreHarness) => ({
  payouts: await h.oracle.count('payouts'),
  payout: await h.oracle.record('payouts', payout.payout_id),
  journals: await h.oracle.journalIds(),
  postings: (await h.oracle.postings()).length,
  outbox: (await h.oracle.outbox()).length,
  timers: (await h.oracle.timers()).length,
  idempotency: await h.oracle.idempotencyCount(),
});

const nothing = {
  payouts: 0,
  payout: undefined,
  journals: [],
  postings: 0,
  outbox: 0,
  timers: 0,
  idempotency: 0,
};

export const unitOfWorkConformance = (ctx: SuiteContext): void => {
  const { test } = ctx;

  test('a unit of work answers what its work answers, and its writes commit', async (h) => {
    const answer = await h.store.transaction(async (tx) => {
      for (const step of steps) await step(tx);
      return 'done';
    });
    assert.equal(answer, 'done');
    assert.deepEqual(await everything(h), {
      payouts: 1,
      payout: { ...payout, status: 'processing', updated_at: t0 + 1, version: 2 },
      journals: ['dep_1:deposit'],
      postings: 2,
      outbox: 1,
      timers: 1,
      idempotency: 1,
    });
  });

  test('crash safety: aborted after each step k = 0..6, nothing is committed', async (h) => {
    for (let k = 0; k <= steps.length; k++) {
      const crash = new Crash(`crash after step ${k}`);
      await assert.rejects(
        h.store.transaction(async (tx) => {
          for (const step of steps.slice(0, k)) await step(tx);
          throw crash;
        }),
        (error: unknown) => error === crash,
      );
      assert.deepEqual(await everything(h), nothing, `after an abort at step ${k}`);
      const balances = await h.store.transaction((tx) => tx.ledger.balances(account));
      assert.deepEqual(balances, [], `balances after an abort at step ${k}`);
    }
    await h.store.transaction(async (tx) => {
      for (const step of steps) await step(tx);
    });
    assert.equal((await everything(h)).payouts, 1);
    assert.equal((await everything(h)).idempotency, 1);
    const balances = await h.store.transaction((tx) => tx.ledger.balances(account));
    assert.deepEqual(balances, [{ currency: 'USD', available: '10.00', held: '0.00' }]);
  });

  test('a store refusal late in a unit of work undoes all of it; earlier data stays', async (h) => {
    await h.store.transaction((tx) =>
      tx.idempotency.put(idempotencyRecord(`${account}:payout.create`, 'k1')),
    );
    await assertRefused(
      h.store.transaction(async (tx) => {
        for (const step of steps) await step(tx);
      }),
      'unique_violation',
      ['scope', 'key'],
    );
    assert.deepEqual(await everything(h), { ...nothing, idempotency: 1 });
  });

  test('an aborted update leaves the stored version and fields as they were', async (h) => {
    const inserted = await h.store.transaction((tx) => tx.payouts.insert(payout));
    await assert.rejects(
      h.store.transaction(async (tx) => {
        await tx.payouts.update({ ...inserted, status: 'failed', reference: 'ref_moved' });
        throw new Crash();
      }),
      Crash,
    );
    assert.deepEqual(await h.oracle.record('payouts', payout.payout_id), inserted);
    // The unique key it would have moved to is still free, and the old one still taken.
    await h.store.transaction((tx) =>
      tx.payouts.insert(
        samplePayout({ n: 2, scope: account, createdAt: t0 }, { reference: 'ref_moved' }),
      ),
    );
    await assertRefused(
      h.store.transaction((tx) =>
        tx.payouts.insert(
          samplePayout({ n: 3, scope: account, createdAt: t0 }, { reference: payout.reference }),
        ),
      ),
      'unique_violation',
      ['account_id', 'reference'],
    );
  });

  test('a unit of work reads its own writes before it commits', async (h) => {
    const seen = await h.store.transaction(async (tx) => {
      await steps[0]?.(tx);
      await steps[3]?.(tx);
      await steps[4]?.(tx);
      await steps[5]?.(tx);
      return {
        payout: await tx.payouts.findUnique({ account_id: account, reference: payout.reference }),
        outbox: await tx.outbox.get('ob_1'),
        timer: await tx.timers.get('payout.execute:po_000001'),
        idempotency: await tx.idempotency.get(`${account}:payout.create`, 'k1'),
        page: await tx.payouts.list({ scope: account, limit: 10, offset: 0 }),
      };
    });
    assert.deepEqual(seen.payout, { ...payout, version: 1 });
    assert.equal(seen.outbox?.status, 'pending');
    assert.equal(seen.timer?.due_at, t0 + 60);
    assert.equal(seen.idempotency?.resource_id, 'po_k1');
    assert.equal(seen.page.total, 1);
  });
};
