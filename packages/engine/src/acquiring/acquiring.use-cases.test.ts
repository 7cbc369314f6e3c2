import {
  type AccountRecord,
  type ChainNetwork,
  isEvmAddress,
  isTronAddress,
  type OutboxMessage,
  type Store,
  StoreFailure,
  type StoreTransaction,
  type WebhookRecord,
} from '@payrail/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { maxAttempts } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import { createEngine } from '../engine.wiring.js';
import type { OrderAnswer } from '../engine-answers.views.js';
import { bootstrapOperator } from '../operators/operators.use-cases.js';
import { timerWorker } from '../workers/timer.worker.js';
import {
  caller,
  dataOf,
  otherMerchant,
  refusal,
  refusalOf,
  seed,
  type TestBed,
  t0,
  testBed,
  webhookRecord,
} from './acquiring.test-support.js';
import { type AcquiringUseCases, acquiringUseCases } from './acquiring.use-cases.js';
import { depositAddressOf } from './deposit-addresses.store.js';
import { findDepositAddress, orderOfDeposit } from './order.persistence.js';

import { sandboxTxHashOf } from './sandbox-payment-event.policy.js';

/** The order that handed `address` out on `network`, as the upstream receiver finds it. */
const findOrderByDepositAddress = async (
  tx: StoreTransaction,
  network: ChainNetwork,
  address: string,
) => orderOfDeposit(tx, await findDepositAddress(tx, network, address));

const orderBody = {
  out_trade_no: 'ORD-1',
  order_currency: 'USD',
  order_amount: '25.00',
  allowed_pay_currencies: ['TRON_USDT', 'ETH_USDC'],
  expire_seconds: 1800,
  underpay_tolerance: '0.10',
  notify_webhook_id: 'wh_a',
};

let bed: TestBed;
let uc: AcquiringUseCases;
const me = caller();

beforeEach(async () => {
  bed = testBed();
  await seed(bed);
  uc = acquiringUseCases(bed.deps);
});

const later = (seconds: number) => bed.deps.clock.advance(seconds);

const createOrder = async (body: Record<string, unknown> = {}, who: Caller = me) =>
  dataOf(await uc.acquiring.create(who, { ...orderBody, ...body }));

const orderOf = (data: OrderAnswer) => data.order;

const pay = async (orderId: string, body: Record<string, unknown>) =>
  dataOf(await uc.admin.sandboxPayment(orderId, body)).payment as Record<string, unknown>;

const changeAccount = (changes: Partial<AccountRecord>, accountId = 'acc_a') =>
  bed.deps.store.transaction(async (tx) => {
    const account = await tx.accounts.get(accountId);
    if (account === undefined) throw new Error('no account');
    await tx.accounts.update({ ...account, ...changes });
  });

const addWebhook = (record: Partial<WebhookRecord>) =>
  bed.deps.store.transaction((tx) => tx.webhooks.insert(webhookRecord(record)));

/** The outbox rows a merchant's webhook will receive, oldest first, as type and data. */
const deliveries = async (): Promise<readonly { type: string; data: Record<string, unknown> }[]> =>
  (await bed.oracle.outbox()).map((row: OutboxMessage) => {
    expect(row.destination).toEqual({ kind: 'webhook', webhookId: 'wh_a' });
    return {
      type: row.event_type,
      data: (row.payload as { data: Record<string, unknown> }).data,
    };
  });

const balances = () => bed.deps.store.transaction((tx) => tx.ledger.balances('acc_a'));

describe('order create', () => {
  it('answers data.order in the wire shape, sets the expiry timer and sends no webhook', async () => {
    const data = await createOrder({ redirect_url: '/done', remark: 'note' });
    expect(data).toEqual({
      order: {
        order_id: 'ord_1',
        platform_order_no: '202611221',
        out_trade_no: 'ORD-1',
        status: 'pending',
        checkout_type: 'hosted',
        order_currency: 'USD',
        order_amount: '25.00',
        allowed_pay_currencies: ['TRON_USDT', 'ETH_USDC'],
        pay_amount: '25.000000',
        paid_amount_total: '0.000000',
        remaining_amount: '25.000000',
        overpaid_amount: '0.000000',
        underpay_tolerance: '0.100000',
        checkout_url: 'https://pay.example.com/checkout/ord_1',
        notify_webhook_id: 'wh_a',
        redirect_automatically: false,
        refunded_amount: '0.000000',
        resolution: null,
        expire_time: t0 + 1800,
        created_at: t0,
        updated_at: t0,
      },
    });
    expect(await bed.oracle.timers()).toEqual([
      {
        timer_id: 'order.expiry:ord_1',
        name: 'order.expiry',
        business_type: 'acquiring',
        business_id: 'ord_1',
        account_id: 'acc_a',
        due_at: t0 + 1800,
      },
    ]);
    expect(await bed.oracle.outbox()).toEqual([]);
    expect(await bed.oracle.record('acquiringOrders', 'ord_1')).toMatchObject({
      account_id: 'acc_a',
      out_trade_no: 'ORD-1',
      status: 'pending',
      version: 1,
    });
  });

  it("uses the account's default tokens when allowed_pay_currencies is omitted", async () => {
    const { allowed_pay_currencies: _, ...body } = orderBody;
    const data = dataOf(await uc.acquiring.create(me, body));
    expect(orderOf(data).allowed_pay_currencies).toEqual(['TRON_USDT', 'ETH_USDC']);
  });

  it('direct mode answers the payment address at once and records it for upstream payments', async () => {
    const data = await createOrder({ mode: 'direct', network: 'TRON', currency: 'USDT' });
    const address = depositAddressOf('ord_1', 'TRON');
    expect(isTronAddress(address)).toBe(true);
    expect(orderOf(data).checkout_url).toBe('');
    expect(data.payment_address).toEqual({
      network: 'TRON',
      currency: 'USDT',
      token_id: 'TRON_USDT',
      address,
    });
    const found = await bed.deps.store.transaction((tx) =>
      findOrderByDepositAddress(tx, 'TRON', address),
    );
    expect(found?.record.order_id).toBe('ord_1');
    // the query answers the address too
    expect(dataOf(await uc.acquiring.get(me, 'ord_1')).payment_address).toEqual(
      data.payment_address,
    );
  });

  it('a direct EVM address is checksummed, and a lower-case spelling finds the order', async () => {
    const data = await createOrder({ mode: 'direct', network: 'ETH', currency: 'USDC' });
    const address = (data.payment_address as { address: string }).address;
    expect(isEvmAddress(address)).toBe(true);
    expect(address).not.toBe(address.toLowerCase());
    const found = await bed.deps.store.transaction((tx) =>
      findOrderByDepositAddress(tx, 'ETH', address.toLowerCase()),
    );
    expect(found?.record.order_id).toBe('ord_1');
    await expect(
      bed.deps.store.transaction((tx) => findOrderByDepositAddress(tx, 'BSC', address)),
    ).rejects.toThrow('merchant deposit address not found');
  });

  it('answers every acquiring message the engine decides, with its status and code', async () => {
    await addWebhook({ webhook_id: 'wh_off', status: 'inactive' });
    await addWebhook({ webhook_id: 'wh_gone', status: 'deleted' });
    await addWebhook({ webhook_id: 'wh_payout', events: ['payout.*'] });
    const invalidHook = refusal(400, 53, 'notify_webhook_id invalid or inactive');
    for (const id of ['wh_nope', 'wh_b', 'wh_off', 'wh_gone']) {
      expect(
        refusalOf(await uc.acquiring.create(me, { ...orderBody, notify_webhook_id: id })),
      ).toEqual(invalidHook);
    }
    expect(
      refusalOf(await uc.acquiring.create(me, { ...orderBody, notify_webhook_id: 'wh_payout' })),
    ).toEqual(refusal(400, 53, 'notify_webhook_id not subscribed to acquiring events'));

    await changeAccount({ enabled_pay_tokens: ['TRON_USDT'], default_pay_tokens: [] });
    expect(refusalOf(await uc.acquiring.create(me, orderBody))).toEqual(
      refusal(400, 53, 'unsupported network/currency: ETH/USDC'),
    );
    const { allowed_pay_currencies: _, ...withoutTokens } = orderBody;
    expect(refusalOf(await uc.acquiring.create(me, withoutTokens))).toEqual(
      refusal(400, 51, 'allowed_pay_currencies required'),
    );
    await changeAccount({ enabled_pay_tokens: [] });
    expect(refusalOf(await uc.acquiring.create(me, orderBody))).toEqual(
      refusal(400, 53, 'no available pay tokens for current account'),
    );
    expect(await bed.oracle.count('acquiringOrders')).toBe(0);
  });

  it('a repeated out_trade_no is refused, but another merchant may use it', async () => {
    await createOrder();
    expect(refusalOf(await uc.acquiring.create(me, orderBody))).toEqual(
      refusal(400, 53, 'out_trade_no already exists'),
    );
    await createOrder({ notify_webhook_id: 'wh_b' }, otherMerchant);
    expect(await bed.oracle.count('acquiringOrders')).toBe(2);
  });

  it('checks permission, product and a frozen account; codec errors pass through', async () => {
    const forbidden = refusal(403, 61, 'forbidden');
    const readOnly = caller({ permissions: ['payment.acquiring.read'] });
    expect(refusalOf(await uc.acquiring.create(readOnly, orderBody))).toEqual(forbidden);
    expect(refusalOf(await uc.acquiring.close(readOnly, 'ord_1', { reason: 'x' }))).toEqual(
      forbidden,
    );
    expect(refusalOf(await uc.acquiring.get(caller({ permissions: [] }), 'ord_1'))).toEqual(
      forbidden,
    );
    await createOrder();
    await changeAccount({ status: 'frozen' });
    expect(
      refusalOf(await uc.acquiring.create(me, { ...orderBody, out_trade_no: 'ORD-2' })),
    ).toEqual(refusal(403, 61, 'account frozen'));
    // Read together with the webhook and the out_trade_no's holder (issue 24), the account's
    // refusal still comes before the body's and before an out_trade_no already taken.
    expect(refusalOf(await uc.acquiring.create(me, { ...orderBody, order_amount: -1 }))).toEqual(
      refusal(403, 61, 'account frozen'),
    );
    expect(refusalOf(await uc.acquiring.create(me, orderBody))).toEqual(
      refusal(403, 61, 'account frozen'),
    );
    expect(orderOf(dataOf(await uc.acquiring.get(me, 'ord_1'))).status).toBe('pending');
    await changeAccount({ status: 'active', products: { payout: true, acquiring: false } });
    expect(refusalOf(await uc.acquiring.get(me, 'ord_1'))).toEqual(forbidden);
    await changeAccount({ products: { payout: true, acquiring: true } });
    expect(
      refusalOf(await uc.acquiring.create(me, { ...orderBody, order_currency: 'EUR' })),
    ).toEqual(refusal(400, 51, 'order_currency only supports USD'));
  });
});

describe('order lifecycle', () => {
  it('partial then complete payment: records, statuses, webhooks in order and the pay_in credit', async () => {
    await createOrder();
    const address = depositAddressOf('ord_1', 'TRON');
    later(60);
    const seen = await pay('ord_1', {
      token_id: 'TRON_USDT',
      amount: '10',
      status: 'processing',
      payment_id: 'p1',
    });
    expect(seen).toEqual({
      payment_id: 'p1',
      order_id: 'ord_1',
      network: 'TRON',
      currency: 'USDT',
      token_id: 'TRON_USDT',
      address,
      amount: '10.000000',
      tx_hash: sandboxTxHashOf('TRON', 'p1'),
      confirmations: 0,
      required_confirmations: 19,
      status: 'processing',
      detected_at: t0 + 60,
      confirmed_at: null,
      created_at: t0 + 60,
      updated_at: t0 + 60,
    });
    expect(orderOf(dataOf(await uc.acquiring.get(me, 'ord_1'))).status).toBe('processing');

    later(60);
    const confirmed = await pay('ord_1', {
      token_id: 'TRON_USDT',
      amount: '10',
      status: 'confirmed',
      payment_id: 'p1',
    });
    expect(confirmed).toMatchObject({
      status: 'completed',
      confirmations: 19,
      confirmed_at: t0 + 120,
      tx_hash: sandboxTxHashOf('TRON', 'p1'),
    });
    const partial = orderOf(dataOf(await uc.acquiring.get(me, 'ord_1')));
    expect(partial).toMatchObject({
      status: 'partial_paid',
      paid_amount_total: '10.000000',
      remaining_amount: '15.000000',
    });
    expect(await balances()).toEqual([
      { currency: 'USDT', available: '10.000000', held: '0.000000' },
    ]);

    later(60);
    await pay('ord_1', {
      token_id: 'ETH_USDC',
      amount: '15',
      status: 'confirmed',
      tx_hash: '0xfeed',
      payment_id: 'p2',
    });
    const done = dataOf(await uc.acquiring.get(me, 'ord_1'));
    expect(orderOf(done)).toMatchObject({
      status: 'completed',
      paid_amount_total: '25.000000',
      remaining_amount: '0.000000',
      overpaid_amount: '0.000000',
      updated_at: t0 + 180,
    });

    const events = await deliveries();
    expect(events.map((e) => [e.type, e.data.previous_status, e.data.status])).toEqual([
      ['acquiring.payment.updated', 'pending', 'processing'],
      ['acquiring.order.updated', 'pending', 'processing'],
      ['acquiring.payment.updated', 'processing', 'completed'],
      ['acquiring.order.updated', 'processing', 'partial_paid'],
      ['acquiring.payment.updated', 'pending', 'completed'],
      ['acquiring.order.updated', 'partial_paid', 'completed'],
    ]);
    expect(events[5]?.data).toEqual({
      provider_event: 'transaction_confirmed',
      anomaly_tag: '',
      order_id: 'ord_1',
      platform_order_no: '202611221',
      out_trade_no: 'ORD-1',
      previous_status: 'partial_paid',
      status: 'completed',
      status_changed: true,
      amount_changed: true,
      order_currency: 'USD',
      pay_amount: '25.000000',
      paid_amount_total: '25.000000',
      remaining_amount: '0.000000',
      overpaid_amount: '0.000000',
      underpay_tolerance: '0.100000',
      expire_time: t0 + 1800,
      updated_at: t0 + 180,
    });
    expect(events[4]?.data).toEqual({
      order_id: 'ord_1',
      out_trade_no: 'ORD-1',
      payment_id: 'p2',
      token_id: 'ETH_USDC',
      address: depositAddressOf('ord_1', 'ETH'),
      tx_hash: '0xfeed',
      amount: '15.000000',
      previous_status: 'pending',
      status: 'completed',
      confirmations: 12,
      updated_at: t0 + 180,
    });
    expect(await balances()).toEqual([
      { currency: 'USDC', available: '15.000000', held: '0.000000' },
      { currency: 'USDT', available: '10.000000', held: '0.000000' },
    ]);
    expect([...(await bed.oracle.journalIds())].sort()).toEqual(['p1:pay_in', 'p2:pay_in']);

    const list = dataOf(await uc.acquiring.payments(me, 'ord_1'));
    expect(list.total).toBe(2);
    expect(list.items.map((p) => p.payment_id)).toEqual(['p1', 'p2']);
    expect(list.items).toContainEqual(confirmed);
    // the order is final: its timer is gone
    expect(await bed.oracle.timers()).toEqual([]);
  });

  it('a repeated provider event changes nothing and credits nothing twice', async () => {
    await createOrder();
    const body = { token_id: 'TRON_USDT', amount: '5', status: 'confirmed', payment_id: 'p1' };
    const first = await pay('ord_1', body);
    later(30);
    expect(await pay('ord_1', body)).toEqual(first);
    expect(await bed.oracle.journalIds()).toEqual(['p1:pay_in']);
    expect((await bed.oracle.outbox()).length).toBe(2);
  });

  it('a payment contradicting its record is refused, as is a token the order does not allow', async () => {
    await createOrder();
    await pay('ord_1', {
      token_id: 'TRON_USDT',
      amount: '5',
      status: 'processing',
      payment_id: 'p1',
    });
    expect(
      refusalOf(
        await uc.admin.sandboxPayment('ord_1', {
          token_id: 'TRON_USDT',
          amount: '6',
          status: 'confirmed',
          payment_id: 'p1',
        }),
      ),
    ).toEqual(refusal(400, 51, 'invalid upstream merchant deposit payload'));
    expect(
      refusalOf(
        await uc.admin.sandboxPayment('ord_1', {
          token_id: 'BSC_USDT',
          amount: '6',
          status: 'confirmed',
        }),
      ),
    ).toEqual(refusal(400, 53, 'network/currency not allowed by order'));
    expect(
      refusalOf(
        await uc.admin.sandboxPayment('ord_9', {
          token_id: 'TRON_USDT',
          amount: '1',
          status: 'confirmed',
        }),
      ),
    ).toEqual(refusal(404, 65, 'order not found'));
    expect(refusalOf(await uc.admin.sandboxPayment('ord_1', {}))).toEqual(
      refusal(400, 51, 'token_id required'),
    );
  });

  it('a payment id credited to one order cannot pay another: refused, the second order untouched', async () => {
    await createOrder();
    await createOrder({ out_trade_no: 'ORD-2' });
    const body = { token_id: 'TRON_USDT', amount: '5', status: 'confirmed', payment_id: 'p1' };
    await pay('ord_1', body);
    const before = await bed.oracle.outbox();
    expect(refusalOf(await uc.admin.sandboxPayment('ord_2', body))).toEqual(
      refusal(400, 51, 'invalid upstream merchant deposit payload'),
    );
    expect(orderOf(dataOf(await uc.acquiring.get(me, 'ord_2')))).toMatchObject({
      status: 'pending',
      paid_amount_total: '0.000000',
    });
    expect(dataOf(await uc.acquiring.payments(me, 'ord_2')).items).toEqual([]);
    expect(await bed.oracle.journalIds()).toEqual(['p1:pay_in']);
    expect(await bed.oracle.outbox()).toEqual(before);
    expect(await balances()).toEqual([
      { currency: 'USDT', available: '5.000000', held: '0.000000' },
    ]);
  });

  it('sandbox payments are refused outside the sandbox', async () => {
    const live = acquiringUseCases({
      ...bed.deps,
      settings: { ...bed.deps.settings, environment: 'live' },
    });
    expect(
      refusalOf(
        await live.admin.sandboxPayment('ord_1', {
          token_id: 'TRON_USDT',
          amount: '1',
          status: 'confirmed',
        }),
      ),
    ).toEqual(refusal(403, 61, 'forbidden'));
  });
});

describe('expiry', () => {
  const runTimers = () => timerWorker(bed.deps, uc.timerHandlers).runDueTimers('test-worker');

  it('the expiry timer expires an unpaid order at expire_time, not a second before', async () => {
    await createOrder();
    later(1799);
    expect(await runTimers()).toBe(0);
    later(1);
    expect(await runTimers()).toBe(1);
    expect(orderOf(dataOf(await uc.acquiring.get(me, 'ord_1')))).toMatchObject({
      status: 'expired',
      updated_at: t0 + 1800,
    });
    const events = await deliveries();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'acquiring.order.updated',
      data: {
        provider_event: 'order_expired',
        previous_status: 'pending',
        status: 'expired',
        status_changed: true,
        amount_changed: false,
      },
    });
    expect(await bed.oracle.timers()).toEqual([]);
  });

  it('an order with some confirmed money becomes underpaid', async () => {
    await createOrder();
    await pay('ord_1', { token_id: 'TRON_USDT', amount: '20', status: 'confirmed' });
    later(1800);
    expect(await runTimers()).toBe(1);
    expect(orderOf(dataOf(await uc.acquiring.get(me, 'ord_1'))).status).toBe('underpaid');
  });

  it('a query past expire_time settles the expiry itself, before the timer fires', async () => {
    await createOrder();
    later(2000);
    expect(orderOf(dataOf(await uc.acquiring.get(me, 'ord_1')))).toMatchObject({
      status: 'expired',
      updated_at: t0 + 2000,
    });
    expect((await deliveries()).map((e) => e.data.status)).toEqual(['expired']);
    expect(await bed.oracle.timers()).toEqual([]);
    expect(await runTimers()).toBe(0);
    // reading again sends nothing more
    await uc.acquiring.get(me, 'ord_1');
    const listed = dataOf(await uc.acquiring.list(me, {}));
    expect(listed.items.map((o) => o.status)).toEqual(['expired']);
    expect(await deliveries()).toHaveLength(1);
  });

  it('the list settles the rows it shows', async () => {
    await createOrder();
    later(2000);
    const listed = dataOf(await uc.acquiring.list(me, { status: 'pending' }));
    expect(listed.total).toBe(1);
    expect(listed.items[0]?.status).toBe('expired');
    expect(await bed.oracle.record('acquiringOrders', 'ord_1')).toMatchObject({
      status: 'expired',
    });
  });

  it('a payment after expiry is late, tags the order expired_paid once, and is still credited', async () => {
    await createOrder();
    later(1800);
    await runTimers();
    later(100);
    const late = await pay('ord_1', {
      token_id: 'TRON_USDT',
      amount: '25',
      status: 'confirmed',
      payment_id: 'late1',
    });
    expect(late.status).toBe('late');
    expect(orderOf(dataOf(await uc.acquiring.get(me, 'ord_1')))).toMatchObject({
      status: 'expired',
      paid_amount_total: '0.000000',
    });
    const events = await deliveries();
    expect(events.map((e) => e.type)).toEqual([
      'acquiring.order.updated',
      'acquiring.payment.updated',
      'acquiring.order.updated',
    ]);
    expect(events[2]?.data).toMatchObject({
      anomaly_tag: 'expired_paid',
      previous_status: 'expired',
      status: 'expired',
      status_changed: false,
      provider_event: 'transaction_confirmed',
    });
    expect(await balances()).toEqual([
      { currency: 'USDT', available: '25.000000', held: '0.000000' },
    ]);
    // a second late payment records the payment but sends no second order update
    await pay('ord_1', {
      token_id: 'TRON_USDT',
      amount: '1',
      status: 'processing',
      payment_id: 'late2',
    });
    expect((await deliveries()).map((e) => e.type)).toEqual([
      'acquiring.order.updated',
      'acquiring.payment.updated',
      'acquiring.order.updated',
      'acquiring.payment.updated',
    ]);
  });
});

describe('close', () => {
  it('closes an unfinished order once; a final order refuses', async () => {
    await createOrder();
    later(10);
    const closed = dataOf(await uc.acquiring.close(me, 'ord_1', { reason: 'customer left' }));
    expect(orderOf(closed)).toMatchObject({ status: 'closed', updated_at: t0 + 10 });
    expect((await deliveries()).map((e) => [e.data.provider_event, e.data.status])).toEqual([
      ['order_closed', 'closed'],
    ]);
    expect(await bed.oracle.timers()).toEqual([]);
    expect(refusalOf(await uc.acquiring.close(me, 'ord_1', { reason: 'again' }))).toEqual(
      refusal(400, 53, 'order already final'),
    );
  });

  it('a completed order cannot be closed; an expired one is already final', async () => {
    await createOrder();
    await pay('ord_1', { token_id: 'TRON_USDT', amount: '25', status: 'confirmed' });
    expect(refusalOf(await uc.acquiring.close(me, 'ord_1', { reason: 'x' }))).toEqual(
      refusal(400, 53, 'completed order cannot be closed'),
    );
    const second = orderOf(await createOrder({ out_trade_no: 'ORD-2' })).order_id;
    later(1800);
    expect(refusalOf(await uc.acquiring.close(me, second, { reason: 'x' }))).toEqual(
      refusal(400, 53, 'order already final'),
    );
    expect(refusalOf(await uc.acquiring.close(me, second, {}))).toEqual(
      refusal(400, 51, 'reason required'),
    );
  });
});

describe('visibility', () => {
  it("another merchant's order is not found, exactly like a missing one", async () => {
    await createOrder();
    const notFound = refusal(404, 65, 'order not found');
    expect(refusalOf(await uc.acquiring.get(otherMerchant, 'ord_1'))).toEqual(notFound);
    expect(refusalOf(await uc.acquiring.get(me, 'ord_404'))).toEqual(notFound);
    expect(refusalOf(await uc.acquiring.payments(otherMerchant, 'ord_1'))).toEqual(notFound);
    expect(refusalOf(await uc.acquiring.close(otherMerchant, 'ord_1', { reason: 'x' }))).toEqual(
      notFound,
    );
    expect(dataOf(await uc.acquiring.list(otherMerchant, {}))).toEqual({
      items: [],
      total: 0,
      limit: 20,
      offset: 0,
    });
  });

  it('lists with filters and paging', async () => {
    await createOrder();
    later(5);
    await createOrder({ out_trade_no: 'ORD-2' });
    const all = dataOf(await uc.acquiring.list(me, {}));
    expect(all.items.map((o) => o.out_trade_no)).toEqual(['ORD-2', 'ORD-1']);
    const one = dataOf(await uc.acquiring.list(me, { out_trade_no: 'ORD-1' }));
    expect(one.total).toBe(1);
    const paged = dataOf(await uc.acquiring.list(me, { limit: '1', offset: '1' }));
    expect(paged).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(refusalOf(await uc.acquiring.list(me, { status: 'paid' }))).toEqual(
      refusal(400, 51, 'invalid status'),
    );
  });
});

describe('hosted checkout', () => {
  it('carries redirect_automatically to the merchant view and the page data', async () => {
    const created = await createOrder({ redirect_url: '/thanks', redirect_automatically: true });
    expect(orderOf(created).redirect_automatically).toBe(true);
    expect(orderOf(dataOf(await uc.acquiring.get(me, 'ord_1'))).redirect_automatically).toBe(true);
    expect(dataOf(await uc.checkout.order('ord_1')).order).toMatchObject({
      redirect_url: '/thanks',
      redirect_automatically: true,
    });
    expect(
      refusalOf(
        await uc.acquiring.create(me, {
          ...orderBody,
          out_trade_no: 'ORD-2',
          redirect_automatically: 'true',
        }),
      ),
    ).toEqual(refusal(400, 51, 'Validation Failed'));
  });

  it('restores an order stored before redirect_automatically (snapshot version 1) as false', async () => {
    await createOrder({ redirect_url: '/thanks' });
    const rewind = await bed.deps.store.transaction(async (tx) => {
      const record = await tx.acquiringOrders.get('ord_1');
      if (record === undefined) throw new Error('no order');
      const stored = record.snapshot as {
        snapshot: { value: string; context: Record<string, unknown> };
      };
      const { redirect_automatically: _, ...context } = stored.snapshot.context;
      return tx.acquiringOrders.update({
        ...record,
        snapshot: { version: 1, snapshot: { ...stored.snapshot, context } },
      });
    });
    expect(rewind.snapshot).not.toHaveProperty('snapshot.context.redirect_automatically');
    expect(orderOf(dataOf(await uc.acquiring.get(me, 'ord_1'))).redirect_automatically).toBe(false);
    expect(dataOf(await uc.checkout.order('ord_1')).order).toMatchObject({
      redirect_automatically: false,
    });
    // The next change writes it back in today's format.
    dataOf(await uc.checkout.selectToken('ord_1', { network: 'ETH', currency: 'USDC' }));
    const saved = await bed.oracle.record('acquiringOrders', 'ord_1');
    expect(saved).toMatchObject({
      snapshot: {
        version: 3,
        snapshot: { context: { redirect_automatically: false, refunds: {}, resolution: null } },
      },
    });
  });

  it('refuses an order snapshot of a version it does not know', async () => {
    await createOrder();
    await bed.deps.store.transaction(async (tx) => {
      const record = await tx.acquiringOrders.get('ord_1');
      if (record === undefined) throw new Error('no order');
      await tx.acquiringOrders.update({
        ...record,
        snapshot: { ...(record.snapshot as object), version: 99 },
      });
    });
    await expect(uc.checkout.order('ord_1')).rejects.toThrow(
      'unsupported order snapshot version: 99',
    );
  });

  it('shows the public page data and takes the payer’s token choice', async () => {
    await createOrder({ logo_url: 'https://shop.example.com/logo.png', remark: 'internal' });
    const page = dataOf(await uc.checkout.order('ord_1'));
    expect(page).toEqual({
      order: {
        order_id: 'ord_1',
        out_trade_no: 'ORD-1',
        status: 'pending',
        order_currency: 'USD',
        order_amount: '25.00',
        pay_amount: '25.000000',
        paid_amount_total: '0.000000',
        remaining_amount: '25.000000',
        overpaid_amount: '0.000000',
        expire_time: t0 + 1800,
        pay_tokens: [
          { token_id: 'TRON_USDT', network: 'TRON', currency: 'USDT' },
          { token_id: 'ETH_USDC', network: 'ETH', currency: 'USDC' },
        ],
        selected_token: null,
        redirect_automatically: false,
        logo_url: 'https://shop.example.com/logo.png',
        refunded_amount: '0.000000',
        refunds: [],
      },
    });
    const chosen = dataOf(
      await uc.checkout.selectToken('ord_1', { network: 'ETH', currency: 'USDC' }),
    );
    const address = depositAddressOf('ord_1', 'ETH');
    expect((chosen.order as { selected_token: unknown }).selected_token).toEqual({
      network: 'ETH',
      currency: 'USDC',
      token_id: 'ETH_USDC',
      address,
    });
    expect(await bed.oracle.outbox()).toEqual([]);
    const found = await bed.deps.store.transaction((tx) =>
      findOrderByDepositAddress(tx, 'ETH', address),
    );
    expect(found?.record.order_id).toBe('ord_1');
    // choosing again records nothing twice
    dataOf(await uc.checkout.selectToken('ord_1', { network: 'ETH', currency: 'USDC' }));
    expect(await bed.oracle.count('depositAddresses')).toBe(1);
  });

  it('refuses what the page did not offer, a final order, a direct order and an unknown one', async () => {
    await createOrder();
    expect(
      refusalOf(await uc.checkout.selectToken('ord_1', { network: 'BSC', currency: 'USDT' })),
    ).toEqual(refusal(400, 53, 'network/currency not allowed by order'));
    expect(refusalOf(await uc.checkout.selectToken('ord_1', { network: 'BSC' }))).toEqual(
      refusal(400, 51, 'network/currency required'),
    );
    later(1800);
    expect(
      refusalOf(await uc.checkout.selectToken('ord_1', { network: 'ETH', currency: 'USDC' })),
    ).toEqual(refusal(400, 53, 'order already final'));
    expect((dataOf(await uc.checkout.order('ord_1')).order as { status: string }).status).toBe(
      'expired',
    );
    const direct = orderOf(
      await createOrder({
        out_trade_no: 'ORD-D',
        mode: 'direct',
        network: 'TRON',
        currency: 'USDT',
      }),
    ).order_id as string;
    const noPage = refusal(404, 65, 'checkout_url not found');
    expect(refusalOf(await uc.checkout.order(direct))).toEqual(noPage);
    expect(
      refusalOf(await uc.checkout.selectToken(direct, { network: 'TRON', currency: 'USDT' })),
    ).toEqual(noPage);
    expect(refusalOf(await uc.checkout.order('ord_x'))).toEqual(
      refusal(404, 65, 'order not found'),
    );
  });
});

describe('concurrent writers', () => {
  /** A store whose order updates lose the race `conflicts` times: another writer got there first. */
  const racingStore = (inner: Store, conflicts: { left: number }): Store => ({
    close: () => inner.close(),
    claimEnvironment: (environment) => inner.claimEnvironment(environment),
    transaction: (work) =>
      inner.transaction((tx) =>
        work({
          ...tx,
          acquiringOrders: {
            ...tx.acquiringOrders,
            update: async (record) => {
              if (conflicts.left > 0) {
                conflicts.left -= 1;
                throw new StoreFailure('version_conflict', 'acquiring_orders');
              }
              return tx.acquiringOrders.update(record);
            },
          },
        }),
      ),
  });

  it(`a version conflict runs the unit of work again on fresh reads, ${maxAttempts} runs at most`, async () => {
    await createOrder();
    // Lost races in a row are each another writer's commit: the last run answers (issue 19, L5).
    const conflicts = { left: maxAttempts - 1 };
    const racing = acquiringUseCases({
      ...bed.deps,
      store: racingStore(bed.deps.store, conflicts),
    });
    const closed = dataOf(await racing.acquiring.close(me, 'ord_1', { reason: 'raced' }));
    expect(orderOf(closed).status).toBe('closed');
    expect(conflicts.left).toBe(0);
    expect(await deliveries()).toHaveLength(1);

    await createOrder({ out_trade_no: 'ORD-2' });
    conflicts.left = maxAttempts;
    const second = (
      await bed.deps.store.transaction((tx) =>
        tx.acquiringOrders.findUnique({ account_id: 'acc_a', out_trade_no: 'ORD-2' }),
      )
    )?.order_id as string;
    await expect(racing.acquiring.close(me, second, { reason: 'raced' })).rejects.toThrow(
      'version_conflict',
    );
    expect(orderOf(dataOf(await uc.acquiring.get(me, second))).status).toBe('pending');
  });
});

describe('assembled in the engine', () => {
  it('the sandbox clock fires the order expiry timer through createEngine', async () => {
    const engine = createEngine(bed.deps);
    dataOf(await engine.acquiring.create(me, orderBody));
    expect(dataOf(await engine.admin.advanceClock(bootstrapOperator, { seconds: 1800 }))).toEqual({
      clock: { now: t0 + 1800 },
    });
    expect(await bed.oracle.timers()).toEqual([]);
    expect((await deliveries()).map((e) => e.data.status)).toEqual(['expired']);
    expect(orderOf(dataOf(await engine.acquiring.get(me, 'ord_1'))).status).toBe('expired');
  });
});
