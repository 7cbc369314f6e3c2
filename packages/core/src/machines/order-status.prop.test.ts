import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../money/money.js';
import {
  aggregateOrderStatus,
  chainStatuses,
  finalOrderStatuses,
  isFinalOrderStatus,
  joinObservations,
  mergePayment,
  type OrderAggregationInput,
  orderAmounts,
  type PaymentObservation,
  type PaymentStatus,
  paymentStatuses,
  providerEventKinds,
  sameTransfer,
} from './order-status.js';

const micro = (n: number): string => new Decimal(n).div(1_000_000).toFixed(6);
const amountArb = fc.integer({ min: 1, max: 200_000_000 }).map(micro);

/** Observations of one transfer: the same token, address and amount; tx_hash maybe unknown. */
const observationArb: fc.Arbitrary<PaymentObservation> = fc.record({
  chain_status: fc.constantFrom(...chainStatuses),
  token_id: fc.constant('BASE_USDC' as const),
  address: fc.constant('0xabc'),
  amount: fc.constant('10.500000'),
  tx_hash: fc.constantFrom('', '0xaa'),
  confirmations: fc.nat({ max: 40 }),
  required_confirmations: fc.nat({ max: 40 }),
});

const recordArb = fc.record({ status: fc.constantFrom(...paymentStatuses), amount: amountArb });

const aggregationArb: fc.Arbitrary<OrderAggregationInput> = fc.record({
  payments: fc.array(recordArb, { maxLength: 6 }),
  payAmount: amountArb,
  underpayTolerance: fc.integer({ min: 0, max: 5_000_000 }).map(micro),
  expireTime: fc.integer({ min: 1000, max: 2000 }),
  now: fc.integer({ min: 0, max: 3000 }),
  closed: fc.boolean(),
});

describe('payment record join laws', () => {
  it('is commutative, associative and idempotent', () => {
    fc.assert(
      fc.property(observationArb, observationArb, observationArb, (a, b, c) => {
        expect(joinObservations(a, b)).toEqual(joinObservations(b, a));
        expect(joinObservations(joinObservations(a, b), c)).toEqual(
          joinObservations(a, joinObservations(b, c)),
        );
        expect(joinObservations(a, a)).toEqual(a);
      }),
    );
  });

  it('keeps the transfer: sameTransfer holds between the join and each side', () => {
    fc.assert(
      fc.property(observationArb, observationArb, (a, b) => {
        const j = joinObservations(a, b);
        expect(sameTransfer(j, a) && sameTransfer(j, b)).toBe(true);
        expect(j.tx_hash).toBe(a.tx_hash || b.tx_hash);
      }),
    );
  });

  it('only moves forward: chain status and confirmations never decrease', () => {
    fc.assert(
      fc.property(observationArb, observationArb, (a, b) => {
        const j = joinObservations(a, b);
        const rank = (o: PaymentObservation) => chainStatuses.indexOf(o.chain_status);
        expect(rank(j)).toBeGreaterThanOrEqual(Math.max(rank(a), rank(b)));
        expect(j.confirmations).toBe(Math.max(a.confirmations, b.confirmations));
      }),
    );
  });

  it('merging the same provider event again returns the very same record', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...providerEventKinds),
        amountArb,
        fc.nat({ max: 30 }),
        fc.boolean(),
        (kind, amount, confirmations, late) => {
          const event = {
            kind,
            payment_id: 'p',
            token_id: 'SOL_USDC' as const,
            address: 'a',
            amount,
            tx_hash: 't',
            confirmations,
            required_confirmations: 12,
          };
          const record = mergePayment(undefined, event, { order_id: 'o', at: 1, late });
          expect(mergePayment(record, event, { order_id: 'o', at: 2, late })).toBe(record);
        },
      ),
    );
  });
});

describe('aggregateOrderStatus facts', () => {
  it('does not depend on the order of the records', () => {
    fc.assert(
      fc.property(aggregationArb, fc.func(fc.integer()), (input, key) => {
        const shuffled = [...input.payments].sort((a, b) => key(a) - key(b));
        expect(aggregateOrderStatus({ ...input, payments: shuffled })).toBe(
          aggregateOrderStatus(input),
        );
        expect(orderAmounts({ ...input, payments: shuffled })).toEqual(orderAmounts(input));
      }),
    );
  });

  it('completed is kept by more records, more tolerance and more time', () => {
    fc.assert(
      fc.property(
        aggregationArb,
        fc.array(recordArb, { maxLength: 3 }),
        fc.nat(),
        (input, more, later) => {
          fc.pre(aggregateOrderStatus(input) === 'completed');
          expect(aggregateOrderStatus({ ...input, payments: [...input.payments, ...more] })).toBe(
            'completed',
          );
          expect(
            aggregateOrderStatus({
              ...input,
              underpayTolerance: new Decimal(input.underpayTolerance).plus(1).toFixed(6),
            }),
          ).toBe('completed');
          expect(aggregateOrderStatus({ ...input, now: input.now + later })).toBe('completed');
        },
      ),
    );
  });

  it('a final status stays the same at any later time', () => {
    fc.assert(
      fc.property(aggregationArb, fc.nat(), (input, later) => {
        const status = aggregateOrderStatus(input);
        fc.pre(isFinalOrderStatus(status));
        expect(aggregateOrderStatus({ ...input, now: input.now + later })).toBe(status);
      }),
    );
  });

  it('is final from expire_time on, and never underpaid or expired before it', () => {
    fc.assert(
      fc.property(aggregationArb, (input) => {
        const status = aggregateOrderStatus(input);
        if (input.now >= input.expireTime) {
          expect(finalOrderStatuses).toContain(status);
        } else {
          expect(['underpaid', 'expired']).not.toContain(status);
        }
      }),
    );
  });

  it('closed overrides everything; only closed inputs are closed', () => {
    fc.assert(
      fc.property(aggregationArb, (input) => {
        expect(aggregateOrderStatus(input) === 'closed').toBe(input.closed);
      }),
    );
  });

  it('a confirmed record only raises paid_amount_total, lowers remaining_amount, never unsettles completed', () => {
    fc.assert(
      fc.property(aggregationArb, amountArb, (input, extra) => {
        const open = { ...input, closed: false, now: 0 };
        const more = {
          ...open,
          payments: [...open.payments, { status: 'completed' as PaymentStatus, amount: extra }],
        };
        const before = orderAmounts(open);
        const after = orderAmounts(more);
        expect(new Decimal(after.paid_amount_total).greaterThan(before.paid_amount_total)).toBe(
          true,
        );
        expect(new Decimal(after.remaining_amount).lessThanOrEqualTo(before.remaining_amount)).toBe(
          true,
        );
        if (aggregateOrderStatus(open) === 'completed') {
          expect(aggregateOrderStatus(more)).toBe('completed');
        }
      }),
    );
  });

  it('amounts satisfy paid - pay = overpaid - remaining, and never both remaining and overpaid', () => {
    fc.assert(
      fc.property(aggregationArb, (input) => {
        const a = orderAmounts(input);
        expect(
          new Decimal(a.paid_amount_total)
            .minus(input.payAmount)
            .equals(new Decimal(a.overpaid_amount).minus(a.remaining_amount)),
        ).toBe(true);
        expect(
          new Decimal(a.remaining_amount).isZero() || new Decimal(a.overpaid_amount).isZero(),
        ).toBe(true);
        for (const value of Object.values(a)) expect(value).toMatch(/^\d+\.\d{6}$/);
      }),
    );
  });
});
