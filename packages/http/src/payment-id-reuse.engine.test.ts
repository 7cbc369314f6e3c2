/**
 * A payment id is the provider's id of ONE transfer, credited under `<payment_id>:pay_in`. One
 * transfer cannot pay two orders: the second order that names a credited payment id is refused
 * with `invalid upstream merchant deposit payload` (400/51) and left as it was, on both doors a
 * payment comes in by (the admin API's sandbox payments and `POST /upstream/acquiring/sandbox`),
 * and across them. Before, the ledger's duplicate journal escaped as `internal error` (500).
 * Through HTTP on the real engine, on every store of the http package's list.
 */
import {
  generateSandboxUpstreamSecret,
  sandboxAcquiringProvider,
  signSandboxUpstream,
} from '@payrail/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  directTronOrder,
  type EngineApp,
  engineApp,
  invalidUpstreamPayload,
  okData,
  refusalOf,
} from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

/** The sandbox provider's signing secret: its chain watcher signs every report. */
const upstreamSecret = generateSandboxUpstreamSecret();

const refused = invalidUpstreamPayload;

describe.each(storesUnderTest)('one payment id pays one order (real engine, $name)', (under) => {
  let h: EngineApp;
  let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;
  let merchants = 0;

  beforeAll(async () => {
    store = await under.open();
    h = engineApp({
      store,
      acquiringProviders: [
        sandboxAcquiringProvider({ allowedSources: ['127.0.0.1/32'], secret: upstreamSecret }),
      ],
    });
  });

  afterAll(async () => {
    await store.close?.();
  });

  const ok = okData;

  /** A merchant of its own with two direct TRON_USDT orders of 10 USD. */
  const twoOrders = async () => {
    merchants += 1;
    const m = await h.merchant(`Reuse ${merchants}`);
    const as = h.as(m.token);
    const { webhook } = ok(
      await as.post('/payment/webhooks', {
        url: 'https://merchant.example/hooks',
        events: ['acquiring.*'],
      }),
    );
    const order = async (n: number) => {
      const data = ok(
        await as.post(
          '/payment/acquiring/orders',
          directTronOrder(`REUSE-${merchants}-${n}`, webhook.webhook_id, '10.00'),
        ),
      );
      return {
        orderId: data.order.order_id as string,
        address: data.payment_address.address as string,
      };
    };
    return { as, first: await order(1), second: await order(2) };
  };

  const viaAdmin = (orderId: string, paymentId: string) =>
    h.call(
      'POST',
      `/admin/sandbox/acquiring/orders/${orderId}/payments`,
      { Authorization: 'Bearer operator-token-for-tests' },
      {
        token_id: 'TRON_USDT',
        amount: '10',
        status: 'confirmed',
        payment_id: paymentId,
        tx_hash: `tx-${paymentId}`,
      },
    );

  const viaUpstream = (address: string, paymentId: string) => {
    const report = {
      events: [
        {
          network: 'TRON',
          address,
          token_id: 'TRON_USDT',
          tx_hash: `tx-${paymentId}`,
          amount: '10',
          status: 'confirmed',
          payment_id: paymentId,
        },
      ],
    };
    return h.call(
      'POST',
      '/upstream/acquiring/sandbox',
      signSandboxUpstream(upstreamSecret, JSON.stringify(report)),
      report,
    );
  };

  /** What the merchant can tell: both orders, the second's payments, the USDT ledger. */
  const merchantView = async (
    as: ReturnType<EngineApp['as']>,
    orders: Awaited<ReturnType<typeof twoOrders>>,
  ) => {
    const statusOf = async (orderId: string) => {
      const { order } = ok(await as.get(`/payment/acquiring/orders/${orderId}`));
      return [order.status, order.paid_amount_total];
    };
    return {
      first: await statusOf(orders.first.orderId),
      second: await statusOf(orders.second.orderId),
      secondPayments: ok(
        await as.get(`/payment/acquiring/orders/${orders.second.orderId}/payments`),
      ).items,
      ledger: ok(await as.get('/payment/ledger?currency=USDT')).items.map(
        (entry: { record_type: string; amount: string; business_id: string }) => [
          entry.record_type,
          entry.amount,
          entry.business_id,
        ],
      ),
    };
  };

  const creditedOnce = (paymentId: string) => ({
    first: ['completed', '10.000000'],
    second: ['pending', '0.000000'],
    secondPayments: [],
    ledger: [['pay_in', '10.000000', paymentId]],
  });

  it('the admin sandbox payments refuse a payment id credited to another order', async () => {
    const orders = await twoOrders();
    ok(await viaAdmin(orders.first.orderId, 'chain-a'));
    expect(refusalOf(await viaAdmin(orders.second.orderId, 'chain-a'))).toEqual(refused);
    expect(await merchantView(orders.as, orders)).toEqual(creditedOnce('chain-a'));
  });

  it('the upstream endpoint refuses a payment id credited to another order', async () => {
    const orders = await twoOrders();
    ok(await viaUpstream(orders.first.address, 'chain-b'));
    expect(refusalOf(await viaUpstream(orders.second.address, 'chain-b'))).toEqual(refused);
    expect(await merchantView(orders.as, orders)).toEqual(creditedOnce('chain-b'));
  });

  it('and across the two doors, either way round', async () => {
    const one = await twoOrders();
    ok(await viaAdmin(one.first.orderId, 'chain-c'));
    expect(refusalOf(await viaUpstream(one.second.address, 'chain-c'))).toEqual(refused);
    expect(await merchantView(one.as, one)).toEqual(creditedOnce('chain-c'));

    const other = await twoOrders();
    ok(await viaUpstream(other.first.address, 'chain-d'));
    expect(refusalOf(await viaAdmin(other.second.orderId, 'chain-d'))).toEqual(refused);
    expect(await merchantView(other.as, other)).toEqual(creditedOnce('chain-d'));
  });

  it('a repeat on the same order is no reuse: it changes nothing and answers success', async () => {
    const orders = await twoOrders();
    const first = ok(await viaAdmin(orders.first.orderId, 'chain-e'));
    expect(ok(await viaAdmin(orders.first.orderId, 'chain-e'))).toEqual(first);
    expect(ok(await viaUpstream(orders.first.address, 'chain-e')).events).toEqual([
      expect.objectContaining({ payment_id: 'chain-e', changed: false }),
    ]);
    expect(await merchantView(orders.as, orders)).toEqual(creditedOnce('chain-e'));
  });
});
