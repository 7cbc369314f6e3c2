/**
 * Claims by work bucket (ADR 0053): a claim given buckets hands out only the due work of
 * accounts in those buckets, claimers of disjoint buckets never receive the same row, and a
 * claim naming every bucket answers what a claim naming none does, which is the claim as it
 * always was.
 */
import assert from 'node:assert/strict';
import {
  type ClaimOptions,
  type NewOutboxMessage,
  workBucketCount,
  workBucketOf,
} from '@payrail/core';
import { type SuiteContext, t0 } from './conformance-context.js';
import type { StoreHarness } from './harness.js';
import { outboxMessage } from './outbox.conformance.js';
import { timerRecord } from './timers.conformance.js';

/** The first account id `acc_<n>` whose bucket is `bucket`. */
const accountInBucket = (bucket: number): string => {
  for (let n = 0; ; n++) {
    if (workBucketOf(`acc_${n}`) === bucket) return `acc_${n}`;
  }
};

const every = Array.from({ length: workBucketCount }, (_, bucket) => bucket);

/** Accounts in three distinct buckets. */
const a = accountInBucket(3);
const b = accountInBucket(17);
const c = accountInBucket(40);

const base = { now: t0, limit: 100, leaseSeconds: 30 };

const claimOutbox = async (h: StoreHarness, options: Partial<ClaimOptions>) =>
  (await h.store.transaction((tx) => tx.outbox.claim({ worker: 'w1', ...base, ...options }))).map(
    (message) => message.outbox_id,
  );

const claimTimers = async (h: StoreHarness, options: Partial<ClaimOptions>) =>
  (
    await h.store.transaction((tx) => tx.timers.claimDue({ worker: 'w1', ...base, ...options }))
  ).map((timer) => timer.timer_id);

/** Two messages per account, the second queued behind the first (same object). */
const messagesOf = (account: string, n: number): NewOutboxMessage[] => [
  outboxMessage(`ob_${n}a`, { account_id: account, business_id: `po_${n}`, created_at: t0 - n }),
  outboxMessage(`ob_${n}b`, { account_id: account, business_id: `po_${n}`, created_at: t0 }),
];

const heavy = 120_000;

export const workBucketsConformance = (ctx: SuiteContext): void => {
  const { test } = ctx;

  test('outbox: a claim for a bucket answers only its accounts’ due queue heads', async (h) => {
    await h.store.transaction((tx) =>
      tx.outbox.enqueue([
        ...messagesOf(a, 1),
        ...messagesOf(b, 2),
        ...messagesOf(c, 3),
        outboxMessage('ob_late', { account_id: b, available_at: t0 + 60 }),
      ]),
    );
    assert.deepEqual(await claimOutbox(h, { buckets: [workBucketOf(b)] }), ['ob_2a']);
    assert.deepEqual(await claimOutbox(h, { buckets: [workBucketOf(b)] }), []);
    assert.deepEqual(await claimOutbox(h, { buckets: [0, 1, 2] }), []);
    assert.deepEqual(
      await claimOutbox(h, { worker: 'w2', buckets: [workBucketOf(a), workBucketOf(c)] }),
      ['ob_3a', 'ob_1a'],
    );
  });

  test('outbox: a claim naming every bucket answers what a claim naming none does', async (h) => {
    const messages = [...messagesOf(a, 1), ...messagesOf(b, 2), ...messagesOf(c, 3)];
    await h.store.transaction((tx) => tx.outbox.enqueue(messages));
    const all = await claimOutbox(h, { buckets: every, limit: 2 });
    assert.deepEqual(all, ['ob_3a', 'ob_2a']);
    const rest = await claimOutbox(h, {});
    assert.deepEqual(rest, ['ob_1a']);
  });

  test('timers: a claim for a bucket answers only its accounts’ due timers', async (h) => {
    await h.store.transaction(async (tx) => {
      await tx.timers.set({ ...timerRecord('ord_a', t0 - 2), account_id: a });
      await tx.timers.set({ ...timerRecord('ord_b', t0 - 1), account_id: b });
      await tx.timers.set({ ...timerRecord('ord_b2', t0 + 60), account_id: b });
      await tx.timers.set({ ...timerRecord('ord_c', t0), account_id: c });
    });
    assert.deepEqual(await claimTimers(h, { buckets: [workBucketOf(b)] }), ['order.expiry:ord_b']);
    assert.deepEqual(await claimTimers(h, { buckets: [workBucketOf(b)] }), []);
    assert.deepEqual(await claimTimers(h, { buckets: [] }), []);
    assert.deepEqual(await claimTimers(h, { worker: 'w2', buckets: every }), [
      'order.expiry:ord_a',
      'order.expiry:ord_c',
    ]);
  });

  test('timers: a claim naming every bucket answers what a claim naming none does', async (h) => {
    await h.store.transaction(async (tx) => {
      for (const [i, account] of [a, b, c].entries()) {
        await tx.timers.set({ ...timerRecord(`ord_${i}`, t0 - i), account_id: account });
      }
    });
    assert.deepEqual(await claimTimers(h, { buckets: every, limit: 2 }), [
      'order.expiry:ord_2',
      'order.expiry:ord_1',
    ]);
    assert.deepEqual(await claimTimers(h, {}), ['order.expiry:ord_0']);
  });

  test(
    'claimers of disjoint buckets draining 400 messages and 200 timers never overlap',
    async (h) => {
      const accounts = Array.from({ length: 40 }, (_, n) => `acc_${n}`);
      await h.store.transaction(async (tx) => {
        await tx.outbox.enqueue(
          Array.from({ length: 400 }, (_, i) =>
            outboxMessage(`ob_${String(i).padStart(3, '0')}`, {
              account_id: accounts[i % accounts.length] ?? 'acc_0',
            }),
          ),
        );
        for (let i = 0; i < 200; i++) {
          await tx.timers.set({
            ...timerRecord(`ord_${i}`, t0),
            account_id: accounts[i % accounts.length] ?? 'acc_0',
          });
        }
      });
      const bucketsOf = (worker: number) => every.filter((bucket) => bucket % 3 === worker);
      const drain = async (worker: number) => {
        const name = `w${worker}`;
        const buckets = bucketsOf(worker);
        const claimed: { accountId: string; id: string }[] = [];
        for (;;) {
          const [messages, timers] = await h.store.transaction(async (tx) => [
            await tx.outbox.claim({ worker: name, now: t0, limit: 25, leaseSeconds: 600, buckets }),
            await tx.timers.claimDue({
              worker: name,
              now: t0,
              limit: 25,
              leaseSeconds: 600,
              buckets,
            }),
          ]);
          if (messages.length === 0 && timers.length === 0) return claimed;
          claimed.push(
            ...messages.map((m) => ({ accountId: m.account_id, id: m.outbox_id })),
            ...timers.map((t) => ({ accountId: t.account_id, id: t.timer_id })),
          );
          await h.store.transaction(async (tx) => {
            for (const m of messages) assert.ok(await tx.outbox.complete(m.outbox_id, name));
            for (const t of timers) assert.ok(await tx.timers.complete(t.timer_id, name));
          });
        }
      };
      const drained = await Promise.all([drain(0), drain(1), drain(2)]);
      for (const [worker, claimed] of drained.entries()) {
        for (const { accountId } of claimed) {
          assert.ok(bucketsOf(worker).includes(workBucketOf(accountId)), `w${worker}: own bucket`);
        }
      }
      const ids = drained.flat().map((claimed) => claimed.id);
      assert.equal(ids.length, 600);
      assert.equal(new Set(ids).size, 600);
      assert.deepEqual(await h.oracle.timers(), []);
      const outbox = await h.oracle.outbox();
      assert.equal(outbox.filter((m) => m.status === 'delivered').length, 400);
    },
    heavy,
  );
};
