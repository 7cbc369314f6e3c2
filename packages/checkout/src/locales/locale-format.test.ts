import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fillText, formatAlternatives, formatDecimal, formatExpiry } from './locale-format.js';

describe('formatDecimal', () => {
  it('groups the whole part and keeps every digit of the fraction', () => {
    expect(formatDecimal('25.000000', 'en')).toBe('25.000000');
    expect(formatDecimal('1234567.890000', 'en')).toBe('1,234,567.890000');
    expect(formatDecimal('1234567.890000', 'zh-CN')).toBe('1,234,567.890000');
    expect(formatDecimal('1234567.89', 'de')).toBe('1.234.567,89');
    expect(formatDecimal('0.10', 'en')).toBe('0.10');
    expect(formatDecimal('12', 'en')).toBe('12');
  });

  it('never rounds: amounts beyond a float’s precision come back digit for digit', () => {
    expect(formatDecimal('12345678901234567890.123456', 'en')).toBe(
      '12,345,678,901,234,567,890.123456',
    );
    fc.assert(
      fc.property(
        fc.bigInt(0n, 10n ** 30n),
        fc.stringMatching(/^[0-9]{1,18}$/),
        (whole, fraction) => {
          const amount = `${whole}.${fraction}`;
          expect(formatDecimal(amount, 'en').replaceAll(',', '')).toBe(amount);
          expect(formatDecimal(amount, 'zh-CN').replaceAll(',', '')).toBe(amount);
        },
      ),
    );
  });

  it('shows anything that is not a plain decimal as it is', () => {
    expect(formatDecimal('-1.5', 'en')).toBe('-1.5');
    expect(formatDecimal('abc', 'en')).toBe('abc');
  });
});

describe('the other formats', () => {
  it('joins currencies as alternatives, in the language', () => {
    expect(formatAlternatives(['USDT', 'USDC'], 'en')).toBe('USDT or USDC');
    expect(formatAlternatives(['USDT', 'USDC'], 'zh-CN')).toBe('USDT或USDC');
    expect(formatAlternatives(['USDT'], 'en')).toBe('USDT');
  });

  it('writes the expiry in UTC, in the language', () => {
    // 2027-01-15T08:15:00Z
    expect(formatExpiry(1_800_000_900, 'en')).toBe('Jan 15, 2027, 08:15 AM UTC');
    expect(formatExpiry(1_800_000_900, 'zh-CN')).toBe('2027年1月15日 UTC 08:15');
  });

  it('fills placeholders, leaving unknown ones as written', () => {
    expect(fillText('{currency} on {network}', { currency: 'USDT', network: 'Base' })).toBe(
      'USDT on Base',
    );
    expect(fillText('{x} {toString}', {})).toBe('{x} {toString}');
  });
});
