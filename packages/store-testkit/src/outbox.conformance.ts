/**
 * The transactional outbox: replays deduplicate, each business object's messages to one
 * destination leave in order, a claim is a lease that lapses, and only the worker holding a
 * claim can settle it.
 */
import assert from 'node:assert/strict';
import type { ClaimOptions, NewOutboxMessage, OutboxDestination } from '@payrail/core';
import { type SuiteContext, t0 } from './conformance-context.js';
import type { StoreHarness } from './harness.js';

const hook: OutboxDestination = { kind: 'webhook', webhookId: 'wh_1' };
const url: OutboxDestination = { kind: 'notify_url', url: 'https://merchant.example/notify' };

export const outboxMessage = (
  outboxId: string,
  overrides: Partial<NewOutboxMessage> = {},
): NewOutboxMessage => ({
  outbox_id: outboxId,
  event_id: `evt_${outboxId}`,
  account_id: 'acc_1',
  business_type: 'payout',
  business_id: `po_${outboxId}`,
  event_type: 'payout.created',
  destination: hook,
  payload: { type: 'payout.created', data: { payout_id: `po_${outboxId}`, amount: '10.00' } },
  available_at: t0,
  created_at: t0,
  ...overrides,
});

const enqueue = (h: StoreHarness, messages: readonly NewOutboxMessage[]) =>
  h.store.transaction((tx) => tx.outbox.enqueue(messages));

const claim = (h: StoreHarness, options: Partial<ClaimOptions> = {}) =>
  h.store.transaction((tx) =>
    tx.outbox.claim({ worker: 'w1', now: t0, limit: 10, leaseSeconds: 30, ...options }),
  );

const claimedIds = async (h: StoreHarness, options: Partial<ClaimOptions> = {}) =>
  (await claim(h, options)).map((message) => message.outbox_id);

const get = (h: StoreHarness, outboxId: string) =>
  h.store.transaction((tx) => tx.outbox.get(outboxId));

const complete = (h: StoreHarness, outboxId: string, worker = 'w1') =>
  h.store.transaction((tx) => tx.outbox.complete(outboxId, worker));

export const outboxConformance = (ctx: SuiteContext): void => {
  const { test } = ctx;

  test('enqueue stores pending messages with no attempts', async (h) => {
    const message = outboxMessage('ob_1');
    await enqueue(h, [message]);
    const expected = { ...message, status: 'pending', attempts: 0 };
    assert.deepEqual(await get(h, 'ob_1'), expected);
    assert.deepEqual(await h.oracle.outbox(), [expected]);
    assert.equal(await get(h, 'ob_unknown'), undefined);
  });

  test('a repeat of (event_id, destination) is ignored; another destination is not', async (h) => {
    await enqueue(h, [outboxMessage('ob_1', { event_id: 'evt_1' })]);
    await enqueue(h, [
      outboxMessage('ob_2', { event_id: 'evt_1' }),
      outboxMessage('ob_3', { event_id: 'evt_1', destination: url }),
      outboxMessage('ob_4', { event_id: 'evt_1', destination: url }),
      outboxMessage('ob_5', {
        event_id: 'evt_1',
        destination: { kind: 'webhook', webhookId: 'wh_2' },
      }),
    ]);
    const ids = (await h.oracle.outbox()).map((m) => m.outbox_id).sort();
    assert.deepEqual(ids, ['ob_1', 'ob_3', 'ob_5']);
  });

  test('claim answers the oldest first, up to the limit, leased to the worker', async (h) => {
    await enqueue(h, [
      outboxMessage('ob_3', { created_at: t0 + 3 }),
      outboxMessage('ob_1', { created_at: t0 + 1 }),
      outboxMessage('ob_2', { created_at: t0 + 2 }),
    ]);
    const claimed = await claim(h, { limit: 2 });
    assert.deepEqual(
      claimed.map((m) => m.outbox_id),
      ['ob_1', 'ob_2'],
    );
    assert.deepEqual(claimed[0], {
      ...outboxMessage('ob_1', { created_at: t0 + 1 }),
      status: 'pending',
      attempts: 0,
    });
    assert.deepEqual(await claimedIds(h, { worker: 'w2' }), ['ob_3']);
    assert.deepEqual(await claimedIds(h, { worker: 'w3' }), []);
  });

  test("one object's messages to one destination leave in order, one at a time", async (h) => {
    const object = { business_id: 'po_same', available_at: t0 };
    await enqueue(h, [
      // Same second, enqueued in this order: the order of enqueueing decides, not the ids.
      outboxMessage('ob_9', { ...object, created_at: t0, event_type: 'payout.created' }),
      outboxMessage('ob_1', { ...object, created_at: t0, event_type: 'payout.approved' }),
      outboxMessage('ob_5', { ...object, created_at: t0, destination: url }),
      outboxMessage('ob_7', { created_at: t0 + 1 }),
    ]);
    assert.deepEqual(await claimedIds(h), ['ob_9', 'ob_5', 'ob_7']);
    assert.deepEqual(await claimedIds(h, { worker: 'w2' }), []);
    assert.equal(await complete(h, 'ob_9'), true);
    assert.deepEqual(await claimedIds(h, { worker: 'w2' }), ['ob_1']);
  });

  test('a message is not claimed before available_at; a later one of its object waits', async (h) => {
    await enqueue(h, [
      outboxMessage('ob_1', { business_id: 'po_x', available_at: t0 + 60 }),
      outboxMessage('ob_2', { business_id: 'po_x', available_at: t0, created_at: t0 + 1 }),
    ]);
    assert.deepEqual(await claimedIds(h, { now: t0 + 59 }), []);
    assert.deepEqual(await claimedIds(h, { now: t0 + 60 }), ['ob_1']);
  });

  test('a claim is a lease: not claimed again until it lapses, then claimed anew', async (h) => {
    await enqueue(h, [outboxMessage('ob_1')]);
    assert.deepEqual(await claimedIds(h, { worker: 'w1', leaseSeconds: 30 }), ['ob_1']);
    assert.deepEqual(await claimedIds(h, { worker: 'w2', now: t0 + 29 }), []);
    assert.deepEqual(await claimedIds(h, { worker: 'w2', now: t0 + 30 }), ['ob_1']);
    assert.equal(await complete(h, 'ob_1', 'w1'), false);
    assert.equal(await complete(h, 'ob_1', 'w2'), true);
    assert.equal((await get(h, 'ob_1'))?.status, 'delivered');
    assert.deepEqual(await claimedIds(h, { worker: 'w3', now: t0 + 1000 }), []);
  });

  test('complete, retry and fail answer false unless the worker holds the claim', async (h) => {
    await enqueue(h, [outboxMessage('ob_1'), outboxMessage('ob_2')]);
    await claim(h, { worker: 'w1', limit: 1 });
    await h.store.transaction(async (tx) => {
      assert.equal(await tx.outbox.complete('ob_1', 'w2'), false);
      assert.equal(await tx.outbox.retry('ob_1', 'w2', t0 + 10), false);
      assert.equal(await tx.outbox.fail('ob_1', 'w2'), false);
      assert.equal(await tx.outbox.complete('ob_2', 'w1'), false);
      assert.equal(await tx.outbox.complete('ob_unknown', 'w1'), false);
    });
    const expected = ['ob_1', 'ob_2'].map((id) => ({
      ...outboxMessage(id),
      status: 'pending',
      attempts: 0,
    }));
    assert.deepEqual(
      [...(await h.oracle.outbox())].sort((a, b) => a.outbox_id.localeCompare(b.outbox_id)),
      expected,
    );
  });

  test('complete marks delivered and counts the attempt; a settled claim ends', async (h) => {
    await enqueue(h, [outboxMessage('ob_1')]);
    await claim(h);
    assert.equal(await complete(h, 'ob_1'), true);
    assert.deepEqual(await get(h, 'ob_1'), {
      ...outboxMessage('ob_1'),
      status: 'delivered',
      attempts: 1,
    });
    assert.equal(await complete(h, 'ob_1'), false);
  });

  test('retry counts the attempt and makes the message due again at availableAt', async (h) => {
    await enqueue(h, [
      outboxMessage('ob_1'),
      outboxMessage('ob_2', { business_id: 'po_ob_1', created_at: t0 + 1 }),
    ]);
    await claim(h);
    const retried = await h.store.transaction((tx) => tx.outbox.retry('ob_1', 'w1', t0 + 300));
    assert.equal(retried, true);
    assert.deepEqual(await get(h, 'ob_1'), {
      ...outboxMessage('ob_1'),
      status: 'pending',
      attempts: 1,
      available_at: t0 + 300,
    });
    // Released: not leased any more, but not due either; its successor still waits behind it.
    assert.deepEqual(await claimedIds(h, { worker: 'w2', now: t0 + 299 }), []);
    assert.deepEqual(await claimedIds(h, { worker: 'w2', now: t0 + 300 }), ['ob_1']);
    assert.equal(await complete(h, 'ob_1', 'w1'), false);
    assert.equal(await complete(h, 'ob_1', 'w2'), true);
    assert.equal((await get(h, 'ob_1'))?.attempts, 2);
  });

  test('fail gives up on the message and lets the next one of its object go', async (h) => {
    await enqueue(h, [
      outboxMessage('ob_1'),
      outboxMessage('ob_2', { business_id: 'po_ob_1', created_at: t0 + 1 }),
    ]);
    await claim(h);
    assert.equal(await h.store.transaction((tx) => tx.outbox.fail('ob_1', 'w1')), true);
    assert.deepEqual(await get(h, 'ob_1'), {
      ...outboxMessage('ob_1'),
      status: 'failed',
      attempts: 1,
    });
    assert.deepEqual(await claimedIds(h, { worker: 'w2', now: t0 + 1000 }), ['ob_2']);
  });
};
