/**
 * A payout callback that failed for good, end to end: the dispatcher logs it under the payout
 * (`business_type`, `business_id`), the merchant finds it with `payouts.deliveries`, redelivers
 * it, and the next dispatcher run brings it to the notify_url with the same webhook-id. On the
 * memory store and on PGlite.
 */
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import type { OutboxMessage, Store } from '@payrail/core';
import { bootstrapOperator } from '@payrail/engine';
import { createMemoryStore } from '@payrail/store-memory';
import { memoryOracle } from '@payrail/store-memory/testing';
import { createPGliteStore } from '@payrail/store-postgres';
import { postgresOracle } from '@payrail/store-postgres/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  dataOf,
  dispatcherBed,
  expectSigned,
  type Json,
  type ReceivedRequest,
  type Receiver,
  startReceiver,
  t0,
} from './dispatcher.test-support.js';
import { retryDelaysSeconds } from './retry-schedule.js';

interface Opened {
  readonly store: Store;
  readonly outbox: () => Promise<readonly OutboxMessage[]>;
  close(): Promise<void>;
}

let pglite: Promise<PGlite> | undefined;
afterAll(async () => {
  await (await pglite)?.close();
});

const stores: readonly { readonly name: string; readonly open: () => Promise<Opened> }[] = [
  {
    name: 'the memory store',
    open: async () => {
      const store = createMemoryStore();
      const oracle = memoryOracle(store);
      return { store, outbox: () => oracle.outbox(), close: async () => undefined };
    },
  },
  {
    name: 'PGlite',
    open: async () => {
      pglite ??= PGlite.create('memory://');
      const store = await createPGliteStore({
        pglite: await pglite,
        schema: `payout_deliveries_${randomBytes(6).toString('hex')}`,
      });
      const oracle = postgresOracle(store);
      return { store, outbox: () => oracle.outbox(), close: () => store.close() };
    },
  },
];

describe.each(stores)('a payout callback redelivered ($name)', ({ open }) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('is listed under its payout once it failed, redelivered, and then arrives', async () => {
    let recovered = false;
    const receiver: Receiver = await startReceiver(() =>
      recovered ? { status: 200, body: 'ok' } : { status: 503, body: 'down' },
    );
    cleanups.push(() => receiver.close());
    const under = await open();
    cleanups.push(() => under.close());
    const bed = await dispatcherBed(under.store, { outbox: under.outbox });
    cleanups.push(() => bed.dispatcher.stop(0));
    const m = await bed.newMerchant();
    const payoutId = await bed.createPayout(m, receiver.url('/payouts'));
    dataOf(await bed.engine.admin.reviewPayout(bootstrapOperator, payoutId, { action: 'approve' }));

    await bed.dispatcher.runOnce();
    for (const delay of retryDelaysSeconds) await bed.advance(delay);
    const [message] = await under.outbox();
    expect(message).toMatchObject({
      event_type: 'payout.review.approved',
      status: 'failed',
      attempts: 8,
    });
    const eventId = message?.event_id ?? '';
    expect(receiver.of(eventId)).toHaveLength(8);

    // The log names the payout, so the merchant finds the delivery by the payout's id.
    const [logged] = await bed.deliveriesOf(m.accountId);
    expect(logged).toMatchObject({
      business_type: 'payout',
      business_id: payoutId,
      webhook_id: null,
      status: 'failed',
    });
    const listed = dataOf(await bed.engine.payouts.deliveries(m.caller, payoutId, {})) as Json;
    expect(listed).toMatchObject({ total: 1, limit: 20, offset: 0 });
    const [failed] = listed.items;
    expect(failed).toMatchObject({
      delivery_id: logged?.delivery_id,
      webhook_id: null,
      event_id: eventId,
      event_type: 'payout.review.approved',
      url: receiver.url('/payouts'),
      status: 'failed',
      created_at: t0,
    });
    expect(failed.attempts.map((a: Json) => [a.attempt, a.status_code, a.error])).toEqual(
      Array.from({ length: 8 }, (_, i) => [i + 1, 503, 'HTTP 503']),
    );

    recovered = true;
    const redelivered = dataOf(
      await bed.engine.webhooks.redeliver(m.caller, failed.delivery_id),
    ) as Json;
    expect(redelivered.delivery).toMatchObject({
      delivery_id: failed.delivery_id,
      status: 'pending',
    });
    await bed.dispatcher.runOnce();

    const requests = receiver.of(eventId);
    expect(requests).toHaveLength(9);
    expect(new Set(requests.map((request) => request.body)).size).toBe(1);
    expect(requests.every((request) => request.path === '/payouts')).toBe(true);
    expect(expectSigned(requests[8] as ReceivedRequest, m.notifySecret)).toMatchObject({
      event_id: eventId,
      event_type: 'payout.review.approved',
      business_type: 'payout',
      business_id: payoutId,
    });
    const after = dataOf(await bed.engine.payouts.deliveries(m.caller, payoutId, {})) as Json;
    expect(after.total).toBe(1);
    expect(after.items[0]).toMatchObject({ delivery_id: failed.delivery_id, status: 'succeeded' });
    expect(after.items[0].attempts).toHaveLength(9);
    expect(after.items[0].attempts[8]).toMatchObject({ attempt: 9, status_code: 200, error: null });
    expect((await bed.deliveriesOf(m.accountId))[0]).toMatchObject({
      business_type: 'payout',
      business_id: payoutId,
    });
  });
});
