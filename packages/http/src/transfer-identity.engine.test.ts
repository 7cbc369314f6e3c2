/**
 * Issue 19, L1: one on-chain transfer (same token, receiving address and tx_hash) reported under
 * two provider payment ids was credited twice, a payment record each. A transfer is now one
 * record whatever the ids: reported under a second payment id it is refused with
 * `invalid upstream merchant deposit payload` (400/51, as a payment id another order saw first,
 * or another tx_hash for a known payment id) and changes nothing, on both doors a payment comes
 * in by and across them, also when the two reports race. The admin API's sandbox payment that
 * names no payment id is that transfer's payment again (a repeat, not a refusal). Another tx_hash
 * on the same address is another transfer and is credited. Through HTTP on the real engine, on
 * every store of the http package's list.
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
  operatorToken,
  refusalOf,
} from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

/** The sandbox provider's signing secret: its chain watcher signs every report. */
const upstreamSecret = generateSandboxUpstreamSecret();

const refused = invalidUpstreamPayload;

interface Transfer {
  readonly txHash: string;
  readonly status?: 'processing' | 'confirming' | 'confirmed';
  readonly amount?: string;
}

describe.each(storesUnderTest)('one transfer, one credit (real engine, $name)', (under) => {
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

  /** A merchant of its own with a direct TRON_USDT order of 30 USD: one 10 USDT transfer is a part. */
  const order = async () => {
    merchants += 1;
    const m = await h.merchant(`Transfer ${merchants}`);
    const as = h.as(m.token);
    const { webhook } = ok(
      await as.post('/payment/webhooks', {
        url: 'https://merchant.example/hooks',
        events: ['acquiring.*'],
      }),
    );
    const data = ok(
      await as.post(
        '/payment/acquiring/orders',
        directTronOrder(`TRANSFER-${merchants}`, webhook.webhook_id),
      ),
    );
    const orderId = data.order.order_id as string;
    return {
      as,
      orderId,
      address: data.payment_address.address as string,
      // Payment ids are the provider's, bound to the first order that sees them: one set each.
      id: (n: number) => `${orderId}-chain-${n}`,
    };
  };
  type Order = Awaited<ReturnType<typeof order>>;

  const viaAdmin = (o: Order, paymentId: string | undefined, transfer: Transfer) =>
    h.call(
      'POST',
      `/admin/sandbox/acquiring/orders/${o.orderId}/payments`,
      { Authorization: `Bearer ${operatorToken}` },
      {
        token_id: 'TRON_USDT',
        amount: transfer.amount ?? '10',
        status: transfer.status ?? 'confirmed',
        tx_hash: transfer.txHash,
        ...(paymentId === undefined ? {} : { payment_id: paymentId }),
      },
    );

  const viaUpstream = (o: Order, paymentId: string, transfer: Transfer) => {
    const report = {
      events: [
        {
          network: 'TRON',
          address: o.address,
          token_id: 'TRON_USDT',
          tx_hash: transfer.txHash,
          amount: transfer.amount ?? '10',
          status: transfer.status ?? 'confirmed',
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

  /** What the merchant can tell: the order, its payment records, its USDT ledger. */
  const view = async (o: Order) => {
    const { order: read } = ok(await o.as.get(`/payment/acquiring/orders/${o.orderId}`));
    const { items } = ok(await o.as.get(`/payment/acquiring/orders/${o.orderId}/payments`));
    const ledger = ok(await o.as.get('/payment/ledger?currency=USDT')).items;
    return {
      status: read.status as string,
      paid: read.paid_amount_total as string,
      payments: items.map((p: { payment_id: string; tx_hash: string; status: string }) => [
        p.payment_id,
        p.tx_hash,
        p.status,
      ]),
      credits: ledger.map((e: { record_type: string; amount: string; business_id: string }) => [
        e.record_type,
        e.amount,
        e.business_id,
      ]),
    };
  };

  const creditedOnce = (paymentId: string, txHash: string) => ({
    status: 'partial_paid',
    paid: '10.000000',
    payments: [[paymentId, txHash, 'completed']],
    credits: [['pay_in', '10.000000', paymentId]],
  });

  it('the upstream endpoint refuses a transfer reported again under another payment id', async () => {
    const o = await order();
    ok(await viaUpstream(o, o.id(1), { txHash: 'feed01' }));
    expect(refusalOf(await viaUpstream(o, o.id(2), { txHash: 'feed01' }))).toEqual(refused);
    expect(await view(o)).toEqual(creditedOnce(o.id(1), 'feed01'));
  });

  it('the admin sandbox payments refuse it too, and either door after the other', async () => {
    const o = await order();
    ok(await viaAdmin(o, o.id(1), { txHash: 'feed02' }));
    expect(refusalOf(await viaAdmin(o, o.id(2), { txHash: 'feed02' }))).toEqual(refused);
    expect(refusalOf(await viaUpstream(o, o.id(3), { txHash: 'feed02' }))).toEqual(refused);
    expect(await view(o)).toEqual(creditedOnce(o.id(1), 'feed02'));

    const other = await order();
    ok(await viaUpstream(other, other.id(1), { txHash: 'feed03' }));
    expect(refusalOf(await viaAdmin(other, other.id(2), { txHash: 'feed03' }))).toEqual(refused);
    expect(await view(other)).toEqual(creditedOnce(other.id(1), 'feed03'));
  });

  it('seen first, confirmed later under another id: the confirmation is refused, and the first id still confirms it once', async () => {
    const o = await order();
    ok(await viaUpstream(o, o.id(1), { txHash: 'feed04', status: 'processing' }));
    expect(refusalOf(await viaUpstream(o, o.id(2), { txHash: 'feed04' }))).toEqual(refused);
    // Another amount under another id is no other transfer either.
    expect(refusalOf(await viaUpstream(o, o.id(3), { txHash: 'feed04', amount: '20' }))).toEqual(
      refused,
    );
    ok(await viaUpstream(o, o.id(1), { txHash: 'feed04' }));
    expect(await view(o)).toEqual(creditedOnce(o.id(1), 'feed04'));
  });

  it('a hex tx_hash in another letter case names the same transfer', async () => {
    const o = await order();
    ok(await viaAdmin(o, o.id(1), { txHash: '0xfeed05' }));
    expect(refusalOf(await viaAdmin(o, o.id(2), { txHash: '0xFEED05' }))).toEqual(refused);
    expect(await view(o)).toEqual(creditedOnce(o.id(1), '0xfeed05'));
  });

  it('two reports of one transfer under two ids at once: one is recorded and credited, the other refused', async () => {
    for (let round = 0; round < 4; round += 1) {
      const o = await order();
      const txHash = `feed06${round}`;
      const answers = await Promise.all([
        viaUpstream(o, o.id(1), { txHash }),
        viaUpstream(o, o.id(2), { txHash }),
      ]);
      const told = answers.map((a) => (a.body.code === 0 ? 'success' : refusalOf(a)));
      expect(told.filter((t) => t === 'success')).toHaveLength(1);
      expect(told.filter((t) => t !== 'success')).toEqual([refused]);
      const winner = told[0] === 'success' ? o.id(1) : o.id(2);
      expect(await view(o)).toEqual(creditedOnce(winner, txHash));
    }
  });

  it('an admin sandbox payment naming no payment id is the payment of its transfer again', async () => {
    const o = await order();
    const seen = ok(await viaAdmin(o, undefined, { txHash: 'feed07', status: 'processing' }));
    const paymentId = seen.payment.payment_id as string;
    const confirmed = ok(await viaAdmin(o, undefined, { txHash: 'feed07' }));
    expect(confirmed.payment).toMatchObject({ payment_id: paymentId, status: 'completed' });
    const repeated = ok(await viaAdmin(o, undefined, { txHash: 'feed07' }));
    expect(repeated).toEqual(confirmed);
    expect(await view(o)).toEqual(creditedOnce(paymentId, 'feed07'));
  });

  it('another tx_hash to the same address is another transfer: recorded and credited', async () => {
    const o = await order();
    ok(await viaUpstream(o, o.id(1), { txHash: 'feed08' }));
    ok(await viaUpstream(o, o.id(2), { txHash: 'feed09' }));
    ok(await viaAdmin(o, undefined, { txHash: 'feed10' }));
    const seen = await view(o);
    expect(seen).toMatchObject({ status: 'completed', paid: '30.000000' });
    expect(seen.credits.map(([type, amount]: string[]) => [type, amount])).toEqual([
      ['pay_in', '10.000000'],
      ['pay_in', '10.000000'],
      ['pay_in', '10.000000'],
    ]);
  });
});
