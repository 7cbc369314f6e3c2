/**
 * Money in one module. Amounts enter as decimal strings, live as decimal.js values at the
 * currency's scale, and leave as decimal strings: never a JavaScript number past the edge.
 */
import { Decimal as DecimalJs } from 'decimal.js';
import * as E from 'fp-ts/lib/Either.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';

/**
 * payrail's own Decimal: a clone, so a host that configures the global decimal.js differently
 * cannot change how we round. Precision 40 holds any amount the service accepts exactly.
 */
export const Decimal: typeof DecimalJs = DecimalJs.clone({
  precision: 40,
  rounding: DecimalJs.ROUND_HALF_UP,
  toExpNeg: -40,
  toExpPos: 40,
});
export type Decimal = DecimalJs;

/** The currencies payrail moves. */
export const currencies = ['USD', 'USDT', 'USDC'] as const;
export type Currency = (typeof currencies)[number];
/** The number of decimals each currency's amounts carry. */
export const currencyScales = { USD: 2, USDT: 6, USDC: 6 } as const satisfies Record<
  Currency,
  number
>;

export const fiatCurrencies = ['USD'] as const satisfies readonly Currency[];
export const cryptoCurrencies = ['USDT', 'USDC'] as const satisfies readonly Currency[];
export type FiatCurrency = (typeof fiatCurrencies)[number];
export type CryptoCurrency = (typeof cryptoCurrencies)[number];

export const isCurrency = (value: unknown): value is Currency =>
  typeof value === 'string' && Object.hasOwn(currencyScales, value);
export const isCryptoCurrency = (value: unknown): value is CryptoCurrency =>
  value === 'USDT' || value === 'USDC';

export const scaleOf = (currency: Currency): number => currencyScales[currency];

/** An amount of one currency. `value` always has at most the currency's scale of decimals. */
export interface Money {
  readonly currency: Currency;
  readonly value: Decimal;
}

const unsignedDecimal = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const signedDecimal = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * No amount has more than 24 integer digits: with 6 decimals that is 30 significant digits, well
 * inside the 40 that `Decimal` computes exactly, fees and sums included.
 */
const maxIntegerDigits = 24;

export interface ParseAmountOptions {
  /** The name of the field in error messages. */
  readonly field?: string;
  /** Ledger movements are signed; request amounts are not. */
  readonly allowNegative?: boolean;
}

/**
 * Parses a wire amount. Accepts only plain decimal strings ("10", "10.5", "0.000001"): no
 * exponent, no sign (unless allowed), no leading zeros, no whitespace, at most the currency's
 * scale of decimals. Anything else is `<field> must be a decimal string with at most <scale>
 * decimal places` (or, past 24 integer digits, `<field> must have at most 24 digits before the
 * decimal point`); range rules (greater than zero, ...) belong to the caller's codec.
 */
export const parseAmount = (
  input: unknown,
  currency: Currency,
  options: ParseAmountOptions = {},
): E.Either<PayrailError, Money> => {
  const field = options.field ?? 'amount';
  const scale = scaleOf(currency);
  const pattern = options.allowNegative ? signedDecimal : unsignedDecimal;
  if (typeof input !== 'string' || !pattern.test(input)) {
    return E.left(payrailError('invalid_decimal', { field, scale }));
  }
  const [whole = '', fraction = ''] = input.replace('-', '').split('.');
  if (fraction.length > scale) return E.left(payrailError('invalid_decimal', { field, scale }));
  if (whole.length > maxIntegerDigits) return E.left(payrailError('decimal_too_large', { field }));
  return E.right({ currency, value: new Decimal(input) });
};

/** Whether a string is a plain decimal with at most `scale` decimals (no sign, no exponent). */
export const isDecimalString = (input: unknown, scale: number): input is string =>
  typeof input === 'string' &&
  unsignedDecimal.test(input) &&
  (input.split('.')[1]?.length ?? 0) <= scale &&
  (input.split('.')[0]?.length ?? 0) <= maxIntegerDigits;

export const money = (currency: Currency, value: DecimalJs.Value): Money => ({
  currency,
  value: new Decimal(value).toDecimalPlaces(scaleOf(currency), Decimal.ROUND_HALF_UP),
});

export const zero = (currency: Currency): Money => ({ currency, value: new Decimal(0) });

/** The wire form: a decimal string with exactly the currency's scale ("10.00", "1.500000"). */
export const formatAmount = (amount: Money): string =>
  amount.value.toFixed(scaleOf(amount.currency));

const sameCurrency = (a: Money, b: Money): void => {
  if (a.currency !== b.currency) {
    throw new TypeError(`currency mismatch: ${a.currency} and ${b.currency}`);
  }
};

export const add = (a: Money, b: Money): Money => {
  sameCurrency(a, b);
  return { currency: a.currency, value: a.value.plus(b.value) };
};

export const subtract = (a: Money, b: Money): Money => {
  sameCurrency(a, b);
  return { currency: a.currency, value: a.value.minus(b.value) };
};

export const negate = (a: Money): Money => ({ currency: a.currency, value: a.value.negated() });

export const compare = (a: Money, b: Money): -1 | 0 | 1 => {
  sameCurrency(a, b);
  const order = a.value.comparedTo(b.value);
  return order < 0 ? -1 : order > 0 ? 1 : 0;
};

export const isPositive = (a: Money): boolean => a.value.greaterThan(0);
export const isZero = (a: Money): boolean => a.value.isZero();
export const isNegative = (a: Money): boolean => a.value.isNegative() && !a.value.isZero();
export const max = (a: Money, b: Money): Money => (compare(a, b) >= 0 ? a : b);
export const min = (a: Money, b: Money): Money => (compare(a, b) <= 0 ? a : b);
export const sum = (currency: Currency, amounts: readonly Money[]): Money =>
  amounts.reduce(add, zero(currency));
