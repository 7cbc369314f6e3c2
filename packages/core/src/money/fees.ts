/**
 * Payout fees: a fixed part plus a percentage of the amount, rounded once to the currency's
 * scale with ROUND_HALF_UP (0.5 of the smallest unit goes up). The rounding mode is decided in
 * docs/adr/0006-fee-rounding.md and pinned by tests.
 */
import { add, compare, Decimal, type Money, money, subtract } from './money.js';

export interface FeeSchedule {
  /** Fixed fee in the payout currency, a decimal string ("0.50"). */
  readonly fixed: string;
  /** Percentage of the amount, a decimal string ("1.5" is 1.5 %). */
  readonly percent: string;
}

export type FeeBearer = 'merchant' | 'user';

export const computeFee = (amount: Money, schedule: FeeSchedule): Money => {
  const raw = new Decimal(schedule.fixed).plus(
    amount.value.times(new Decimal(schedule.percent)).dividedBy(100),
  );
  return money(amount.currency, raw);
};

export interface PayoutCharges {
  /** What the payout holds and then debits from the merchant's balance. */
  readonly debit: Money;
  /** What the recipient receives. */
  readonly credit: Money;
  readonly fee: Money;
}

/**
 * Who pays the fee decides the split: with `merchant` the recipient gets the full amount and
 * the merchant pays amount + fee; with `user` the merchant pays the amount and the recipient
 * gets amount - fee, which must stay above zero (`amount must be greater than fee when
 * fee_bearer is user`, checked by the caller with `feeExceedsAmount`).
 */
export const payoutCharges = (amount: Money, fee: Money, bearer: FeeBearer): PayoutCharges =>
  bearer === 'merchant'
    ? { debit: add(amount, fee), credit: amount, fee }
    : { debit: amount, credit: subtract(amount, fee), fee };

/** True when a user-borne fee would leave the recipient nothing (the amount must exceed it). */
export const feeExceedsAmount = (amount: Money, fee: Money): boolean => compare(amount, fee) <= 0;
