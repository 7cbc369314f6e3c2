import { Decimal as GlobalDecimal } from 'decimal.js';
import * as E from 'fp-ts/lib/Either.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { PayrailError } from '../errors/error-catalogue.js';
import {
  add,
  type Currency,
  compare,
  currencies,
  formatAmount,
  isCryptoCurrency,
  isCurrency,
  isDecimalString,
  isNegative,
  isPositive,
  isZero,
  type Money,
  max,
  min,
  money,
  negate,
  parseAmount,
  scaleOf,
  subtract,
  sum,
  zero,
} from './money.js';

const parsed = (input: unknown, currency: Currency, allowNegative = false): Money => {
  const result = parseAmount(input, currency, { allowNegative });
  if (E.isLeft(result))
    throw new Error(`expected ${String(input)} to parse: ${result.left.message}`);
  return result.right;
};

const rejection = (
  input: unknown,
  currency: Currency,
  options: { field?: string; allowNegative?: boolean } = {},
): PayrailError => {
  const result = parseAmount(input, currency, options);
  if (E.isRight(result)) throw new Error(`expected ${String(input)} to be rejected`);
  return result.left;
};

const usd = (value: string): Money => parsed(value, 'USD');
const usdt = (value: string): Money => parsed(value, 'USDT');

describe('currencies and scales', () => {
  it('knows USD at 2 decimals and USDT, USDC at 6', () => {
    expect(scaleOf('USD')).toBe(2);
    expect(scaleOf('USDT')).toBe(6);
    expect(scaleOf('USDC')).toBe(6);
    expect([...currencies].sort()).toEqual(['USD', 'USDC', 'USDT']);
  });

  it('recognises currency codes exactly (case, prototype keys)', () => {
    expect(isCurrency('USD')).toBe(true);
    expect(isCurrency('usd')).toBe(false);
    expect(isCurrency('EUR')).toBe(false);
    expect(isCurrency('toString')).toBe(false);
    expect(isCurrency(2)).toBe(false);
    expect(isCryptoCurrency('USDT')).toBe(true);
    expect(isCryptoCurrency('USDC')).toBe(true);
    expect(isCryptoCurrency('USD')).toBe(false);
  });
});

describe('parseAmount', () => {
  it.each([
    ['0', 'USD'],
    ['10', 'USD'],
    ['10.5', 'USD'],
    ['10.50', 'USD'],
    ['0.01', 'USD'],
    ['123456789012345678901234.99', 'USD'],
    ['0.000001', 'USDT'],
    ['1.123456', 'USDC'],
    ['100', 'USDT'],
  ] as const)('accepts %s in %s', (input, currency) => {
    expect(parsed(input, currency).value.equals(input)).toBe(true);
    expect(parsed(input, currency).currency).toBe(currency);
  });

  it.each([
    ['1.001', 'USD'],
    ['0.0000001', 'USDT'],
    ['1.1234567', 'USDC'],
    ['1e3', 'USD'],
    ['1E3', 'USD'],
    ['1.5e-2', 'USD'],
    ['+1', 'USD'],
    ['-1', 'USD'],
    ['-0', 'USD'],
    ['01', 'USD'],
    ['00.5', 'USD'],
    ['00', 'USD'],
    [' 1', 'USD'],
    ['1 ', 'USD'],
    ['1 000', 'USD'],
    ['\t1', 'USD'],
    ['1\n', 'USD'],
    ['', 'USD'],
    ['.5', 'USD'],
    ['5.', 'USD'],
    ['.', 'USD'],
    ['1,50', 'USD'],
    ['1.2.3', 'USD'],
    ['NaN', 'USD'],
    ['Infinity', 'USD'],
    ['-Infinity', 'USD'],
    ['0x10', 'USD'],
    ['１', 'USD'],
    ['١', 'USD'],
  ] as const)('rejects the string %j in %s', (input, currency) => {
    expect(rejection(input, currency).key).toBe('invalid_decimal');
  });

  it.each([
    1,
    0,
    1.5,
    0.1,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    10n,
    null,
    undefined,
    true,
    {},
    ['1'],
    new GlobalDecimal('1'),
  ])('rejects the non-string %s: money is never a JS number', (input) => {
    expect(rejection(input, 'USD').key).toBe('invalid_decimal');
  });

  it("answers the catalogue's invalid_decimal with the field name and the currency's scale", () => {
    const error = rejection('1.001', 'USD', { field: 'order_amount' });
    expect(error).toMatchObject({
      key: 'invalid_decimal',
      message: 'order_amount must be a decimal string with at most 2 decimal places',
      httpStatus: 400,
      code: 51,
    });
    expect(rejection(1, 'USDT').message).toBe(
      'amount must be a decimal string with at most 6 decimal places',
    );
  });

  it('accepts a sign only when allowNegative (ledger movements), and never "+" or "-01"', () => {
    expect(parsed('-1.25', 'USD', true).value.equals('-1.25')).toBe(true);
    expect(parsed('1.25', 'USD', true).value.equals('1.25')).toBe(true);
    expect(parseAmount('+1', 'USD', { allowNegative: true })._tag).toBe('Left');
    expect(parseAmount('-01', 'USD', { allowNegative: true })._tag).toBe('Left');
    expect(parseAmount('--1', 'USD', { allowNegative: true })._tag).toBe('Left');
    expect(parseAmount('-1.001', 'USD', { allowNegative: true })._tag).toBe('Left');
    expect(parseAmount('- 1', 'USD', { allowNegative: true })._tag).toBe('Left');
  });
});

describe('isDecimalString', () => {
  it('is the unsigned plain-decimal rule at a given scale', () => {
    expect(isDecimalString('10.25', 2)).toBe(true);
    expect(isDecimalString('10', 0)).toBe(true);
    expect(isDecimalString('10.255', 2)).toBe(false);
    expect(isDecimalString('10.5', 0)).toBe(false);
    expect(isDecimalString('-1', 2)).toBe(false);
    expect(isDecimalString('1e2', 2)).toBe(false);
    expect(isDecimalString(1, 2)).toBe(false);
  });
});

describe('formatAmount', () => {
  it("pads to the currency's scale", () => {
    expect(formatAmount(usd('10'))).toBe('10.00');
    expect(formatAmount(usd('10.5'))).toBe('10.50');
    expect(formatAmount(usdt('1.5'))).toBe('1.500000');
    expect(formatAmount(zero('USDC'))).toBe('0.000000');
  });

  it('never switches to exponent notation', () => {
    expect(formatAmount(usdt('0.000001'))).toBe('0.000001');
    expect(formatAmount(usd('123456789012345678901234'))).toBe('123456789012345678901234.00');
  });

  it('prints no negative zero', () => {
    expect(formatAmount(negate(zero('USD')))).toBe('0.00');
    expect(formatAmount(money('USD', '-0.001'))).toBe('0.00');
  });
});

describe('money()', () => {
  it("rounds to the currency's scale half up, away from zero on a tie", () => {
    expect(formatAmount(money('USD', '1.005'))).toBe('1.01');
    expect(formatAmount(money('USD', '1.0049999'))).toBe('1.00');
    expect(formatAmount(money('USD', '-1.005'))).toBe('-1.01');
    expect(formatAmount(money('USDT', '0.0000005'))).toBe('0.000001');
    expect(formatAmount(money('USDT', '0.00000049'))).toBe('0.000000');
  });

  describe('is independent of the global decimal.js configuration', () => {
    const saved = { rounding: GlobalDecimal.rounding, precision: GlobalDecimal.precision };
    afterEach(() => {
      GlobalDecimal.set(saved);
    });

    it('still rounds half up after a host sets ROUND_DOWN and a tiny precision globally', () => {
      GlobalDecimal.set({ rounding: GlobalDecimal.ROUND_DOWN, precision: 3 });
      expect(formatAmount(money('USD', '1.005'))).toBe('1.01');
      expect(formatAmount(add(usd('12345.67'), usd('0.01')))).toBe('12345.68');
    });
  });
});

describe('arithmetic is exact', () => {
  it('0.1 + 0.2 is 0.30', () => {
    expect(formatAmount(add(usd('0.1'), usd('0.2')))).toBe('0.30');
  });

  it('a thousand cents make ten dollars; ten thousand micro-units make a cent of USDT', () => {
    expect(
      formatAmount(
        sum(
          'USD',
          Array.from({ length: 1000 }, () => usd('0.01')),
        ),
      ),
    ).toBe('10.00');
    expect(
      formatAmount(
        sum(
          'USDT',
          Array.from({ length: 10_000 }, () => usdt('0.000001')),
        ),
      ),
    ).toBe('0.010000');
  });

  it('keeps every digit of large amounts', () => {
    expect(formatAmount(add(usd('999999999999999999999999.99'), usd('0.01')))).toBe(
      '1000000000000000000000000.00',
    );
    expect(formatAmount(subtract(usdt('1000000000000000000.000001'), usdt('0.000002')))).toBe(
      '999999999999999999.999999',
    );
  });

  it('subtract can go below zero and negate flips the sign', () => {
    const minus = subtract(usd('1.00'), usd('2.50'));
    expect(formatAmount(minus)).toBe('-1.50');
    expect(isNegative(minus)).toBe(true);
    expect(formatAmount(negate(minus))).toBe('1.50');
  });

  it('sum of nothing is zero of the currency', () => {
    expect(sum('USDC', [])).toEqual(zero('USDC'));
    expect(isZero(sum('USDC', []))).toBe(true);
  });
});

describe('comparisons', () => {
  it('compare, max, min order amounts', () => {
    expect(compare(usd('1.10'), usd('1.1'))).toBe(0);
    expect(compare(usd('1.09'), usd('1.1'))).toBe(-1);
    expect(compare(usd('2'), usd('1.99'))).toBe(1);
    expect(formatAmount(max(usd('2'), usd('1.99')))).toBe('2.00');
    expect(formatAmount(min(usd('2'), usd('1.99')))).toBe('1.99');
  });

  it('sign predicates: zero is neither positive nor negative', () => {
    expect(isPositive(usd('0.01'))).toBe(true);
    expect(isPositive(zero('USD'))).toBe(false);
    expect(isNegative(zero('USD'))).toBe(false);
    expect(isNegative(negate(zero('USD')))).toBe(false);
    expect(isZero(negate(zero('USD')))).toBe(true);
  });
});

describe('currency mismatch', () => {
  const a = usd('1');
  const b = usdt('1');
  it.each([
    ['add', () => add(a, b)],
    ['subtract', () => subtract(a, b)],
    ['compare', () => compare(a, b)],
    ['max', () => max(a, b)],
    ['min', () => min(a, b)],
    ['sum', () => sum('USD', [a, b])],
    ['sum of another currency', () => sum('USDT', [a])],
  ])('%s throws instead of mixing USD and USDT', (_, operation) => {
    expect(operation).toThrow(TypeError);
    expect(operation).toThrow(/currency mismatch: USDT? and USDT?/);
  });
});

describe('amount size', () => {
  it('accepts 24 integer digits and refuses 25, so no amount loses a digit to rounding', () => {
    const largest = `${'9'.repeat(24)}.999999`;
    const parsed = parseAmount(largest, 'USDT');
    expect(parsed._tag === 'Right' && formatAmount(parsed.right)).toBe(largest);
    const tooLarge = parseAmount(`1${'0'.repeat(24)}`, 'USDT');
    expect(tooLarge._tag === 'Left' && tooLarge.left.message).toBe(
      'amount must have at most 24 digits before the decimal point',
    );
    expect(isDecimalString(`1${'0'.repeat(24)}`, 2)).toBe(false);
  });
});
