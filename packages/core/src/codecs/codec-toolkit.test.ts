import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import {
  codecOf,
  decodeWith,
  fail,
  firstPayrailError,
  holdsNonText,
  leaf,
  leafFrom,
  payrailErrorOf,
  request,
  requestBody,
  withDefault,
} from './codec-toolkit.js';

/** A required string field that speaks the catalogue: `<field> required` when absent or empty. */
const requiredString = (field: string) =>
  codecOf<string>(
    `required ${field}`,
    (u): u is string => typeof u === 'string' && u !== '',
    (u, c) =>
      typeof u === 'string' && u !== ''
        ? t.success(u)
        : fail(u, c, payrailError('field_required', { field })),
  );

const Order = t.type({
  reference: requiredString('reference'),
  currency: requiredString('currency'),
});

const leftOf = <A>(result: E.Either<PayrailError, A>): PayrailError => {
  if (E.isRight(result)) throw new Error('expected a failure');
  return result.left;
};

describe('decodeWith', () => {
  it('answers the decoded value on success', () => {
    expect(decodeWith(Order)({ reference: 'r-1', currency: 'USD' })).toEqual(
      E.right({ reference: 'r-1', currency: 'USD' }),
    );
  });

  it('answers the first catalogue error, in the order of the codec keys', () => {
    expect(leftOf(decodeWith(Order)({})).message).toBe('reference required');
    expect(leftOf(decodeWith(Order)({ currency: '' })).message).toBe('reference required');
    expect(leftOf(decodeWith(Order)({ reference: 'r-1' })).message).toBe('currency required');
  });

  it('keeps the whole catalogue error: key, status and code', () => {
    expect(leftOf(decodeWith(Order)({ reference: 'r-1' }))).toEqual(
      payrailError('field_required', { field: 'currency' }),
    );
  });

  it('answers Validation Failed for a plain io-ts failure', () => {
    const error = leftOf(decodeWith(t.type({ amount: t.string }))({ amount: 1 }));
    expect(error).toMatchObject({
      key: 'validation_failed',
      message: 'Validation Failed',
      httpStatus: 400,
      code: 51,
    });
  });

  it('a plain failure that comes first wins over a later catalogue error', () => {
    const Mixed = t.type({ amount: t.string, reference: requiredString('reference') });
    expect(leftOf(decodeWith(Mixed)({ amount: 1 })).message).toBe('Validation Failed');
    expect(leftOf(decodeWith(Mixed)({ amount: '1' })).message).toBe('reference required');
  });

  it('finds catalogue errors raised inside nested codecs', () => {
    const Nested = t.type({ beneficiary: t.type({ name: requiredString('beneficiary.name') }) });
    expect(leftOf(decodeWith(Nested)({ beneficiary: {} })).message).toBe(
      'beneficiary.name required',
    );
  });
});

describe('fail / payrailErrorOf / firstPayrailError', () => {
  it('puts the catalogue message on the io-ts error and reads the error back', () => {
    const error = payrailError('reference_already_exists');
    const result = fail(1, [], error);
    if (E.isRight(result)) throw new Error('fail must fail');
    const [first] = result.left;
    expect(first?.message).toBe('reference already exists');
    expect(first && payrailErrorOf(first)).toEqual(error);
  });

  it('finds nothing on a plain io-ts error, and Validation Failed for no errors at all', () => {
    const plain = t.string.decode(1);
    if (E.isRight(plain)) throw new Error('t.string must refuse a number');
    expect(plain.left[0] && payrailErrorOf(plain.left[0])).toBeUndefined();
    expect(firstPayrailError([]).message).toBe('Validation Failed');
  });
});

describe('codecOf', () => {
  it('builds a named codec from is, validate and an identity encode by default', () => {
    const codec = requiredString('reference');
    expect(codec.name).toBe('required reference');
    expect(codec.is('x')).toBe(true);
    expect(codec.is('')).toBe(false);
    expect(codec.encode('x')).toBe('x');
  });

  it('uses the encode it is given', () => {
    const upper = codecOf<string, string>(
      'upper',
      (u): u is string => typeof u === 'string',
      (u, c) => (typeof u === 'string' ? t.success(u) : t.failure(u, c)),
      (a) => a.toUpperCase(),
    );
    expect(upper.encode('usd')).toBe('USD');
  });
});

describe('requestBody', () => {
  const Body = requestBody(Order);

  it.each([
    ['undefined (empty or unparsable body)', undefined],
    ['null', null],
    ['an array', [{ reference: 'r-1', currency: 'USD' }]],
    ['an empty array', []],
    ['a string', '{"reference":"r-1"}'],
    ['a number', 42],
    ['a boolean', true],
  ])('answers 400/51 request required for %s', (_, body) => {
    expect(leftOf(decodeWith(Body)(body))).toMatchObject({
      key: 'request_required',
      message: 'request required',
      httpStatus: 400,
      code: 51,
    });
  });

  it('hands an object to the inner codec, whose errors come through', () => {
    expect(leftOf(decodeWith(Body)({})).message).toBe('reference required');
    expect(decodeWith(Body)({ reference: 'r-1', currency: 'USD' })).toEqual(
      E.right({ reference: 'r-1', currency: 'USD' }),
    );
  });

  it('keeps the inner codec name, is and encode', () => {
    expect(Body.name).toBe(Order.name);
    expect(Body.is({ reference: 'r', currency: 'USD' })).toBe(true);
    expect(Body.is(null)).toBe(false);
  });
});

describe('request: leaves reading a sibling, and `is`', () => {
  const Sized = request('Sized', {
    format: t.type({
      unit: leaf<string>(
        'Unit',
        (u): u is string => u === 'cm' || u === 'mm',
        () => payrailError('validation_failed'),
        { type: 'string' },
      ),
      size: leafFrom<number>(
        'Size',
        (u): u is number => typeof u === 'number',
        // A size in mm may have no fraction: judged at the size's place, in the light of the unit.
        (u, sibling) =>
          typeof u === 'number' && (sibling('unit') !== 'mm' || Number.isInteger(u))
            ? E.right(u)
            : E.left(payrailError('field_required', { field: 'size' })),
        { type: 'number' },
      ),
      label: withDefault(
        leaf<string>(
          'Label',
          (u): u is string => typeof u === 'string',
          () => payrailError('validation_failed'),
          {
            type: 'string',
          },
        ),
        '',
      ),
    }),
  });

  it('a leaf reads the raw value beside it, null as absent', () => {
    expect(decodeWith(Sized)({ unit: 'cm', size: 1.5 })).toEqual(
      E.right({ unit: 'cm', size: 1.5, label: '' }),
    );
    expect(leftOf(decodeWith(Sized)({ unit: 'mm', size: 1.5 })).message).toBe('size required');
  });

  it('`is` holds for values that decode to themselves (defaults filled in), also with siblings', () => {
    expect(Sized.is({ unit: 'mm', size: 2, label: '' })).toBe(true);
    expect(Sized.is({ unit: 'mm', size: 2 })).toBe(false);
    expect(Sized.is({ unit: 'mm', size: 2.5, label: '' })).toBe(false);
  });
});

describe('holdsNonText', () => {
  /** `inner` under `depth` arrays or objects, built without recursion. */
  const nested = (depth: number, kind: 'array' | 'object', inner: unknown): unknown => {
    let value = inner;
    for (let i = 0; i < depth; i += 1) value = kind === 'array' ? [value] : { a: value };
    return value;
  };

  // Found by fuzzing the HTTP edge (issue 13): a body nested 200,000 deep, which `JSON.parse`
  // reads, overflowed the stack of the recursive walk, and the request answered 500.
  it.each(['array', 'object'] as const)(
    'walks a value nested 200,000 deep in %ss without overflowing the stack',
    (kind) => {
      const [open, close] = kind === 'array' ? ['[', ']'] : ['{"a":', '}'];
      const parsed = JSON.parse(`${open.repeat(200_000)}"text"${close.repeat(200_000)}`) as unknown;
      expect(holdsNonText(parsed)).toBe(false);
      expect(holdsNonText(nested(200_000, kind, 'a\u0000b'))).toBe(true);
      expect(holdsNonText(nested(200_000, kind, { '\ud800': 1 }))).toBe(true);
    },
  );

  it('finds a NUL or an unpaired surrogate in a string, an item, a member or its name', () => {
    expect(holdsNonText('\u0000')).toBe(true);
    expect(holdsNonText(['ok', ['x\udc00']])).toBe(true);
    expect(holdsNonText({ a: { b: 'ok' }, c: ['\ud800'] })).toBe(true);
    expect(holdsNonText({ ok: { 'name\u0000': 1 } })).toBe(true);
    expect(holdsNonText({ a: ['\ud83d\udcb8', 1, null, true], b: { c: 'e\u0301' } })).toBe(false);
    expect(holdsNonText(Array.from({ length: 1_000_000 }, (_, i) => i))).toBe(false);
  });
});
