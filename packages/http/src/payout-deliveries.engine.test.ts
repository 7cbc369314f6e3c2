/**
 * `GET /payment/payouts/{payout_id}/deliveries` through HTTP on the real engine: a payout whose
 * callback to its notify_url failed for good is listed with its attempts, and
 * `POST /payment/webhook-deliveries/{delivery_id}/redeliver` queues the callback again. This
 * package may not run the dispatcher (adapters never import each other): the test writes the
 * delivery log as the dispatcher does and checks the outbox row the redelivery enqueued; the
 * arrival at a receiver is tested in `@payrail/webhooks`.
 */
import type { OutboxMessage } from '@payrail/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineApp, engineApp, quickPayout, testNow } from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

describe.each(storesUnderTest)('payout callback deliveries ($name)', (under) => {
  let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;
  let h: EngineApp;
  let a: Awaited<ReturnType<EngineApp['merchant']>>;
  let b: Awaited<ReturnType<EngineApp['merchant']>>;
  let payoutId: string;
  let sent: OutboxMessage;

  const failedAttempt = {
    attempt: 1,
    at: testNow,
    status_code: 503,
    latency_ms: 35,
    error: 'HTTP 503',
    response_body: 'Service Unavailable',
  };

  beforeAll(async () => {
    store = await under.open();
    h = engineApp({ store });
    await h.seedCatalogue();
    a = await h.merchant('Acme');
    b = await h.merchant('Other');
    await h.admin('POST', `/admin/accounts/${a.accountId}/credit`, {
      currency: 'USD',
      amount: '100.00',
    });
    const created = await h.as(a.token).post('/payment/quickpayout', quickPayout('CB1'));
    expect(created.body.code).toBe(0);
    payoutId = created.body.data.payout.payout_id;
    await h.admin('POST', `/admin/payouts/${payoutId}/review`, { action: 'approve' });

    // What the dispatcher does with a callback whose last attempt failed: the message fails,
    // and the delivery log keeps the record, naming the payout.
    await store.transaction(async (tx) => {
      const claimed = await tx.outbox.claim({
        worker: 'test',
        now: testNow,
        limit: 100,
        leaseSeconds: 60,
      });
      const message = claimed.find(
        (m) => m.destination.kind === 'notify_url' && m.business_id === payoutId,
      );
      if (message === undefined) throw new Error('no callback queued for the payout');
      sent = message;
      await tx.outbox.fail(message.outbox_id, 'test');
      await tx.webhookDeliveries.insert({
        delivery_id: 'dlv_cb',
        account_id: message.account_id,
        event_id: message.event_id,
        event_type: message.event_type,
        business_type: message.business_type,
        business_id: message.business_id,
        webhook_id: null,
        url: quickPayout('CB1').notify_url,
        status: 'failed',
        attempts: [failedAttempt],
        outbox_id: message.outbox_id,
        created_at: testNow,
        updated_at: testNow,
      });
    });
  });

  afterAll(async () => {
    await store.close?.();
  });

  it('lists the failed callback of the payout', async () => {
    const answer = await h.as(a.token).get(`/payment/payouts/${payoutId}/deliveries?limit=10`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      code: 0,
      message: 'success',
      data: {
        items: [
          {
            delivery_id: 'dlv_cb',
            webhook_id: null,
            event_id: sent.event_id,
            event_type: 'payout.review.approved',
            url: 'https://merchant.example/payouts/notify',
            status: 'failed',
            attempts: [failedAttempt],
            created_at: testNow,
            updated_at: testNow,
          },
        ],
        total: 1,
        limit: 10,
        offset: 0,
      },
    });
    const skipped = await h.as(a.token).get(`/payment/payouts/${payoutId}/deliveries?offset=1`);
    expect(skipped.body.data).toEqual({ items: [], total: 1, limit: 20, offset: 1 });
  });

  it('answers payout not found for an unknown payout and for another merchant', async () => {
    for (const [token, id] of [
      [a.token, 'po_404'],
      [b.token, payoutId],
    ] as const) {
      const answer = await h.as(token).get(`/payment/payouts/${id}/deliveries`);
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ code: 65, message: 'payout not found' });
    }
  });

  it('answers the list query errors and needs payment.payout.read', async () => {
    const bad = await h.as(a.token).get(`/payment/payouts/${payoutId}/deliveries?limit=101`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 51, message: 'invalid limit' });
    const webhooksOnly = await h.issueKey(a.accountId, {
      permissions: ['payment.webhook.read', 'payment.webhook.write'],
    });
    const refused = await h.as(webhooksOnly.token).get(`/payment/payouts/${payoutId}/deliveries`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 61, message: 'forbidden' });
  });

  it('issue 19, M2: sending a payout callback again takes the payout permission, not only payment.webhook.write', async () => {
    const webhooksOnly = await h.issueKey(a.accountId, {
      permissions: ['payment.webhook.read', 'payment.webhook.write'],
    });
    const refused = await h
      .as(webhooksOnly.token)
      .post('/payment/webhook-deliveries/dlv_cb/redeliver');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 61, message: 'forbidden' });
    // Nothing was queued: the delivery is still the failed one.
    const kept = await store.transaction((tx) => tx.webhookDeliveries.get('dlv_cb'));
    expect(kept).toMatchObject({ status: 'failed', outbox_id: sent.outbox_id });
  });

  it('redelivers the callback: the same payload queued again to the notify_url', async () => {
    const answer = await h.as(a.token).post('/payment/webhook-deliveries/dlv_cb/redeliver');
    expect(answer.status).toBe(200);
    expect(answer.body.data.delivery).toMatchObject({
      delivery_id: 'dlv_cb',
      webhook_id: null,
      status: 'pending',
      attempts: [failedAttempt],
    });
    const queued = await store.transaction(async (tx) => {
      const delivery = await tx.webhookDeliveries.get('dlv_cb');
      return delivery?.outbox_id === undefined ? undefined : tx.outbox.get(delivery.outbox_id);
    });
    expect(queued?.outbox_id).not.toBe(sent.outbox_id);
    expect(queued).toEqual({
      outbox_id: expect.any(String),
      event_id: `${sent.event_id}:${queued?.outbox_id}`,
      account_id: a.accountId,
      business_type: 'payout',
      business_id: payoutId,
      event_type: 'payout.review.approved',
      destination: { kind: 'notify_url', url: 'https://merchant.example/payouts/notify' },
      payload: sent.payload,
      status: 'pending',
      attempts: 0,
      available_at: testNow,
      created_at: testNow,
    });
    const listed = await h.as(a.token).get(`/payment/payouts/${payoutId}/deliveries`);
    expect(listed.body.data.items.map((d: { status: string }) => d.status)).toEqual(['pending']);
    const otherMerchant = await h.as(b.token).post('/payment/webhook-deliveries/dlv_cb/redeliver');
    expect(otherMerchant.status).toBe(404);
  });
});
