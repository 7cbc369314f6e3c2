import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  add,
  type Currency,
  compare,
  currencies,
  formatAmount,
  type Money,
  money,
  negate,
  parseAmount,
  scaleOf,
  subtract,
  sum,
} from './money.js';

const digits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

/** The integer part of a plain decimal: `0` or a digit string without a leading zero. */
const integerPart = fc.oneof(
  fc.constant('0'),
  fc.tuple(fc.constantFrom(...'123456789'), digits(0, 25)).map(([head, tail]) => `${head}${tail}`),
);

const currency = fc.constantFrom(...currencies);

/** A valid wire amount of `currency`: integer part, then optionally 1..scale decimals. */
const decimalAt = (scale: number) =>
  fc
    .tuple(integerPart, fc.option(digits(1, scale), { nil: undefined }))
    .map(([int, frac]) => (frac === undefined ? int : `${int}.${frac}`));

const padded = (s: string, scale: number): string => {
  const [int, frac = ''] = s.split('.');
  return `${int}.${frac.padEnd(scale, '0')}`;
};

/** An amount in minor units, written as the wire decimal of its currency. */
const fromMinor = (minor: bigint, scale: number): string => {
  const sign = minor < 0n ? '-' : '';
  const abs = (minor < 0n ? -minor : minor).toString().padStart(scale + 1, '0');
  return `${sign}${abs.slice(0, abs.length - scale)}.${abs.slice(abs.length - scale)}`;
};

const parse = (s: string, c: Currency, allowNegative = false): Money => {
  const result = parseAmount(s, c, { allowNegative });
  if (E.isLeft(result)) throw new Error(`${s}: ${result.left.message}`);
  return result.right;
};

describe('parseAmount / formatAmount properties', () => {
  it('round-trips: format(parse(s)) is s padded to the scale, and parses back equal', () => {
    fc.assert(
      fc.property(
        currency.chain((c) => fc.tuple(fc.constant(c), decimalAt(scaleOf(c)))),
        ([c, s]) => {
          const amount = parse(s, c);
          const wire = formatAmount(amount);
          expect(wire).toBe(padded(s, scaleOf(c)));
          expect(compare(parse(wire, c), amount)).toBe(0);
        },
      ),
    );
  });

  it('rejects any valid decimal with one decimal more than the scale, naming field and scale', () => {
    fc.assert(
      fc.property(
        currency.chain((c) =>
          fc.tuple(fc.constant(c), integerPart, digits(scaleOf(c) + 1, scaleOf(c) + 4)),
        ),
        fc.stringMatching(/^[a-z_]{1,20}$/),
        ([c, int, frac], field) => {
          const result = parseAmount(`${int}.${frac}`, c, { field });
          expect(E.isLeft(result) && result.left.message).toBe(
            `${field} must be a decimal string with at most ${scaleOf(c)} decimal places`,
          );
        },
      ),
    );
  });

  it('rejects a valid decimal once whitespace, a sign, an exponent or a leading zero is added', () => {
    const damage = fc.constantFrom(
      (s: string) => ` ${s}`,
      (s: string) => `${s} `,
      (s: string) => `+${s}`,
      (s: string) => `-${s}`,
      (s: string) => `${s}e0`,
      (s: string) => `0${s}`,
      (s: string) => `${s}.`,
    );
    fc.assert(
      fc.property(currency, decimalAt(2), damage, (c, s, spoil) => {
        expect(E.isLeft(parseAmount(spoil(s), c))).toBe(true);
      }),
    );
  });

  it('never accepts a JavaScript number, whatever its value', () => {
    fc.assert(
      fc.property(currency, fc.double(), (c, n) => {
        expect(E.isLeft(parseAmount(n, c))).toBe(true);
      }),
    );
  });
});

describe('arithmetic properties', () => {
  // Each amount within the 24 integer digits parseAmount accepts (24 + 2 digits for USD).
  const minorAmounts = fc.array(fc.bigInt({ min: -(10n ** 26n - 1n), max: 10n ** 26n - 1n }), {
    maxLength: 60,
  });

  it('sums exactly: the sum of wire amounts equals the sum of their minor units', () => {
    fc.assert(
      fc.property(currency, minorAmounts, (c, minors) => {
        const scale = scaleOf(c);
        const amounts = minors.map((m) => parse(fromMinor(m, scale), c, true));
        const expected = minors.reduce((a, b) => a + b, 0n);
        expect(formatAmount(sum(c, amounts))).toBe(fromMinor(expected, scale));
      }),
    );
  });

  it('subtract undoes add, and a - b = a + (-b)', () => {
    const pair = currency.chain((c) =>
      fc.tuple(fc.constant(c), decimalAt(scaleOf(c)), decimalAt(scaleOf(c))),
    );
    fc.assert(
      fc.property(pair, ([c, x, y]) => {
        const a = parse(x, c);
        const b = parse(y, c);
        expect(compare(subtract(add(a, b), b), a)).toBe(0);
        expect(compare(subtract(a, b), add(a, negate(b)))).toBe(0);
        expect(compare(add(a, b), add(b, a))).toBe(0);
      }),
    );
  });

  it('money() is idempotent and lands on the scale', () => {
    fc.assert(
      fc.property(currency, decimalAt(12), (c, s) => {
        const once = money(c, s);
        expect(formatAmount(money(c, once.value))).toBe(formatAmount(once));
        expect(once.value.decimalPlaces()).toBeLessThanOrEqual(scaleOf(c));
      }),
    );
  });
});
