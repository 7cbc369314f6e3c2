import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeFee, type FeeSchedule, feeExceedsAmount, payoutCharges } from './fees.js';
import {
  add,
  type Currency,
  compare,
  currencies,
  formatAmount,
  type Money,
  money,
  scaleOf,
} from './money.js';

const fromMinor = (minor: bigint, scale: number): string => {
  const abs = minor.toString().padStart(scale + 1, '0');
  return `${abs.slice(0, abs.length - scale)}.${abs.slice(abs.length - scale)}`;
};

const currency = fc.constantFrom(...currencies);
const minor = fc.bigInt({ min: 0n, max: 10n ** 18n });

/** A route's schedule: a fixed fee at the currency's scale, a percent with up to 4 decimals. */
const schedule = (c: Currency): fc.Arbitrary<FeeSchedule> =>
  fc.record({
    fixed: fc.bigInt({ min: 0n, max: 10n ** 9n }).map((m) => fromMinor(m, scaleOf(c))),
    percent: fc.integer({ min: 0, max: 1_000_000 }).map((p) => (p / 10_000).toFixed(4)),
  });

const amountOf = (c: Currency, m: bigint): Money => money(c, fromMinor(m, scaleOf(c)));

const setup = currency.chain((c) => fc.tuple(fc.constant(c), schedule(c), minor, minor));

describe('fee properties', () => {
  it('the fee is at least the fixed part and is at the currency scale', () => {
    fc.assert(
      fc.property(setup, ([c, s, m]) => {
        const f = computeFee(amountOf(c, m), s);
        expect(compare(f, money(c, s.fixed))).toBeGreaterThanOrEqual(0);
        expect(f.value.decimalPlaces()).toBeLessThanOrEqual(scaleOf(c));
      }),
    );
  });

  it('is monotone in the amount', () => {
    fc.assert(
      fc.property(setup, ([c, s, m1, m2]) => {
        const [lo, hi] = m1 <= m2 ? [m1, m2] : [m2, m1];
        expect(
          compare(computeFee(amountOf(c, lo), s), computeFee(amountOf(c, hi), s)),
        ).toBeLessThanOrEqual(0);
      }),
    );
  });

  it('equals the exact fee rounded half up: within half a unit, ties up', () => {
    fc.assert(
      fc.property(setup, ([c, s, m]) => {
        const amount = amountOf(c, m);
        const exact = money(c, 0).value.plus(s.fixed).plus(amount.value.times(s.percent).div(100));
        const diff = computeFee(amount, s).value.minus(exact);
        const half = money(c, 0)
          .value.plus(1)
          .div(10 ** scaleOf(c))
          .div(2);
        expect(diff.greaterThan(half.negated())).toBe(true);
        expect(diff.lessThanOrEqualTo(half)).toBe(true);
      }),
    );
  });

  it('payoutCharges conserves money: debit = credit + fee for both bearers', () => {
    fc.assert(
      fc.property(setup, fc.constantFrom('merchant', 'user'), ([c, s, m], bearer) => {
        const amount = amountOf(c, m);
        const charges = payoutCharges(amount, computeFee(amount, s), bearer);
        expect(formatAmount(charges.debit)).toBe(formatAmount(add(charges.credit, charges.fee)));
        if (bearer === 'merchant') expect(compare(charges.credit, amount)).toBe(0);
        else expect(compare(charges.debit, amount)).toBe(0);
      }),
    );
  });

  it('feeExceedsAmount holds exactly when amount <= fee (recipient would get nothing)', () => {
    fc.assert(
      fc.property(setup, ([c, s, m]) => {
        const amount = amountOf(c, m);
        const f = computeFee(amount, s);
        const credit = payoutCharges(amount, f, 'user').credit;
        expect(feeExceedsAmount(amount, f)).toBe(compare(amount, f) <= 0);
        expect(feeExceedsAmount(amount, f)).toBe(!credit.value.greaterThan(0));
      }),
    );
  });
});
