import { describe, expect, it } from 'vitest';
import { computeFee, feeExceedsAmount, payoutCharges } from './fees.js';
import { type Currency, formatAmount, money } from './money.js';

const fee = (currency: Currency, amount: string, fixed: string, percent: string): string =>
  formatAmount(computeFee(money(currency, amount), { fixed, percent }));

describe('computeFee: fixed + percent, rounded once ROUND_HALF_UP at the scale', () => {
  it('100.00 USD at 1.5% + 0.50 is 2.00', () => {
    expect(fee('USD', '100.00', '0.50', '1.5')).toBe('2.00');
  });

  it('exactly half a cent rounds up; just below half rounds down', () => {
    expect(fee('USD', '0.10', '0', '5')).toBe('0.01'); // 0.005
    expect(fee('USD', '1.00', '0', '0.5')).toBe('0.01'); // 0.005
    expect(fee('USD', '0.99', '0', '0.5')).toBe('0.00'); // 0.00495
    expect(fee('USD', '0.30', '0.25', '1.5')).toBe('0.25'); // 0.2545
    expect(fee('USD', '0.70', '0.25', '1.5')).toBe('0.26'); // 0.2605
    expect(fee('USD', '33.00', '0', '1.5')).toBe('0.50'); // 0.495
  });

  it('6-decimal tokens round at the sixth decimal', () => {
    expect(fee('USDT', '100', '0', '0.1234567')).toBe('0.123457');
    expect(fee('USDT', '0.000001', '0', '50')).toBe('0.000001'); // 0.0000005
    expect(fee('USDC', '0.000001', '0', '49')).toBe('0.000000'); // 0.00000049
    expect(fee('USDC', '1.000001', '1', '1')).toBe('1.010000'); // 1.01000001
    expect(fee('USDT', '250.5', '0.1', '2')).toBe('5.110000');
  });

  it('a schedule with no percent is the fixed fee; with no fixed part it is the percent', () => {
    expect(fee('USD', '12345.67', '1.25', '0')).toBe('1.25');
    expect(fee('USD', '200', '0', '2')).toBe('4.00');
    expect(fee('USD', '200', '0', '0')).toBe('0.00');
  });

  it('keeps the currency of the amount', () => {
    expect(computeFee(money('USDC', '10'), { fixed: '0', percent: '1' }).currency).toBe('USDC');
  });
});

describe('payoutCharges: who bears the fee decides the split', () => {
  const amount = money('USD', '100.00');
  const charge = money('USD', '2.00');

  it('merchant: the recipient gets the amount, the merchant pays amount + fee', () => {
    const c = payoutCharges(amount, charge, 'merchant');
    expect([c.debit, c.credit, c.fee].map(formatAmount)).toEqual(['102.00', '100.00', '2.00']);
  });

  it('user: the merchant pays the amount, the recipient gets amount - fee', () => {
    const c = payoutCharges(amount, charge, 'user');
    expect([c.debit, c.credit, c.fee].map(formatAmount)).toEqual(['100.00', '98.00', '2.00']);
  });
});

describe('feeExceedsAmount: a user-borne fee must leave the recipient something', () => {
  it('is true when the amount equals or is below the fee, false above', () => {
    expect(feeExceedsAmount(money('USD', '2.00'), money('USD', '2.00'))).toBe(true);
    expect(feeExceedsAmount(money('USD', '1.99'), money('USD', '2.00'))).toBe(true);
    expect(feeExceedsAmount(money('USD', '2.01'), money('USD', '2.00'))).toBe(false);
  });

  it('refuses to compare different currencies', () => {
    expect(() => feeExceedsAmount(money('USD', '1'), money('USDT', '1'))).toThrow(
      'currency mismatch',
    );
  });
});
