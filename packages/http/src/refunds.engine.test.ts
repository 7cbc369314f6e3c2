/**
 * Refunds over HTTP on every store of the http package's list (ADR 0044): refunds asked at once
 * never give back more than was paid (they meet on the order's version, which the PostgreSQL
 * stores take in real concurrent transactions), and another merchant can neither refund, read
 * nor list a merchant's order's refunds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directTronOrder, type EngineApp, engineApp, okData } from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

const address = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

describe.each(storesUnderTest)('refunds (real engine, $name)', (under) => {
  let h: EngineApp;
  let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;
  let acme: Awaited<ReturnType<EngineApp['merchant']>>;
  let rival: Awaited<ReturnType<EngineApp['merchant']>>;
  let orderId: string;

  beforeAll(async () => {
    store = await under.open();
    h = engineApp({ store });
    await h.seedCatalogue();
    acme = await h.merchant('Acme');
    rival = await h.merchant('Rival');
    const { webhook } = okData(
      await h.as(acme.token).post('/payment/webhooks', {
        url: 'https://acme.example/hooks',
        events: ['acquiring.*'],
      }),
    );
    const { order } = okData(
      await h
        .as(acme.token)
        .post('/payment/acquiring/orders', directTronOrder('R-1', webhook.webhook_id)),
    );
    orderId = order.order_id;
    await h.admin('POST', `/admin/sandbox/acquiring/orders/${orderId}/payments`, {
      token_id: 'TRON_USDT',
      amount: '30.000000',
      status: 'confirmed',
    });
  }, 120_000);

  afterAll(async () => {
    await store.close?.();
  });

  it('grants one of three refunds of 20 asked at once on an order paid 30', async () => {
    const ask = () =>
      h.as(acme.token).post(`/payment/acquiring/orders/${orderId}/refunds`, {
        refund_type: 'partial',
        amount: '20',
        address,
      });
    const answers = await Promise.all([ask(), ask(), ask()]);
    const messages = answers.map((a) => a.body.message);
    expect(messages.filter((message) => message === 'success')).toHaveLength(1);
    // A loser is refused with a fact that holds once the winner committed: on a PostgreSQL
    // store a loser may read the order before that commit and the balance after it, so either
    // of the two true refusals may answer it (known item: a refusal is not re-checked against
    // the versions it read). Never a second grant.
    for (const message of messages.filter((message) => message !== 'success')) {
      expect([
        'refund amount exceeds refundable amount 10.000000',
        'insufficient balance',
      ]).toContain(message);
    }
    const read = okData(await h.as(acme.token).get(`/payment/acquiring/orders/${orderId}`));
    expect(read.order.refunded_amount).toBe('20.000000');
    expect(read.refunds).toHaveLength(1);
    const balances = okData(await h.as(acme.token).get('/payment/balances?currency=USDT'));
    expect(balances.items[0]).toMatchObject({ available: '10.000000', held: '20.000000' });
  });

  it("keeps a merchant's refunds from another merchant", async () => {
    const { items } = okData(
      await h.as(acme.token).get(`/payment/acquiring/orders/${orderId}/refunds`),
    );
    const refundId = items[0].refund_id as string;
    const as = h.as(rival.token);
    const refused = [
      await as.post(`/payment/acquiring/orders/${orderId}/refunds`, {
        refund_type: 'full',
        address,
      }),
      await as.get(`/payment/acquiring/orders/${orderId}/refunds`),
    ];
    for (const answer of refused) {
      expect([answer.status, answer.body.message]).toEqual([404, 'order not found']);
    }
    const read = await as.get(`/payment/acquiring/refunds/${refundId}`);
    expect([read.status, read.body.message]).toEqual([404, 'refund not found']);
  });
});
