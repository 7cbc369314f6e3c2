import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { decodeWith } from '../codecs/codec-toolkit.js';
import {
  aggregateOrderStatus,
  joinObservations,
  mergePayment,
  type OrderAggregationInput,
  observationOf,
  orderAmounts,
  type PaymentStatus,
  ProviderPaymentEvent,
} from './order-status.js';

const at = (status: PaymentStatus, amount: string) => ({ status, amount });
const base: OrderAggregationInput = {
  payments: [],
  payAmount: '100.000000',
  underpayTolerance: '1',
  expireTime: 1000,
  now: 500,
  closed: false,
};
const aggregate = (over: Partial<OrderAggregationInput>) =>
  aggregateOrderStatus({ ...base, ...over });

const event: ProviderPaymentEvent = {
  kind: 'detected',
  payment_id: 'pay_1',
  token_id: 'TRON_USDT',
  address: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE',
  amount: '12.5',
  tx_hash: '0xabc',
  confirmations: 0,
  required_confirmations: 20,
};

describe('aggregateOrderStatus (docs/spec/decisions.md §4)', () => {
  it('is pending with no records', () => {
    expect(aggregate({})).toBe('pending');
  });
  it('is completed when confirmed + tolerance >= pay_amount, also at exactly the tolerance', () => {
    expect(aggregate({ payments: [at('completed', '99')] })).toBe('completed');
    expect(aggregate({ payments: [at('completed', '98.999999')] })).toBe('partial_paid');
  });
  it('never completes an order with nothing confirmed, even with a tolerance as large as pay_amount', () => {
    expect(aggregate({ underpayTolerance: '100' })).toBe('pending');
    expect(aggregate({ underpayTolerance: '100', payments: [at('completed', '0.000001')] })).toBe(
      'completed',
    );
  });
  it('prefers completed over an in-flight record and over expiry', () => {
    const payments = [at('completed', '100'), at('confirming', '5')];
    expect(aggregate({ payments })).toBe('completed');
    expect(aggregate({ payments, now: 5000 })).toBe('completed');
  });
  it('is confirming if a record is confirming, before processing and partial_paid', () => {
    const payments = [at('completed', '10'), at('processing', '5'), at('confirming', '5')];
    expect(aggregate({ payments })).toBe('confirming');
  });
  it('is processing if a record is processing, before partial_paid', () => {
    expect(aggregate({ payments: [at('completed', '10'), at('processing', '5')] })).toBe(
      'processing',
    );
  });
  it('is partial_paid with some confirmed amount and nothing in flight', () => {
    expect(aggregate({ payments: [at('completed', '10'), at('failed', '90')] })).toBe(
      'partial_paid',
    );
  });
  it('counts neither late nor failed records as paid', () => {
    expect(aggregate({ payments: [at('late', '100'), at('failed', '100')] })).toBe('pending');
  });
  it('at expire_time becomes underpaid with a confirmed amount, expired without', () => {
    expect(aggregate({ payments: [at('completed', '10')], now: 999 })).toBe('partial_paid');
    expect(aggregate({ payments: [at('completed', '10')], now: 1000 })).toBe('underpaid');
    expect(aggregate({ payments: [at('confirming', '100')], now: 1000 })).toBe('expired');
  });
  it('is closed when closed', () => {
    expect(aggregate({ closed: true, payments: [at('confirming', '5')] })).toBe('closed');
  });
});

describe('orderAmounts', () => {
  it('reports paid, remaining and overpaid at the token scale from confirmed records only', () => {
    expect(
      orderAmounts({
        payments: [at('completed', '60.5'), at('confirming', '50'), at('late', '9')],
        payAmount: '100',
      }),
    ).toEqual({
      paid_amount_total: '60.500000',
      remaining_amount: '39.500000',
      overpaid_amount: '0.000000',
    });
    expect(
      orderAmounts({
        payments: [at('completed', '0.1'), at('completed', '0.2')],
        payAmount: '0.25',
      }),
    ).toEqual({
      paid_amount_total: '0.300000',
      remaining_amount: '0.000000',
      overpaid_amount: '0.050000',
    });
  });
});

describe('ProviderPaymentEvent codec', () => {
  const decode = decodeWith(ProviderPaymentEvent);
  it('accepts a normalised event', () => {
    expect(decode(event)).toEqual(E.right(event));
  });
  it.each([
    [{ amount: '1.0000001' }, 'amount must be a decimal string with at most 6 decimal places'],
    [{ amount: '0' }, 'amount must be a decimal string with at most 6 decimal places'],
    [{ kind: 'settled' }, 'Validation Failed'],
    [{ token_id: 'USDT' }, 'Validation Failed'],
    [{ payment_id: '' }, 'Validation Failed'],
    [{ confirmations: -1 }, 'Validation Failed'],
    [{ confirmations: 1.5 }, 'Validation Failed'],
  ])('refuses %o with %s', (patch, message) => {
    const result = decode({ ...event, ...patch });
    expect(E.isLeft(result) && result.left.message).toBe(message);
  });
});

describe('payment record join', () => {
  it('lets a confirmation beat a failure, in either order', () => {
    const failed = observationOf({ ...event, kind: 'failed' });
    const confirmed = observationOf({ ...event, kind: 'confirmed', confirmations: 20 });
    expect(joinObservations(failed, confirmed)).toEqual(joinObservations(confirmed, failed));
    expect(joinObservations(failed, confirmed).chain_status).toBe('completed');
  });
  it('keeps the first-seen times and stamps updated_at only when something changed', () => {
    const ctx = { order_id: 'ord_1', late: false };
    const created = mergePayment(undefined, event, { ...ctx, at: 10 });
    expect(created).toMatchObject({ status: 'processing', detected_at: 10, confirmed_at: null });
    expect(mergePayment(created, event, { ...ctx, at: 20 })).toBe(created);
    const confirmed = mergePayment(
      created,
      { ...event, kind: 'confirmed', confirmations: 21 },
      { ...ctx, at: 30 },
    );
    expect(confirmed).toMatchObject({
      status: 'completed',
      detected_at: 10,
      created_at: 10,
      confirmed_at: 30,
      updated_at: 30,
      confirmations: 21,
    });
  });
  it('keeps a record confirmed in time completed when more confirmations arrive late', () => {
    const confirmed = mergePayment(
      undefined,
      { ...event, kind: 'confirmed', confirmations: 20 },
      { order_id: 'ord_1', late: false, at: 10 },
    );
    const later = mergePayment(
      confirmed,
      { ...event, kind: 'confirmed', confirmations: 30 },
      { order_id: 'ord_1', late: true, at: 20 },
    );
    expect(later).toMatchObject({ status: 'completed', confirmations: 30, updated_at: 20 });
  });
  it('records a change learnt late as late, unless the payment failed', () => {
    const ctx = { order_id: 'ord_1', late: true, at: 10 };
    expect(mergePayment(undefined, { ...event, kind: 'confirmed' }, ctx).status).toBe('late');
    expect(mergePayment(undefined, { ...event, kind: 'failed' }, ctx).status).toBe('failed');
  });
});
