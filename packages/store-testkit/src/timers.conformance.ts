/**
 * Durable timers: one per id (set moves it), due ones claimed with a lease, a fired timer
 * removed only by the worker that claimed it.
 */
import assert from 'node:assert/strict';
import type { ClaimOptions, TimerRecord } from '@payrail/core';
import { type SuiteContext, t0 } from './conformance-context.js';
import type { StoreHarness } from './harness.js';

export const timerRecord = (
  businessId: string,
  dueAt: number,
  name = 'order.expiry',
): TimerRecord => ({
  timer_id: `${name}:${businessId}`,
  name,
  business_type: 'acquiring',
  business_id: businessId,
  account_id: 'acc_1',
  due_at: dueAt,
});

const set = (h: StoreHarness, ...timers: readonly TimerRecord[]) =>
  h.store.transaction(async (tx) => {
    for (const timer of timers) await tx.timers.set(timer);
  });

const claimDue = async (h: StoreHarness, options: Partial<ClaimOptions> = {}) =>
  (
    await h.store.transaction((tx) =>
      tx.timers.claimDue({ worker: 'w1', now: t0, limit: 10, leaseSeconds: 30, ...options }),
    )
  ).map((timer) => timer.timer_id);

const complete = (h: StoreHarness, timerId: string, worker = 'w1') =>
  h.store.transaction((tx) => tx.timers.complete(timerId, worker));

const get = (h: StoreHarness, timerId: string) =>
  h.store.transaction((tx) => tx.timers.get(timerId));

export const timersConformance = (ctx: SuiteContext): void => {
  const { test } = ctx;

  test('set stores a timer; setting its id again moves it', async (h) => {
    const timer = timerRecord('ord_1', t0 + 60);
    await set(h, timer);
    assert.deepEqual(await get(h, timer.timer_id), timer);
    await set(h, { ...timer, due_at: t0 + 120 });
    assert.deepEqual(await h.oracle.timers(), [{ ...timer, due_at: t0 + 120 }]);
    assert.equal(await get(h, 'order.expiry:ord_unknown'), undefined);
  });

  test('clear removes a timer; clearing an unknown one is harmless', async (h) => {
    await set(h, timerRecord('ord_1', t0), timerRecord('ord_2', t0));
    await h.store.transaction(async (tx) => {
      await tx.timers.clear('order.expiry:ord_1');
      await tx.timers.clear('order.expiry:ord_unknown');
    });
    assert.deepEqual(await h.oracle.timers(), [timerRecord('ord_2', t0)]);
  });

  test('claimDue answers only due timers, earliest first, then by id, up to the limit', async (h) => {
    await set(
      h,
      timerRecord('ord_4', t0 + 1),
      timerRecord('ord_3', t0 - 10),
      timerRecord('ord_2', t0),
      timerRecord('ord_1', t0),
    );
    assert.deepEqual(await claimDue(h, { limit: 2 }), ['order.expiry:ord_3', 'order.expiry:ord_1']);
    assert.deepEqual(await claimDue(h, { worker: 'w2' }), ['order.expiry:ord_2']);
    assert.deepEqual(await claimDue(h, { worker: 'w3', now: t0 + 1 }), ['order.expiry:ord_4']);
  });

  test('a claim is a lease: not claimed again until it lapses, then claimed anew', async (h) => {
    await set(h, timerRecord('ord_1', t0));
    assert.deepEqual(await claimDue(h, { leaseSeconds: 30 }), ['order.expiry:ord_1']);
    assert.deepEqual(await claimDue(h, { worker: 'w2', now: t0 + 29 }), []);
    assert.deepEqual(await claimDue(h, { worker: 'w2', now: t0 + 30 }), ['order.expiry:ord_1']);
    assert.equal(await complete(h, 'order.expiry:ord_1', 'w1'), false);
    assert.equal(await complete(h, 'order.expiry:ord_1', 'w2'), true);
    assert.deepEqual(await h.oracle.timers(), []);
  });

  test('complete removes the timer only for the worker holding the claim', async (h) => {
    await set(h, timerRecord('ord_1', t0), timerRecord('ord_2', t0 + 60));
    await claimDue(h);
    assert.equal(await complete(h, 'order.expiry:ord_1', 'w2'), false);
    assert.equal(await complete(h, 'order.expiry:ord_2', 'w1'), false);
    assert.equal(await complete(h, 'order.expiry:ord_unknown', 'w1'), false);
    assert.equal((await h.oracle.timers()).length, 2);
    assert.equal(await complete(h, 'order.expiry:ord_1', 'w1'), true);
    assert.deepEqual(await h.oracle.timers(), [timerRecord('ord_2', t0 + 60)]);
  });

  test('moving a claimed timer drops the claim: it fires again at its new time', async (h) => {
    await set(h, timerRecord('ord_1', t0));
    await claimDue(h);
    await set(h, timerRecord('ord_1', t0 + 100));
    assert.equal(await complete(h, 'order.expiry:ord_1', 'w1'), false);
    assert.deepEqual(await h.oracle.timers(), [timerRecord('ord_1', t0 + 100)]);
    assert.deepEqual(await claimDue(h, { worker: 'w2', now: t0 + 99 }), []);
    assert.deepEqual(await claimDue(h, { worker: 'w2', now: t0 + 100 }), ['order.expiry:ord_1']);
  });
};
