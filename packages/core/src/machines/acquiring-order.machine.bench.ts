/**
 * The acquiring order machine's pure steps: creation (with its expiry timer), the expiry timer
 * firing, and provider payment events up to completion.
 */
import { bench, describe } from 'vitest';
import {
  type AcquiringOrderEvent,
  type AcquiringOrderInput,
  type AcquiringOrderSnapshot,
  acquiringOrderMachine,
} from './acquiring-order.machine.js';
import { decide, start } from './effects.js';
import type { ProviderEventKind, ProviderPaymentEvent } from './order-status.js';

const T0 = 1_767_225_600;
const EXPIRE = T0 + 900;

const input: AcquiringOrderInput = {
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
};

const observed = (kind: ProviderEventKind, paymentId: string, amount: string, at: number) => {
  const payment: ProviderPaymentEvent = {
    kind,
    payment_id: paymentId,
    token_id: 'TRON_USDT',
    address: 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE',
    amount,
    tx_hash: `0x${paymentId}`,
    confirmations: kind === 'confirmed' ? 20 : kind === 'confirming' ? 3 : 0,
    required_confirmations: 20,
  };
  return { type: 'acquiring.payment.observed', payment, at } as const satisfies AcquiringOrderEvent;
};

const run = (events: readonly AcquiringOrderEvent[], expected: string): AcquiringOrderSnapshot => {
  let snapshot = start(acquiringOrderMachine, input).snapshot;
  for (const event of events) snapshot = decide(acquiringOrderMachine, snapshot, event).snapshot;
  if (snapshot.value !== expected) throw new Error(`ended ${snapshot.value}, not ${expected}`);
  return snapshot;
};

const expire: readonly AcquiringOrderEvent[] = [{ type: 'acquiring.order.expire', at: EXPIRE }];
const paidAtOnce = [observed('confirmed', 'pay_1', '100', T0 + 60)];
/** Two transfers, each detected, confirming and confirmed: partial_paid, then completed. */
const paidInTwo = [
  observed('detected', 'pay_1', '60', T0 + 60),
  observed('confirming', 'pay_1', '60', T0 + 70),
  observed('confirmed', 'pay_1', '60', T0 + 80),
  observed('detected', 'pay_2', '40', T0 + 90),
  observed('confirming', 'pay_2', '40', T0 + 100),
  observed('confirmed', 'pay_2', '40', T0 + 110),
];

describe('acquiring order machine', () => {
  bench('start (pending, sets the expiry timer)', () => {
    run([], 'pending');
  });

  bench('start + expiry timer fires (expired)', () => {
    run(expire, 'expired');
  });

  bench('start + one confirmed payment (completed)', () => {
    run(paidAtOnce, 'completed');
  });

  bench('start + 2 payments x 3 provider events (completed)', () => {
    run(paidInTwo, 'completed');
  });
});
