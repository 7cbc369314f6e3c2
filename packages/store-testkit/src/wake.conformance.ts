/**
 * What lets the background loops sleep instead of polling (ADR 0030): the next time a timer or an
 * outbox message becomes claimable, exactly as the claims see it, and `onWork`, told after a
 * committed unit of work that enqueued messages or set timers, and never for one rolled back.
 */
import assert from 'node:assert/strict';
import type { Store } from '@payrail/core';
import { type SuiteContext, t0 } from './conformance-context.js';
import type { StoreHarness } from './harness.js';
import { outboxMessage } from './outbox.conformance.js';
import { timerRecord } from './timers.conformance.js';

const nextDueAt = (h: StoreHarness) => h.store.transaction((tx) => tx.timers.nextDueAt());

const nextAvailableAt = (h: StoreHarness) =>
  h.store.transaction((tx) => tx.outbox.nextAvailableAt());

const claimTimers = (h: StoreHarness, now: number, worker = 'w1') =>
  h.store.transaction((tx) => tx.timers.claimDue({ worker, now, limit: 10, leaseSeconds: 30 }));

const claimMessages = (h: StoreHarness, now: number, worker = 'w1') =>
  h.store.transaction((tx) => tx.outbox.claim({ worker, now, limit: 10, leaseSeconds: 30 }));

/** Counts the store's work signals; `onWork` is required of every store graded here. */
const countWork = (store: Store) => {
  assert.ok(store.onWork, 'the store offers onWork');
  const seen = { count: 0 };
  const unsubscribe = store.onWork(() => {
    seen.count += 1;
  });
  return { seen, unsubscribe };
};

class Rollback extends Error {}

export const wakeConformance = (ctx: SuiteContext): void => {
  const { test } = ctx;

  test('nextDueAt: none without timers, else the earliest due_at', async (h) => {
    assert.equal(await nextDueAt(h), undefined);
    await h.store.transaction(async (tx) => {
      await tx.timers.set(timerRecord('ord_2', t0 + 90));
      await tx.timers.set(timerRecord('ord_1', t0 + 60));
    });
    assert.equal(await nextDueAt(h), t0 + 60);
    await h.store.transaction((tx) => tx.timers.clear('order.expiry:ord_1'));
    assert.equal(await nextDueAt(h), t0 + 90);
  });

  test('nextDueAt: a claimed timer counts from its lease end, a moved one from its due_at', async (h) => {
    await h.store.transaction((tx) => tx.timers.set(timerRecord('ord_1', t0 - 5)));
    assert.equal(await nextDueAt(h), t0 - 5, 'overdue: claimable now');
    assert.equal((await claimTimers(h, t0)).length, 1);
    assert.equal(await nextDueAt(h), t0 + 30, 'claimable again when the lease lapses');
    await h.store.transaction((tx) => tx.timers.set(timerRecord('ord_1', t0 + 10)));
    assert.equal(await nextDueAt(h), t0 + 10, 'moving it dropped the claim');
    assert.equal((await claimTimers(h, t0 + 10)).length, 1);
    assert.ok(await h.store.transaction((tx) => tx.timers.complete('order.expiry:ord_1', 'w1')));
    assert.equal(await nextDueAt(h), undefined);
  });

  test('nextAvailableAt: none without pending messages, else the earliest head', async (h) => {
    assert.equal(await nextAvailableAt(h), undefined);
    await h.store.transaction((tx) =>
      tx.outbox.enqueue([
        outboxMessage('ob_1', { available_at: t0 + 40 }),
        outboxMessage('ob_2', { business_id: 'po_other', available_at: t0 + 20 }),
      ]),
    );
    assert.equal(await nextAvailableAt(h), t0 + 20);
  });

  test('nextAvailableAt: only a queue head counts, a claimed one from its lease end', async (h) => {
    // One business object: ob_2 waits behind ob_1 however early it is available.
    await h.store.transaction((tx) =>
      tx.outbox.enqueue([
        outboxMessage('ob_1', { business_id: 'po_1', available_at: t0 + 50 }),
        outboxMessage('ob_2', { business_id: 'po_1', available_at: t0, created_at: t0 + 1 }),
      ]),
    );
    assert.equal(await nextAvailableAt(h), t0 + 50);
    assert.deepEqual(
      (await claimMessages(h, t0 + 50)).map((m) => m.outbox_id),
      ['ob_1'],
    );
    assert.equal(await nextAvailableAt(h), t0 + 80, 'the head is leased until t0 + 80');
    assert.ok(await h.store.transaction((tx) => tx.outbox.complete('ob_1', 'w1')));
    assert.equal(await nextAvailableAt(h), t0, 'the next head is available at once');
    assert.equal((await claimMessages(h, t0 + 50)).length, 1);
    assert.ok(await h.store.transaction((tx) => tx.outbox.fail('ob_2', 'w1')));
    assert.equal(await nextAvailableAt(h), undefined, 'nothing pending');
  });

  test('onWork: told once a unit of work that enqueued or set a timer has committed', async (h) => {
    const { seen, unsubscribe } = countWork(h.store);
    let seenWhenTold: number | undefined;
    const unsubscribeCheck = h.store.onWork?.(() => {
      seenWhenTold = seen.count;
    });
    await h.store.transaction((tx) => tx.outbox.enqueue([outboxMessage('ob_1')]));
    assert.equal(seen.count, 1, 'told before transaction() resolved');
    assert.equal(seenWhenTold, 1);
    await h.store.transaction((tx) => tx.timers.set(timerRecord('ord_1', t0 + 60)));
    assert.equal(seen.count, 2);
    await h.store.transaction(async (tx) => {
      await tx.outbox.enqueue([outboxMessage('ob_2')]);
      await tx.timers.set(timerRecord('ord_2', t0 + 60));
    });
    assert.equal(seen.count, 3, 'once per unit of work');
    await h.store.transaction((tx) => tx.outbox.get('ob_1'));
    assert.equal(seen.count, 3, 'a unit of work that only read is not work');
    unsubscribe();
    unsubscribeCheck?.();
  });

  test('onWork: a rolled-back unit of work tells nothing', async (h) => {
    const { seen, unsubscribe } = countWork(h.store);
    await assert.rejects(
      h.store.transaction(async (tx) => {
        await tx.outbox.enqueue([outboxMessage('ob_1')]);
        await tx.timers.set(timerRecord('ord_1', t0));
        throw new Rollback('changed my mind');
      }),
      Rollback,
    );
    assert.equal(seen.count, 0);
    assert.equal(await nextAvailableAt(h), undefined);
    unsubscribe();
  });

  test('onWork: after unsubscribing a listener is told nothing more', async (h) => {
    const first = countWork(h.store);
    const second = countWork(h.store);
    await h.store.transaction((tx) => tx.outbox.enqueue([outboxMessage('ob_1')]));
    first.unsubscribe();
    await h.store.transaction((tx) => tx.outbox.enqueue([outboxMessage('ob_2')]));
    assert.equal(first.seen.count, 1);
    assert.equal(second.seen.count, 2);
    second.unsubscribe();
    second.unsubscribe();
  });
};
