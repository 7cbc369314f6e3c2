/**
 * Issue 12, finding 6: a provider `payment_id` could be moved to another order, after which the
 * first order could never be credited (its credit is keyed by the payment id, which the second
 * order had used). A payment id is now bound to the first order that sees it: an event naming
 * it for another order, of any merchant and at any step, is refused with
 * `invalid upstream merchant deposit payload` and changes nothing, and the first order is still
 * credited when the payment confirms. Through the admin API's sandbox payments (the same door as
 * the upstream endpoint's events, `applyPaymentEvent`), on every store of the http package's list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directTronOrder,
  type EngineApp,
  engineApp,
  invalidUpstreamPayload,
  okData,
  operatorToken,
  refusalOf,
} from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

const refused = invalidUpstreamPayload;

describe.each(storesUnderTest)('a payment id is bound to its first order ($name)', (under) => {
  let h: EngineApp;
  let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;
  let merchants = 0;

  beforeAll(async () => {
    store = await under.open();
    h = engineApp({ store });
  });

  afterAll(async () => {
    await store.close?.();
  });

  const ok = okData;

  /** A merchant of its own with a direct TRON_USDT order of 10 USD. */
  const orderOfNewMerchant = async () => {
    merchants += 1;
    const m = await h.merchant(`Binding ${merchants}`);
    const as = h.as(m.token);
    const { webhook } = ok(
      await as.post('/payment/webhooks', {
        url: 'https://merchant.example/hooks',
        events: ['acquiring.*'],
      }),
    );
    const { order } = ok(
      await as.post(
        '/payment/acquiring/orders',
        directTronOrder(`BIND-${merchants}`, webhook.webhook_id, '10.00'),
      ),
    );
    return { as, orderId: order.order_id as string };
  };

  const pay = (orderId: string, paymentId: string, status: string) =>
    h.call(
      'POST',
      `/admin/sandbox/acquiring/orders/${orderId}/payments`,
      { Authorization: `Bearer ${operatorToken}` },
      { token_id: 'TRON_USDT', amount: '10', status, payment_id: paymentId },
    );

  const view = async (o: Awaited<ReturnType<typeof orderOfNewMerchant>>) => {
    const { order } = ok(await o.as.get(`/payment/acquiring/orders/${o.orderId}`));
    const { items } = ok(await o.as.get(`/payment/acquiring/orders/${o.orderId}/payments`));
    const ledger = ok(await o.as.get('/payment/ledger?currency=USDT')).items;
    return {
      status: order.status as string,
      paid: order.paid_amount_total as string,
      payments: items.map((p: { payment_id: string; status: string }) => [p.payment_id, p.status]),
      credits: ledger.map((e: { record_type: string; amount: string }) => [
        e.record_type,
        e.amount,
      ]),
    };
  };

  it.each(['processing', 'confirming', 'confirmed'])(
    'a provider payment_id can be moved to another order: naming it %s for a second order is refused, and the first is still credited',
    async (secondStatus) => {
      const first = await orderOfNewMerchant();
      const second = await orderOfNewMerchant();
      const paymentId = `chain-${merchants}`;
      ok(await pay(first.orderId, paymentId, 'processing'));
      const untouched = await view(second);

      expect(refusalOf(await pay(second.orderId, paymentId, secondStatus))).toEqual(refused);
      expect(await view(second)).toEqual(untouched);
      expect(untouched).toEqual({ status: 'pending', paid: '0.000000', payments: [], credits: [] });

      ok(await pay(first.orderId, paymentId, 'confirmed'));
      expect(await view(first)).toEqual({
        status: 'completed',
        paid: '10.000000',
        payments: [[paymentId, 'completed']],
        credits: [['pay_in', '10.000000']],
      });
      // Confirmed and credited, it stays bound: the second order is refused again.
      expect(refusalOf(await pay(second.orderId, paymentId, 'confirmed'))).toEqual(refused);
      expect(await view(second)).toEqual(untouched);
    },
  );

  it('the first order takes its own payment id again and again', async () => {
    const first = await orderOfNewMerchant();
    const paymentId = `chain-own-${merchants}`;
    ok(await pay(first.orderId, paymentId, 'processing'));
    ok(await pay(first.orderId, paymentId, 'confirming'));
    ok(await pay(first.orderId, paymentId, 'confirmed'));
    ok(await pay(first.orderId, paymentId, 'confirmed'));
    expect((await view(first)).credits).toEqual([['pay_in', '10.000000']]);
  });
});
