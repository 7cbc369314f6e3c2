import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { isBalanced } from '../ledger/ledger.js';
import {
  type AcquiringOrderEvent,
  type AcquiringOrderInput,
  type AcquiringOrderSnapshot,
  acquiringOrderMachine,
  acquiringOrderView,
  isFinalOrder,
  orderAmountsOf,
  orderRefusalOf,
  orderStatusOf,
  paymentRecordViews,
} from './acquiring-order.machine.js';
import { decide, type Effect, start } from './effects.js';
import type { ProviderEventKind, ProviderPaymentEvent } from './order-status.js';

const T0 = 1_767_225_600;
const EXPIRE = T0 + 900;
const TRON_ADDRESS = 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE';

const orderInput = (overrides: Partial<AcquiringOrderInput> = {}): AcquiringOrderInput => ({
  order_id: 'ord_1',
  platform_order_no: 'PO202601010001',
  out_trade_no: 'M-1001',
  account_id: 'acc_1',
  order_currency: 'USD',
  order_amount: '100.00',
  pay_amount: '100',
  allowed_pay_currencies: ['TRON_USDT', 'ETH_USDC'],
  underpay_tolerance: '0.5',
  expire_time: EXPIRE,
  notify_webhook_id: 'wh_1',
  checkout_type: 'hosted',
  mode: 'checkout',
  at: T0,
  ...overrides,
});

const payment = (
  kind: ProviderEventKind,
  payment_id: string,
  amount: string,
  extra: Partial<ProviderPaymentEvent> = {},
): ProviderPaymentEvent => ({
  kind,
  payment_id,
  token_id: 'TRON_USDT',
  address: TRON_ADDRESS,
  amount,
  tx_hash: `0x${payment_id}`,
  confirmations: kind === 'confirmed' ? 20 : kind === 'confirming' ? 3 : 0,
  required_confirmations: 20,
  ...extra,
});

const observed = (p: ProviderPaymentEvent, at = T0 + 60): AcquiringOrderEvent => ({
  type: 'acquiring.payment.observed',
  payment: p,
  at,
});
const expire = (at: number): AcquiringOrderEvent => ({ type: 'acquiring.order.expire', at });
const close = (at = T0 + 60): AcquiringOrderEvent => ({
  type: 'acquiring.order.close',
  reason: 'customer cancelled',
  at,
});

interface Run {
  readonly snapshot: AcquiringOrderSnapshot;
  readonly effects: readonly Effect[];
  readonly last: readonly Effect[];
}

const run = (events: readonly AcquiringOrderEvent[], input = orderInput()): Run => {
  const started = start(acquiringOrderMachine, input);
  let snapshot = started.snapshot;
  const effects: Effect[] = [...started.effects];
  let last: readonly Effect[] = started.effects;
  for (const event of events) {
    const step = decide(acquiringOrderMachine, snapshot, event);
    snapshot = step.snapshot;
    last = step.effects;
    effects.push(...step.effects);
  }
  return { snapshot, effects, last };
};

const emitted = (effects: readonly Effect[], eventType: string) =>
  effects.flatMap((e) => (e.type === 'emit' && e.event.eventType === eventType ? [e.event] : []));
const orderUpdates = (effects: readonly Effect[]) => emitted(effects, 'acquiring.order.updated');
const journals = (effects: readonly Effect[]) =>
  effects.flatMap((e) => (e.type === 'post' ? [e.journal] : []));

describe('creation', () => {
  it('starts pending with the expiry timer set at expire_time and amounts at their scales', () => {
    const { snapshot, effects } = run([]);
    expect(snapshot.value).toBe('pending');
    expect(effects).toEqual([
      { type: 'setTimer', timer: 'order.expiry', businessId: 'ord_1', dueAt: EXPIRE },
    ]);
    expect(snapshot.context).toMatchObject({
      order_amount: '100.00',
      pay_amount: '100.000000',
      underpay_tolerance: '0.500000',
      anomaly_tag: '',
      revision: 0,
      created_at: T0,
      updated_at: T0,
      selected_token: null,
    });
  });
});

describe('Moves table of the interface', () => {
  it('pending -> completed on a confirmed payment whose amount plus tolerance meets pay_amount', () => {
    const { snapshot, last } = run([observed(payment('confirmed', 'pay_1', '99.5'))]);
    expect(snapshot.value).toBe('completed');
    const [update] = orderUpdates(last);
    expect(update?.data).toEqual({
      provider_event: 'transaction_confirmed',
      anomaly_tag: '',
      order_id: 'ord_1',
      platform_order_no: 'PO202601010001',
      out_trade_no: 'M-1001',
      previous_status: 'pending',
      status: 'completed',
      status_changed: true,
      amount_changed: true,
      order_currency: 'USD',
      pay_amount: '100.000000',
      paid_amount_total: '99.500000',
      remaining_amount: '0.500000',
      overpaid_amount: '0.000000',
      underpay_tolerance: '0.500000',
      expire_time: EXPIRE,
      updated_at: T0 + 60,
    });
    expect(update).toMatchObject({ businessType: 'acquiring', businessId: 'ord_1', revision: 1 });
    expect(last).toContainEqual({ type: 'clearTimer', timer: 'order.expiry', businessId: 'ord_1' });
  });

  it.each([
    ['pending', []],
    ['processing', [observed(payment('detected', 'pay_0', '40'), T0 + 10)]],
    ['confirming', [observed(payment('confirming', 'pay_0', '40'), T0 + 10)]],
    ['partial_paid', [observed(payment('confirmed', 'pay_0', '10'), T0 + 10)]],
  ] as const)(
    'any non-final (%s) -> partial_paid on a confirmed payment below pay_amount minus tolerance',
    (from, before) => {
      const reached = run([...before]);
      expect(reached.snapshot.value).toBe(from);
      const { snapshot, last } = run([
        ...before,
        // the in-flight record of the setup fails, so nothing is left processing or confirming
        ...(from === 'processing' || from === 'confirming'
          ? [observed(payment('failed', 'pay_0', '40'), T0 + 20)]
          : []),
        observed(payment('confirmed', 'pay_1', '30')),
      ]);
      expect(snapshot.value).toBe('partial_paid');
      expect(orderUpdates(last)[0]?.data).toMatchObject({ status: 'partial_paid' });
    },
  );

  it('partial_paid -> underpaid on expiry while the confirmed amount is still short beyond tolerance', () => {
    const { snapshot, last } = run([observed(payment('confirmed', 'pay_1', '60')), expire(EXPIRE)]);
    expect(snapshot.value).toBe('underpaid');
    expect(orderUpdates(last)[0]?.data).toMatchObject({
      provider_event: 'order_expired',
      previous_status: 'partial_paid',
      status: 'underpaid',
      status_changed: true,
      amount_changed: false,
      paid_amount_total: '60.000000',
      remaining_amount: '40.000000',
    });
    expect(last).toContainEqual({ type: 'clearTimer', timer: 'order.expiry', businessId: 'ord_1' });
  });

  it('pending -> expired on expiry with no confirmed amount', () => {
    const { snapshot, last } = run([expire(EXPIRE + 5)]);
    expect(snapshot.value).toBe('expired');
    expect(orderUpdates(last).map((e) => e.data)).toMatchObject([
      { previous_status: 'pending', status: 'expired', paid_amount_total: '0.000000' },
    ]);
  });
});

describe('payments', () => {
  it('moves through processing and confirming, emitting acquiring.payment.updated with its fields', () => {
    const detected = run([observed(payment('detected', 'pay_1', '100'), T0 + 10)]);
    expect(detected.snapshot.value).toBe('processing');
    expect(emitted(detected.last, 'acquiring.payment.updated')[0]?.data).toEqual({
      order_id: 'ord_1',
      out_trade_no: 'M-1001',
      payment_id: 'pay_1',
      token_id: 'TRON_USDT',
      address: TRON_ADDRESS,
      tx_hash: '0xpay_1',
      amount: '100.000000',
      previous_status: 'pending',
      status: 'processing',
      confirmations: 0,
      updated_at: T0 + 10,
    });
    const confirming = run([
      observed(payment('detected', 'pay_1', '100'), T0 + 10),
      observed(payment('confirming', 'pay_1', '100'), T0 + 20),
    ]);
    expect(confirming.snapshot.value).toBe('confirming');
    expect(emitted(confirming.last, 'acquiring.payment.updated')[0]?.data).toMatchObject({
      previous_status: 'processing',
      status: 'confirming',
      confirmations: 3,
    });
    // amounts did not change and the status did: one order update
    expect(orderUpdates(confirming.last)[0]?.data).toMatchObject({
      previous_status: 'processing',
      status: 'confirming',
      amount_changed: false,
      provider_event: 'transaction_confirming',
    });
  });

  it('credits a confirmed payment once, in its token currency, keyed by payment_id', () => {
    const { effects, snapshot } = run([
      observed(payment('confirmed', 'pay_1', '30', { token_id: 'ETH_USDC' })),
      observed(payment('confirmed', 'pay_1', '30', { token_id: 'ETH_USDC' }), T0 + 70),
      observed(payment('confirming', 'pay_1', '30', { token_id: 'ETH_USDC' }), T0 + 80),
    ]);
    const posted = journals(effects);
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({
      journalId: 'pay_1:pay_in',
      recordType: 'pay_in',
      businessType: 'acquiring',
      businessId: 'pay_1',
      accountId: 'acc_1',
      currency: 'USDC',
      amount: '30.000000',
    });
    expect(posted.every(isBalanced)).toBe(true);
    expect(snapshot.context.payments.pay_1).toMatchObject({
      network: 'ETH',
      currency: 'USDC',
      status: 'completed',
      confirmed_at: T0 + 60,
    });
  });

  it('ignores a duplicate provider event: same snapshot, no effect, revision unchanged', () => {
    const first = run([observed(payment('confirming', 'pay_1', '100'))]);
    const again = decide(
      acquiringOrderMachine,
      first.snapshot,
      observed(payment('confirming', 'pay_1', '100'), T0 + 90),
    );
    expect(again.changed).toBe(false);
    expect(again.effects).toEqual([]);
    expect(again.snapshot.context.revision).toBe(1);
  });

  it('never lets a stale event move a record back: confirmations and status only go forward', () => {
    const { snapshot, effects } = run([
      observed(payment('confirmed', 'pay_1', '100', { confirmations: 25 }), T0 + 10),
      observed(payment('detected', 'pay_1', '100'), T0 + 20),
      observed(payment('failed', 'pay_1', '100'), T0 + 30),
    ]);
    expect(snapshot.value).toBe('completed');
    expect(snapshot.context.payments.pay_1).toMatchObject({
      status: 'completed',
      confirmations: 25,
      updated_at: T0 + 10,
    });
    expect(emitted(effects, 'acquiring.payment.updated')).toHaveLength(1);
  });

  it('keeps a failed payment failed against later in-flight events and out of the paid amount', () => {
    const { snapshot } = run([
      observed(payment('failed', 'pay_1', '100'), T0 + 10),
      observed(payment('confirming', 'pay_1', '100'), T0 + 20),
    ]);
    expect(snapshot.value).toBe('pending');
    expect(snapshot.context.payments.pay_1?.status).toBe('failed');
  });
});

describe('overpayment', () => {
  it('reports overpaid_amount when the confirmed amount exceeds pay_amount', () => {
    const { snapshot, last } = run([observed(payment('confirmed', 'pay_1', '120.25'))]);
    expect(snapshot.value).toBe('completed');
    expect(orderUpdates(last)[0]?.data).toMatchObject({
      paid_amount_total: '120.250000',
      remaining_amount: '0.000000',
      overpaid_amount: '20.250000',
    });
  });

  it('counts a second payment confirmed before expiry on a completed order as overpayment', () => {
    const { snapshot, last, effects } = run([
      observed(payment('confirmed', 'pay_1', '100'), T0 + 10),
      observed(payment('confirmed', 'pay_2', '5'), T0 + 20),
    ]);
    expect(snapshot.value).toBe('completed');
    expect(snapshot.context.anomaly_tag).toBe('');
    expect(orderUpdates(last).map((e) => e.data)).toMatchObject([
      {
        previous_status: 'completed',
        status: 'completed',
        status_changed: false,
        amount_changed: true,
        overpaid_amount: '5.000000',
      },
    ]);
    expect(journals(effects).map((j) => j.businessId)).toEqual(['pay_1', 'pay_2']);
  });
});

describe('expired_paid anomaly', () => {
  it('records a payment after expiry as late, tags the order once, keeps it final and credits it', () => {
    const expired = run([expire(EXPIRE)]);
    expect(expired.snapshot.value).toBe('expired');
    const late = run([
      expire(EXPIRE),
      observed(payment('detected', 'pay_1', '100'), EXPIRE + 10),
      observed(payment('confirmed', 'pay_1', '100'), EXPIRE + 20),
      observed(payment('confirmed', 'pay_2', '3'), EXPIRE + 30),
    ]);
    expect(late.snapshot.value).toBe('expired');
    expect(late.snapshot.context.anomaly_tag).toBe('expired_paid');
    expect(late.snapshot.context.payments.pay_1?.status).toBe('late');
    const updates = orderUpdates(late.effects);
    expect(updates.map((e) => e.data)).toMatchObject([
      { status: 'expired', anomaly_tag: '' },
      {
        provider_event: 'transaction_detected',
        anomaly_tag: 'expired_paid',
        previous_status: 'expired',
        status: 'expired',
        status_changed: false,
        amount_changed: false,
        paid_amount_total: '0.000000',
      },
    ]);
    const paymentUpdates = emitted(late.effects, 'acquiring.payment.updated').map((e) => e.data);
    expect(paymentUpdates).toMatchObject([
      { payment_id: 'pay_1', previous_status: 'pending', status: 'late' },
      { payment_id: 'pay_1', previous_status: 'late', status: 'late', confirmations: 20 },
      { payment_id: 'pay_2', previous_status: 'pending', status: 'late' },
    ]);
    expect(journals(late.effects).map((j) => [j.businessId, j.amount])).toEqual([
      ['pay_1', '100.000000'],
      ['pay_2', '3.000000'],
    ]);
  });

  it('treats a payment stamped at or after expire_time as late even before the timer fires', () => {
    const { snapshot, last } = run([
      observed(payment('confirmed', 'pay_1', '100'), EXPIRE),
      expire(EXPIRE + 1),
    ]);
    expect(snapshot.value).toBe('expired');
    expect(snapshot.context.anomaly_tag).toBe('expired_paid');
    expect(last).toEqual([]);
    const first = run([observed(payment('confirmed', 'pay_1', '100'), EXPIRE)]);
    expect(orderUpdates(first.last).map((e) => e.data)).toMatchObject([
      { previous_status: 'pending', status: 'expired', anomaly_tag: 'expired_paid' },
    ]);
  });

  it('marks a payment late when it confirms after the order was closed', () => {
    const { snapshot } = run([close(T0 + 30), observed(payment('confirmed', 'pay_1', '100'))]);
    expect(snapshot.value).toBe('closed');
    expect(snapshot.context.payments.pay_1?.status).toBe('late');
    expect(snapshot.context.anomaly_tag).toBe('expired_paid');
  });
});

describe('tolerance edge', () => {
  it('completes when confirmed plus tolerance is exactly pay_amount', () => {
    expect(run([observed(payment('confirmed', 'pay_1', '99.5'))]).snapshot.value).toBe('completed');
  });
  it('stays partial_paid one smallest unit below the tolerance', () => {
    const { snapshot } = run([observed(payment('confirmed', 'pay_1', '99.499999'))]);
    expect(snapshot.value).toBe('partial_paid');
    expect(orderStatusOf(snapshot.context)).toBe('partial_paid');
  });
  it('with zero tolerance needs the full pay_amount', () => {
    const input = orderInput({ underpay_tolerance: '0' });
    expect(run([observed(payment('confirmed', 'p', '99.999999'))], input).snapshot.value).toBe(
      'partial_paid',
    );
    expect(run([observed(payment('confirmed', 'p', '100'))], input).snapshot.value).toBe(
      'completed',
    );
  });
});

describe('expiry timer', () => {
  it('is ignored one second before expire_time', () => {
    const { snapshot } = run([]);
    const step = decide(acquiringOrderMachine, snapshot, expire(EXPIRE - 1));
    expect(step.changed).toBe(false);
    expect(step.snapshot.value).toBe('pending');
  });
  it('expires the order exactly at expire_time', () => {
    expect(run([expire(EXPIRE)]).snapshot.value).toBe('expired');
  });
  it('expires the order after expire_time, and a second firing changes nothing', () => {
    const { snapshot } = run([expire(EXPIRE + 3600)]);
    expect(snapshot.value).toBe('expired');
    const again = decide(acquiringOrderMachine, snapshot, expire(EXPIRE + 7200));
    expect(again.changed).toBe(false);
  });
  it('keeps a completed order completed when its payment gains confirmations after expiry', () => {
    const { snapshot, effects } = run([
      observed(payment('confirmed', 'p', '100', { confirmations: 20 })),
      observed(payment('confirmed', 'p', '100', { confirmations: 40 }), EXPIRE + 10),
    ]);
    expect(snapshot.value).toBe('completed');
    expect(snapshot.context.payments.p).toMatchObject({ status: 'completed', confirmations: 40 });
    expect(snapshot.context.anomaly_tag).toBe('');
    expect(orderUpdates(effects)).toHaveLength(1);
    expect(orderAmountsOf(snapshot.context).paid_amount_total).toBe('100.000000');
    expect(journals(effects)).toHaveLength(1);
  });
  it('does not touch a completed order', () => {
    const { snapshot, last } = run([observed(payment('confirmed', 'p', '100')), expire(EXPIRE)]);
    expect(snapshot.value).toBe('completed');
    expect(last).toEqual([]);
  });
});

describe('close', () => {
  it('closes a non-final order, emits the update and clears the expiry timer', () => {
    const { snapshot, last } = run([observed(payment('detected', 'p', '10'), T0 + 10), close()]);
    expect(snapshot.value).toBe('closed');
    expect(snapshot.context.close_reason).toBe('customer cancelled');
    expect(last).toEqual([
      expect.objectContaining({
        type: 'emit',
        event: expect.objectContaining({
          eventType: 'acquiring.order.updated',
          data: expect.objectContaining({
            provider_event: 'order_closed',
            previous_status: 'processing',
            status: 'closed',
          }),
        }),
      }),
      { type: 'clearTimer', timer: 'order.expiry', businessId: 'ord_1' },
    ]);
    expect(orderRefusalOf(run([]).snapshot, close())).toBeUndefined();
  });

  it('refuses a completed order: completed order cannot be closed', () => {
    const { snapshot } = run([observed(payment('confirmed', 'p', '100'))]);
    expect(orderRefusalOf(snapshot, close())?.message).toBe('completed order cannot be closed');
    expect(decide(acquiringOrderMachine, snapshot, close()).changed).toBe(false);
  });

  it.each([
    ['expired', [expire(EXPIRE)]],
    ['underpaid', [observed(payment('confirmed', 'p', '10')), expire(EXPIRE)]],
    ['closed', [close(T0 + 30)]],
  ] as const)('refuses an order already %s: order already final', (status, events) => {
    const { snapshot } = run([...events]);
    expect(snapshot.value).toBe(status);
    const refusal = orderRefusalOf(snapshot, close(EXPIRE + 100));
    expect(refusal).toMatchObject({ message: 'order already final', httpStatus: 400, code: 53 });
    expect(decide(acquiringOrderMachine, snapshot, close(EXPIRE + 100)).changed).toBe(false);
  });

  it('refuses an order past expire_time whose timer has not fired yet (the machine expires it)', () => {
    const { snapshot } = run([]);
    expect(orderRefusalOf(snapshot, close(EXPIRE))?.message).toBe('order already final');
    const step = decide(acquiringOrderMachine, snapshot, close(EXPIRE));
    expect(step.snapshot.value).toBe('expired');
    expect(orderUpdates(step.effects)[0]?.data.provider_event).toBe('order_expired');
  });
});

describe('select_token', () => {
  const select = (token_id: string, address = TRON_ADDRESS, at = T0 + 30): AcquiringOrderEvent => ({
    type: 'acquiring.order.select_token',
    token_id,
    address,
    at,
  });

  it('records the chosen allowed token and its address without an order update', () => {
    const { snapshot, last } = run([select('TRON_USDT')]);
    expect(snapshot.value).toBe('pending');
    expect(snapshot.context.selected_token).toEqual({
      network: 'TRON',
      currency: 'USDT',
      token_id: 'TRON_USDT',
      address: TRON_ADDRESS,
    });
    expect(snapshot.context.revision).toBe(1);
    expect(last).toEqual([]);
  });

  it('refuses a token outside allowed_pay_currencies: network/currency not allowed by order', () => {
    const { snapshot } = run([]);
    for (const id of ['BSC_USDT', 'NOPE_X', 'usdt']) {
      expect(orderRefusalOf(snapshot, select(id))?.message).toBe(
        'network/currency not allowed by order',
      );
      expect(decide(acquiringOrderMachine, snapshot, select(id)).changed).toBe(false);
    }
  });

  it('refuses a selection without an address: address required', () => {
    const { snapshot } = run([]);
    expect(orderRefusalOf(snapshot, select('TRON_USDT', ''))?.message).toBe('address required');
  });

  it('refuses a final order: order already final', () => {
    const { snapshot } = run([close()]);
    expect(orderRefusalOf(snapshot, select('TRON_USDT'))?.message).toBe('order already final');
    expect(decide(acquiringOrderMachine, snapshot, select('TRON_USDT')).changed).toBe(false);
  });

  it('is allowed while a payment is in flight, so a payer can switch network', () => {
    const { snapshot } = run([
      observed(payment('detected', 'p', '10'), T0 + 10),
      select('ETH_USDC', '0x52908400098527886E0F7030069857D2E4169EE7'),
    ]);
    expect(snapshot.value).toBe('processing');
    expect(snapshot.context.selected_token?.token_id).toBe('ETH_USDC');
  });
});

describe('payment refusal', () => {
  it('refuses a malformed amount with the decimal message and ignores it', () => {
    const { snapshot } = run([]);
    const bad = observed(payment('confirmed', 'p', '1.1234567'));
    expect(orderRefusalOf(snapshot, bad)?.message).toBe(
      'amount must be a decimal string with at most 6 decimal places',
    );
    expect(decide(acquiringOrderMachine, snapshot, bad).changed).toBe(false);
    expect(orderRefusalOf(snapshot, observed(payment('confirmed', 'p', '1')))).toBeUndefined();
  });

  it('refuses an event contradicting the recorded transfer and never re-credits it', () => {
    const { snapshot } = run([observed(payment('confirmed', 'p', '10'))]);
    for (const patch of [
      { amount: '11' },
      { tx_hash: '0xother' },
      { token_id: 'ETH_USDC' as const },
    ]) {
      const conflicting = observed(payment('confirmed', 'p', '10', patch), T0 + 90);
      expect(orderRefusalOf(snapshot, conflicting)?.message).toBe(
        'invalid upstream merchant deposit payload',
      );
      expect(decide(acquiringOrderMachine, snapshot, conflicting).changed).toBe(false);
    }
  });

  it('fills in a tx_hash the first observation did not know', () => {
    const { snapshot } = run([
      observed(payment('detected', 'p', '10', { tx_hash: '' }), T0 + 10),
      observed(payment('confirming', 'p', '10'), T0 + 20),
    ]);
    expect(snapshot.context.payments.p).toMatchObject({ tx_hash: '0xp', status: 'confirming' });
  });
});

describe('one transfer, one record (issue 19, L1)', () => {
  const refusal = 'invalid upstream merchant deposit payload';
  /** The same on-chain transfer as payment `p` (tx `0xfeed`), reported under `q`. */
  const again = (kind: ProviderEventKind, extra: Partial<ProviderPaymentEvent> = {}) =>
    observed(payment(kind, 'q', '10', { tx_hash: '0xfeed', ...extra }), T0 + 90);
  const paidOnce = (kind: ProviderEventKind = 'confirmed') =>
    run([observed(payment(kind, 'p', '10', { tx_hash: '0xfeed' }))]).snapshot;

  it('refuses a transfer reported again under another payment id, and never credits it twice', () => {
    for (const [first, second] of [
      ['confirmed', 'confirmed'],
      ['detected', 'confirmed'],
      ['confirmed', 'detected'],
      ['confirming', 'failed'],
    ] as const) {
      const snapshot = paidOnce(first);
      const event = again(second);
      expect(orderRefusalOf(snapshot, event)?.message).toBe(refusal);
      // The machine alone takes it as nothing: no second record, no second pay_in.
      const step = decide(acquiringOrderMachine, snapshot, event);
      expect(step.changed).toBe(false);
      expect(journals(step.effects)).toEqual([]);
      expect(Object.keys(step.snapshot.context.payments)).toEqual(['p']);
    }
  });

  it('whatever the amount or the letter case of a hex hash, and after expiry too', () => {
    const snapshot = paidOnce();
    expect(orderRefusalOf(snapshot, again('confirmed', { amount: '20' }))?.message).toBe(refusal);
    expect(orderRefusalOf(snapshot, again('confirmed', { tx_hash: '0xFEED' }))?.message).toBe(
      refusal,
    );
    const late = observed(payment('confirmed', 'q', '10', { tx_hash: '0xfeed' }), EXPIRE + 10);
    expect(orderRefusalOf(snapshot, late)?.message).toBe(refusal);
    expect(decide(acquiringOrderMachine, snapshot, late).snapshot.context.payments.q).toBe(
      undefined,
    );
  });

  it('refuses a record without a tx_hash learning the tx_hash of another record', () => {
    const { snapshot } = run([
      observed(payment('detected', 'p', '10', { tx_hash: '' }), T0 + 10),
      observed(payment('confirmed', 'q', '10', { tx_hash: '0xfeed' }), T0 + 20),
    ]);
    const learns = observed(payment('confirmed', 'p', '10', { tx_hash: '0xfeed' }), T0 + 30);
    expect(orderRefusalOf(snapshot, learns)?.message).toBe(refusal);
    const step = decide(acquiringOrderMachine, snapshot, learns);
    expect(step.changed).toBe(false);
    expect(journals(step.effects)).toEqual([]);
  });

  it('leaves records without a tx_hash, other transactions, other tokens and the same id alone', () => {
    const snapshot = paidOnce();
    expect(orderRefusalOf(snapshot, again('confirmed', { tx_hash: '' }))).toBeUndefined();
    expect(orderRefusalOf(snapshot, again('confirmed', { tx_hash: '0xbeef' }))).toBeUndefined();
    // One transaction may move two tokens to one address: two transfers.
    const evm = { address: `0x${'ab'.repeat(20)}`, tx_hash: '0xfeed' };
    const usdtPaid = run([
      observed(payment('confirmed', 'p', '10', { ...evm, token_id: 'ETH_USDT' })),
    ]).snapshot;
    expect(
      orderRefusalOf(usdtPaid, again('confirmed', { ...evm, token_id: 'ETH_USDC' })),
    ).toBeUndefined();
    // An EVM address in another letter case is the same address.
    const upper = { address: `0x${'AB'.repeat(20)}`, token_id: 'ETH_USDT' as const };
    expect(orderRefusalOf(usdtPaid, again('confirmed', upper))?.message).toBe(refusal);
    const repeat = observed(payment('confirmed', 'p', '10', { tx_hash: '0xfeed' }), T0 + 90);
    expect(orderRefusalOf(snapshot, repeat)).toBeUndefined();
    // Solana's base58 hashes are case-sensitive: another spelling is another transaction.
    const sol = { token_id: 'SOL_USDC' as const, address: 'So1Address' };
    const solPaid = run(
      [observed(payment('confirmed', 'p', '10', { ...sol, tx_hash: 'AbC' }))],
      orderInput({ allowed_pay_currencies: ['SOL_USDC'] }),
    ).snapshot;
    expect(orderRefusalOf(solPaid, again('confirmed', { ...sol, tx_hash: 'abc' }))).toBeUndefined();
    expect(orderRefusalOf(solPaid, again('confirmed', { ...sol, tx_hash: 'AbC' }))?.message).toBe(
      refusal,
    );
  });
});

describe('persistence', () => {
  it('round-trips through getPersistedSnapshot JSON and carries on identically', () => {
    const { snapshot } = run([
      observed(payment('confirmed', 'pay_1', '70'), T0 + 10),
      observed(payment('confirming', 'pay_2', '30'), T0 + 20),
    ]);
    // XState types ask for input even when restoring; a restored actor ignores it
    const actor = createActor(acquiringOrderMachine, { snapshot, input: orderInput() });
    const json = JSON.stringify(actor.getPersistedSnapshot());
    expect(JSON.parse(json)).toEqual(
      JSON.parse(JSON.stringify(acquiringOrderMachine.getPersistedSnapshot(snapshot))),
    );
    const restoredSnapshot = acquiringOrderMachine.resolveState(JSON.parse(json));
    expect(restoredSnapshot.value).toBe('confirming');
    expect(restoredSnapshot.context).toEqual(snapshot.context);

    const next = observed(payment('confirmed', 'pay_2', '30'), T0 + 30);
    const fromOriginal = decide(acquiringOrderMachine, snapshot, next);
    const fromRestored = decide(acquiringOrderMachine, restoredSnapshot, next);
    expect(fromRestored.snapshot.value).toBe('completed');
    expect(fromRestored.snapshot.context).toEqual(fromOriginal.snapshot.context);
    expect(fromRestored.effects).toEqual(fromOriginal.effects);

    const live = createActor(acquiringOrderMachine, {
      snapshot: JSON.parse(json),
      input: orderInput(),
    }).start();
    live.send(next);
    expect(live.getSnapshot().value).toBe('completed');
    expect(isFinalOrder(live.getSnapshot())).toBe(true);
    live.stop();
  });
});

describe('views', () => {
  it('builds data.order with the checkout_url under the base url', () => {
    const { snapshot } = run([observed(payment('confirmed', 'pay_1', '40'), T0 + 10)]);
    expect(acquiringOrderView(snapshot, 'https://pay.example.com/checkout/')).toEqual({
      order_id: 'ord_1',
      platform_order_no: 'PO202601010001',
      out_trade_no: 'M-1001',
      status: 'partial_paid',
      checkout_type: 'hosted',
      order_currency: 'USD',
      order_amount: '100.00',
      allowed_pay_currencies: ['TRON_USDT', 'ETH_USDC'],
      pay_amount: '100.000000',
      paid_amount_total: '40.000000',
      remaining_amount: '60.000000',
      overpaid_amount: '0.000000',
      underpay_tolerance: '0.500000',
      checkout_url: 'https://pay.example.com/checkout/ord_1',
      notify_webhook_id: 'wh_1',
      redirect_automatically: false,
      refunded_amount: '0.000000',
      resolution: null,
      expire_time: EXPIRE,
      created_at: T0,
      updated_at: T0 + 10,
    });
  });

  it('carries redirect_automatically from the input, false when the input has none', () => {
    const asked = start(acquiringOrderMachine, orderInput({ redirect_automatically: true }));
    expect(asked.snapshot.context.redirect_automatically).toBe(true);
    expect(acquiringOrderView(asked.snapshot, 'https://p.example/c')).toMatchObject({
      redirect_automatically: true,
    });
    const { snapshot } = start(acquiringOrderMachine, orderInput());
    expect(snapshot.context.redirect_automatically).toBe(false);
    // A context persisted before the field existed: the view answers false, never undefined.
    const { redirect_automatically: _, ...older } = snapshot.context;
    const restored = acquiringOrderMachine.resolveState({
      value: 'pending',
      context: older,
    } as never);
    expect(acquiringOrderView(restored, 'https://p.example/c').redirect_automatically).toBe(false);
  });

  it('lists payment records with the docs/spec/decisions.md §4 fields only', () => {
    const { snapshot } = run([observed(payment('confirmed', 'pay_1', '40'), T0 + 10)]);
    expect(paymentRecordViews(snapshot)).toEqual([
      {
        payment_id: 'pay_1',
        order_id: 'ord_1',
        network: 'TRON',
        currency: 'USDT',
        token_id: 'TRON_USDT',
        address: TRON_ADDRESS,
        amount: '40.000000',
        confirmations: 20,
        required_confirmations: 20,
        tx_hash: '0xpay_1',
        status: 'completed',
        detected_at: T0 + 10,
        confirmed_at: T0 + 10,
        created_at: T0 + 10,
        updated_at: T0 + 10,
      },
    ]);
  });
});
