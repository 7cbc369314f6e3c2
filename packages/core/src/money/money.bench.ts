/** The money path of every payout: parse the wire amount, compute the fee, format both. */
import * as E from 'fp-ts/lib/Either.js';
import { bench, describe } from 'vitest';
import { computeFee } from './fees.js';
import { formatAmount, parseAmount } from './money.js';

const schedule = { fixed: '0.50', percent: '1.0' };

describe('money', () => {
  bench('parseAmount', () => {
    parseAmount('1234.56', 'USD');
  });

  bench('parseAmount + computeFee + formatAmount', () => {
    const amount = parseAmount('1234.56', 'USD');
    if (E.isLeft(amount)) throw new Error(amount.left.message);
    formatAmount(computeFee(amount.right, schedule));
  });
});
