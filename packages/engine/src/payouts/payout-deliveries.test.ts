/**
 * `payouts.deliveries`: a payout's callbacks from the delivery log, found by its payout_id, and
 * redelivered by the webhooks' redeliver to the payout's notify_url. The dispatcher (another
 * package) writes the log; here the records are written as it writes them.
 */
import type { OutboxMessage, WebhookDeliveryRecord } from '@payrail/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { webhookUseCases } from '../access/webhook.use-cases.js';
import {
  dataOf,
  errorOf,
  merchantA,
  merchantAWith,
  merchantB,
  notifyUrl,
  type PayoutHarness,
  payoutHarness,
  startTime,
  walletaPayout,
} from './payouts.test-support.js';

const failedAttempt = {
  attempt: 1,
  at: startTime,
  status_code: 500,
  latency_ms: 31,
  error: 'HTTP 500',
  response_body: 'down',
};

/** The record the dispatcher's delivery log writes after a failed attempt of `message`. */
const loggedDelivery = (
  deliveryId: string,
  message: OutboxMessage,
  overrides: Partial<WebhookDeliveryRecord> = {},
): Omit<WebhookDeliveryRecord, 'version'> => ({
  delivery_id: deliveryId,
  account_id: message.account_id,
  event_id: message.event_id,
  event_type: message.event_type,
  business_type: message.business_type,
  business_id: message.business_id,
  webhook_id: null,
  url: notifyUrl,
  status: 'failed',
  attempts: [failedAttempt],
  outbox_id: message.outbox_id,
  created_at: startTime,
  updated_at: startTime,
  ...overrides,
});

let h: PayoutHarness;
let request: OutboxMessage;

beforeEach(async () => {
  h = await payoutHarness({ verification_enabled: true });
  dataOf(await h.engine.payouts.create(merchantA, walletaPayout()));
  dataOf(await h.engine.payouts.create(merchantB, walletaPayout()));
  const [first] = await h.outboxOf('po_1');
  if (first === undefined) throw new Error('no verification request queued');
  request = first;
  const [ofB] = await h.outboxOf('po_2');
  if (ofB === undefined) throw new Error('no verification request queued for B');
  await h.store.transaction(async (tx) => {
    await tx.webhookDeliveries.insert(loggedDelivery('dlv_1', request));
    await tx.webhookDeliveries.insert(
      loggedDelivery('dlv_2', request, {
        event_id: 'evt_result',
        event_type: 'payout.review.approved',
        status: 'succeeded',
        attempts: [{ ...failedAttempt, status_code: 204, error: null, response_body: '' }],
        created_at: startTime + 5,
        updated_at: startTime + 5,
      }),
    );
    // Another object's delivery, and merchant B's payout callback: neither is po_1's.
    await tx.webhookDeliveries.insert(
      loggedDelivery('dlv_3', request, {
        event_id: 'evt_order',
        business_type: 'acquiring',
        business_id: 'ord_1',
        webhook_id: 'wh_1',
      }),
    );
    await tx.webhookDeliveries.insert(loggedDelivery('dlv_4', ofB));
  });
});

describe('payouts.deliveries', () => {
  it("lists the payout's callbacks, newest first, in the webhook deliveries' view", async () => {
    const page = dataOf(await h.engine.payouts.deliveries(merchantA, 'po_1', {}));
    expect(page).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(page.items.map((d) => d.delivery_id)).toEqual(['dlv_2', 'dlv_1']);
    expect(page.items[1]).toEqual({
      delivery_id: 'dlv_1',
      webhook_id: null,
      event_id: request.event_id,
      event_type: 'payout.verify.request',
      url: notifyUrl,
      status: 'failed',
      attempts: [failedAttempt],
      created_at: startTime,
      updated_at: startTime,
    });
    const paged = dataOf(
      await h.engine.payouts.deliveries(merchantA, 'po_1', { limit: '1', offset: '1' }),
    );
    expect(paged).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(paged.items.map((d) => d.delivery_id)).toEqual(['dlv_1']);
    const ofB = dataOf(await h.engine.payouts.deliveries(merchantB, 'po_2', {}));
    expect(ofB.items.map((d) => d.delivery_id)).toEqual(['dlv_4']);
  });

  it('a payout without callbacks lists none', async () => {
    dataOf(
      await h.engine.payouts.create(
        merchantA,
        walletaPayout({ reference: 'ref-2', client_request_id: 'req-2' }),
      ),
    );
    expect(dataOf(await h.engine.payouts.deliveries(merchantA, 'po_3', {}))).toEqual({
      items: [],
      total: 0,
      limit: 20,
      offset: 0,
    });
  });

  it('payout not found for an unknown payout and for another merchant’s', async () => {
    const notFound = ['payout not found', 404, 65];
    expect(errorOf(await h.engine.payouts.deliveries(merchantA, 'po_404', {}))).toEqual(notFound);
    expect(errorOf(await h.engine.payouts.deliveries(merchantA, 'po_2', {}))).toEqual(notFound);
    expect(errorOf(await h.engine.payouts.deliveries(merchantB, 'po_1', {}))).toEqual(notFound);
  });

  it('answers the list query codec errors', async () => {
    expect(errorOf(await h.engine.payouts.deliveries(merchantA, 'po_1', { limit: '0' }))).toEqual([
      'invalid limit',
      400,
      51,
    ]);
    expect(errorOf(await h.engine.payouts.deliveries(merchantA, 'po_1', { offset: '-1' }))).toEqual(
      ['invalid offset', 400, 51],
    );
  });

  it('needs payment.payout.read, the payout product and an active account', async () => {
    const forbidden = ['forbidden', 403, 61];
    const onlyWebhooks = merchantAWith('payment.webhook.read', 'payment.webhook.write');
    expect(errorOf(await h.engine.payouts.deliveries(onlyWebhooks, 'po_1', {}))).toEqual(forbidden);
    const readOnly = merchantAWith('payment.payout.read');
    expect(dataOf(await h.engine.payouts.deliveries(readOnly, 'po_1', {})).total).toBe(2);
    await h.setAccount(merchantA, { products: { payout: false, acquiring: true } });
    expect(errorOf(await h.engine.payouts.deliveries(merchantA, 'po_1', {}))).toEqual(forbidden);
    await h.setAccount(merchantA, {
      status: 'frozen',
      products: { payout: true, acquiring: true },
    });
    expect(errorOf(await h.engine.payouts.deliveries(merchantA, 'po_1', {}))).toEqual([
      'account frozen',
      403,
      61,
    ]);
  });
});

describe('redelivering a payout callback', () => {
  it("enqueues the callback again to the payout's notify_url and lists it pending", async () => {
    h.clock.advance(60);
    const webhooks = webhookUseCases(h.deps);
    const answer = dataOf(await webhooks.redeliver(merchantA, 'dlv_1'));
    expect(answer.delivery).toMatchObject({
      delivery_id: 'dlv_1',
      webhook_id: null,
      status: 'pending',
      updated_at: startTime + 60,
    });
    const queued = await h.outboxOf('po_1');
    expect(queued).toHaveLength(2);
    const again = queued[1];
    expect(again).toEqual({
      outbox_id: expect.stringMatching(/^obx_/),
      event_id: `${request.event_id}:${again?.outbox_id}`,
      account_id: 'acc_a',
      business_type: 'payout',
      business_id: 'po_1',
      event_type: 'payout.verify.request',
      destination: { kind: 'notify_url', url: notifyUrl },
      payload: request.payload,
      status: 'pending',
      attempts: 0,
      available_at: startTime + 60,
      created_at: startTime + 60,
    });
    const page = dataOf(await h.engine.payouts.deliveries(merchantA, 'po_1', {}));
    expect(page.items.map((d) => [d.delivery_id, d.status])).toEqual([
      ['dlv_2', 'succeeded'],
      ['dlv_1', 'pending'],
    ]);
  });

  it("another merchant's payout callback is webhook not found, and nothing is enqueued", async () => {
    const webhooks = webhookUseCases(h.deps);
    const before = (await h.oracle.outbox()).length;
    expect(errorOf(await webhooks.redeliver(merchantB, 'dlv_1'))).toEqual([
      'webhook not found',
      404,
      65,
    ]);
    expect(await h.oracle.outbox()).toHaveLength(before);
  });
});
