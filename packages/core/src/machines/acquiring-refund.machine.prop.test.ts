/**
 * Refunds (ADR 0044), property-based:
 * (a) the refund machine under random review and execution events: the refusal and the machine
 *     agree, the hold is settled or released exactly once, and a final refund takes nothing more;
 * (b) an order under random refund requests and releases: what counts never exceeds what each
 *     token credited, a refusal changes nothing, and the granted amounts follow each type's rule.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Journal, merchantPostingsOf } from '../ledger/ledger.js';
import { Decimal } from '../money/money.js';
import {
  type AcquiringOrderEvent,
  type AcquiringOrderInput,
  type AcquiringOrderSnapshot,
  acquiringOrderMachine,
  orderRefusalOf,
} from './acquiring-order.machine.js';
import {
  type AcquiringRefundEvent,
  type AcquiringRefundInput,
  acquiringRefundMachine,
  refundRefusalOf,
  refundStatusOf,
} from './acquiring-refund.machine.js';
import { decide, type Effect, start } from './effects.js';
import { creditedByToken, refundableOf, refundedAmountOf } from './order-refunds.js';

const T0 = 1_800_000_000;
const micro = (units: number | bigint) => new Decimal(units.toString()).div(1_000_000).toFixed(6);
const tron = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
const evm = '0x52908400098527886E0F7030069857D2E4169EE7';

// ---------------------------------------------------------------------------------------------
// (a) The refund machine

const refundInput = (
  review_required: boolean,
  amount: string,
  requested_by = 'api_key:k',
): AcquiringRefundInput => ({
  refund_id: 'rfd_p',
  order_id: 'ord_p',
  account_id: 'acc_p',
  out_trade_no: 'M1',
  notify_webhook_id: 'wh',
  refund_type: 'partial',
  token_id: 'TRON_USDT',
  network: 'TRON',
  currency: 'USDT',
  amount,
  address: tron,
  reason: null,
  review_required,
  requested_by,
  client_refund_id: null,
  at: T0,
});

type Timeless = AcquiringRefundEvent extends infer E
  ? E extends AcquiringRefundEvent
    ? Omit<E, 'at'>
    : never
  : never;

const refundEventArb: fc.Arbitrary<Timeless> = fc.oneof(
  fc
    .tuple(fc.constantFrom('active', 'frozen'), fc.constantFrom('op', 'rq'))
    .map(([account_status, operator_id]) => ({
      type: 'refund.review.approve' as const,
      operator_id,
      account_status,
    })),
  fc.constant({ type: 'refund.review.reject' as const, operator_id: 'op', reason: 'no' }),
  fc.constant({ type: 'refund.execution.processing' as const }),
  fc.constant({ type: 'refund.execution.completed' as const }),
  fc.constant({ type: 'refund.execution.failed' as const, reason: 'bounced' }),
);

/** What the refund's journals did to the merchant's two buckets, in micro-units. */
const bucketsOf = (journals: readonly Journal[]) => {
  const net = { available: 0n, held: 0n };
  for (const journal of journals) {
    for (const p of merchantPostingsOf(journal)) {
      net[p.bucket] += BigInt(new Decimal(p.amount).times(1_000_000).toFixed(0));
    }
  }
  return net;
};

describe('(a) the refund machine', () => {
  it('agrees with its refusal, moves the hold once, and ends with nothing held', () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.constantFrom('api_key:k', 'operator:rq'),
        fc.array(refundEventArb, { maxLength: 12 }),
        (reviewRequired, units, requestedBy, events) => {
          const input = refundInput(reviewRequired, micro(units), requestedBy);
          const first = start(acquiringRefundMachine, input);
          let snapshot = first.snapshot;
          const effects: Effect[] = [...first.effects];
          expect(refundStatusOf(snapshot)).toBe(reviewRequired ? 'requested' : 'approved');
          events.forEach((timeless, i) => {
            const event = { ...timeless, at: T0 + i + 1 } as AcquiringRefundEvent;
            const refusal = refundRefusalOf(snapshot, event);
            const decision = decide(acquiringRefundMachine, snapshot, event);
            // The refusal and the machine agree both ways; `processing` again is only ignored.
            const repeated =
              event.type === 'refund.execution.processing' &&
              refundStatusOf(snapshot) === 'processing';
            expect(decision.changed).toBe(refusal === undefined && !repeated);
            // Four eyes: the operator who asked never approves.
            if (
              event.type === 'refund.review.approve' &&
              requestedBy === `operator:${event.operator_id}`
            ) {
              expect(decision.changed).toBe(false);
            }
            snapshot = decision.snapshot;
            effects.push(...decision.effects);
          });
          const journals = effects.flatMap((e) => (e.type === 'post' ? [e.journal] : []));
          const ids = journals.map((j) => j.journalId);
          expect(new Set(ids).size).toBe(ids.length);
          const net = bucketsOf(journals);
          const status = refundStatusOf(snapshot);
          if (status === 'completed') expect(net).toEqual({ available: -units, held: 0n });
          else if (status === 'failed' || status === 'rejected') {
            expect(net).toEqual({ available: 0n, held: 0n });
          } else expect(net).toEqual({ available: -units, held: units });
          const emitted = effects.flatMap((e) => (e.type === 'emit' ? [e.event.eventType] : []));
          expect(emitted.at(-1)).toBe(`acquiring.refund.${status}`);
          expect(new Set(emitted).size).toBe(emitted.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// (b) What an order grants

const orderInput = (payUnits: number): AcquiringOrderInput => ({
  order_id: 'ord_p',
  platform_order_no: 'PO1',
  out_trade_no: 'M1',
  account_id: 'acc_p',
  order_currency: 'USD',
  order_amount: new Decimal(payUnits).div(1_000_000).toFixed(2),
  pay_amount: micro(payUnits),
  allowed_pay_currencies: ['TRON_USDT', 'ETH_USDC'],
  underpay_tolerance: '0',
  expire_time: T0 + 1800,
  notify_webhook_id: 'wh',
  checkout_type: 'hosted',
  mode: 'checkout',
  at: T0,
});

const paymentArb = fc.record({
  token_id: fc.constantFrom('TRON_USDT' as const, 'ETH_USDC' as const),
  units: fc.integer({ min: 1, max: 50_000_000 }),
  late: fc.boolean(),
});

type RefundAsk =
  | {
      readonly kind: 'refund';
      readonly refund_type: 'full' | 'partial' | 'overpaid';
      readonly units: number;
      readonly token_id: 'TRON_USDT' | 'ETH_USDC' | undefined;
      readonly address: string;
      readonly availableUnits: number;
    }
  | { readonly kind: 'release'; readonly which: number };

const askArb: fc.Arbitrary<RefundAsk> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('refund' as const),
      refund_type: fc.constantFrom('full' as const, 'partial' as const, 'overpaid' as const),
      units: fc.integer({ min: 1, max: 60_000_000 }),
      token_id: fc.constantFrom('TRON_USDT' as const, 'ETH_USDC' as const, undefined),
      address: fc.constantFrom(tron, evm, 'nope'),
      availableUnits: fc.integer({ min: 0, max: 200_000_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('release' as const), which: fc.nat(9) }) },
);

describe('(b) an order grants refunds', () => {
  it('never lets what counts exceed what each token credited, and a refusal changes nothing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000_000, max: 60_000_000 }),
        fc.array(paymentArb, { minLength: 1, maxLength: 4 }),
        fc.array(askArb, { maxLength: 12 }),
        (payUnits, payments, asks) => {
          let snapshot: AcquiringOrderSnapshot = start(
            acquiringOrderMachine,
            orderInput(payUnits),
          ).snapshot;
          payments.forEach((p, i) => {
            const event: AcquiringOrderEvent = {
              type: 'acquiring.payment.observed',
              payment: {
                kind: 'confirmed',
                payment_id: `p${i}`,
                token_id: p.token_id,
                address: `addr_${i}`,
                amount: micro(p.units),
                tx_hash: `0x${i}`,
                confirmations: 20,
                required_confirmations: 1,
              },
              at: p.late ? T0 + 1800 + i : T0 + 1 + i,
            };
            snapshot = decide(acquiringOrderMachine, snapshot, event).snapshot;
          });
          const granted: string[] = [];
          asks.forEach((ask, i) => {
            const at = T0 + 4000 + i;
            const event: AcquiringOrderEvent =
              ask.kind === 'release'
                ? {
                    type: 'acquiring.order.refund_released',
                    refund_id: granted[ask.which % Math.max(granted.length, 1)] ?? 'none',
                    at,
                  }
                : {
                    type: 'acquiring.order.refund',
                    refund_id: `r${i}`,
                    refund_type: ask.refund_type,
                    ...(ask.refund_type === 'partial' ? { amount: micro(ask.units) } : {}),
                    ...(ask.token_id === undefined ? {} : { token_id: ask.token_id }),
                    address: ask.address,
                    available: { USDT: micro(ask.availableUnits), USDC: micro(ask.availableUnits) },
                    at,
                  };
            const before = snapshot.context;
            const refusal = orderRefusalOf(snapshot, event);
            const decision = decide(acquiringOrderMachine, snapshot, event);
            snapshot = decision.snapshot;
            if (event.type !== 'acquiring.order.refund') return;
            const grant = snapshot.context.refunds[event.refund_id];
            if (refusal !== undefined) {
              expect(grant).toBeUndefined();
              expect(snapshot.context.refunds).toEqual(before.refunds);
              return;
            }
            expect(grant).toBeDefined();
            if (grant === undefined) return;
            granted.push(event.refund_id);
            expect(new Decimal(grant.amount).greaterThan(0)).toBe(true);
            expect(
              new Decimal(grant.amount).lessThanOrEqualTo(
                micro(ask.kind === 'refund' ? ask.availableUnits : 0),
              ),
            ).toBe(true);
            if (event.refund_type === 'partial') expect(grant.amount).toBe(event.amount);
            if (event.refund_type === 'full') {
              expect(grant.amount).toBe(refundableOf(before, grant.token_id).toFixed(6));
            }
            if (event.refund_type === 'overpaid') {
              // never more than what was paid over pay_amount and not given back yet
              const credited = [...creditedByToken(before).values()].reduce(
                (sum, paid) => sum.plus(paid),
                new Decimal(0),
              );
              const over = credited.minus(before.pay_amount).minus(refundedAmountOf(before));
              expect(new Decimal(grant.amount).lessThanOrEqualTo(over)).toBe(true);
            }
          });
          const credited = creditedByToken(snapshot.context);
          for (const [token, paid] of credited) {
            expect(refundableOf(snapshot.context, token).greaterThanOrEqualTo(0)).toBe(true);
            expect(refundableOf(snapshot.context, token).lessThanOrEqualTo(paid)).toBe(true);
          }
          const total = Object.values(snapshot.context.refunds).reduce(
            (sum, r) => sum.plus(r.amount),
            new Decimal(0),
          );
          expect(refundedAmountOf(snapshot.context)).toBe(total.toFixed(6));
        },
      ),
      { numRuns: 300 },
    );
  });
});
