import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { isPayTokenId, type PayTokenId, payTokenIds, payTokens } from '../money/pay-tokens.js';
import {
  acquiringOrderInputArb,
  httpsUrlArb,
  payTokenIdArb,
  sameOriginPathArb,
  usdAmountArb,
  usdScaled,
} from '../testing/acquiring.arbitraries.js';
import {
  AcquiringOrderCloseRequest,
  AcquiringOrderCreateRequest,
  decodeAcquiringOrderClose,
  decodeAcquiringOrderCreate,
  decodePayTokenSelection,
  PayTokenSelectionRequest,
  resolveOrderPayTokens,
} from './acquiring.codecs.js';
import { decodeWith } from './codec-toolkit.js';

type Body = Record<string, unknown>;

const messageOf = (body: unknown): string => {
  const result = decodeAcquiringOrderCreate(body);
  return E.isLeft(result) ? result.left.message : `decoded: ${JSON.stringify(result.right)}`;
};

const without = (body: Body, ...keys: string[]): Body =>
  Object.fromEntries(Object.entries(body).filter(([key]) => !keys.includes(key)));

/** One broken field rule: how to break an otherwise valid body, and the one message it answers. */
interface Break {
  readonly patch: (body: Body) => Body;
  readonly message: string;
}

const set =
  (field: string, value: unknown) =>
  (body: Body): Body => ({ ...body, [field]: value });

const missing = (field: string): fc.Arbitrary<Break> =>
  fc.constantFrom<Break>(
    { patch: (body) => without(body, field), message: `${field} required` },
    { patch: set(field, null), message: `${field} required` },
    { patch: set(field, ''), message: `${field} required` },
    { patch: set(field, ' \t'), message: `${field} required` },
  );

const breaking = <A>(field: string, values: fc.Arbitrary<A>, message: (value: A) => string) =>
  values.map((value): Break => ({ patch: set(field, value), message: message(value) }));

const negativeUsd = usdAmountArb(1n, 10n ** 9n).map((amount) => `-${amount}`);
const overScaled = fc
  .tuple(fc.bigInt(0n, 10n ** 9n), fc.stringMatching(/^[0-9]{2,5}[1-9]$/))
  .map(([units, fraction]) => `${units}.${fraction}`);
const notADecimal = fc.oneof(
  fc.constantFrom('1e3', '01', '1.', '.5', ' 1', '1 ', '+1', 'NaN', 'Infinity', '0x10'),
  fc.integer(),
  fc.boolean(),
);
const malformedPayCurrency = fc.oneof(
  fc.constantFrom('USDT', 'USDC', 'TRON', '_USDT', 'TRON_', 'TRON-USDT', 'tron_usdt', ''),
  payTokenIdArb.map((id) => id.toLowerCase()),
  fc.string().filter((s) => !/^[A-Z][A-Z0-9]*_[A-Z][A-Z0-9]*$/.test(s)),
);
const unknownPayCurrency = fc
  .stringMatching(/^[A-Z][A-Z0-9]{0,8}_[A-Z][A-Z0-9]{0,5}$/)
  .filter((id) => !isPayTokenId(id));
const splitId = (id: string) => {
  const cut = id.lastIndexOf('_');
  return `${id.slice(0, cut)}/${id.slice(cut + 1)}`;
};
const nonIntegerOrOutOfRange = fc.oneof(
  fc.integer({ min: -1_000_000, max: 59 }),
  fc.integer({ min: 10801, max: 10_000_000 }),
  fc.double({ min: 60, max: 10800, noNaN: true }).filter((x) => !Number.isInteger(x)),
  fc.integer({ min: 60, max: 10800 }).map(String),
  fc.constantFrom(true, [], {}),
);
const badRedirect = fc.oneof(
  httpsUrlArb.map((url) => url.replace(/^https/, 'http')),
  httpsUrlArb.map((url) => url.replace(/^https:/, '')),
  sameOriginPathArb.map((path) => `/\\${path.slice(1)}`),
  sameOriginPathArb.map((path) => path.slice(1)).filter((path) => !path.startsWith('/')),
  fc.constantFrom('javascript:alert(1)', 'data:text/html,x', 'https://', '', 7),
);
const badLogo = fc.oneof(
  sameOriginPathArb,
  httpsUrlArb.map((url) => url.replace(/^https/, 'http')),
  fc.constantFrom('', 'logo.png', 0),
);

/** Field rules in precedence order (rank = index): each on its own field. */
const fieldBreaks: ReadonlyArray<readonly [string, string, fc.Arbitrary<Break>]> = [
  ['out_trade_no', 'absent or blank', missing('out_trade_no')],
  [
    'out_trade_no',
    'over 64 characters',
    breaking('out_trade_no', fc.stringMatching(/^[A-Za-z0-9]{65,100}$/), () => 'Validation Failed'),
  ],
  ['order_currency', 'absent or blank', missing('order_currency')],
  [
    'order_currency',
    'not USD',
    breaking(
      'order_currency',
      fc.oneof(
        fc.string().filter((s) => s !== 'USD' && s.trim() !== ''),
        fc.integer(),
      ),
      () => 'order_currency only supports USD',
    ),
  ],
  ['order_amount', 'absent or blank', missing('order_amount')],
  [
    'order_amount',
    'zero or negative',
    breaking(
      'order_amount',
      fc.oneof(negativeUsd, fc.constantFrom('0', '0.0', '0.00', '-0')),
      () => 'order_amount must be > 0',
    ),
  ],
  [
    'order_amount',
    'not a USD decimal',
    breaking(
      'order_amount',
      fc.oneof(overScaled, notADecimal),
      () => 'order_amount must be a decimal string with at most 2 decimal places',
    ),
  ],
  [
    'allowed_pay_currencies',
    'a malformed id',
    fc
      .tuple(fc.array(payTokenIdArb, { maxLength: 5 }), malformedPayCurrency, fc.nat())
      .map(([ids, bad, at]): Break => {
        const list: string[] = [...ids];
        list.splice(at % (ids.length + 1), 0, bad);
        return {
          patch: set('allowed_pay_currencies', list),
          message: `invalid pay currency: ${bad}`,
        };
      }),
  ],
  [
    'allowed_pay_currencies',
    'a well-formed unknown id',
    fc
      .tuple(fc.array(payTokenIdArb, { maxLength: 5 }), unknownPayCurrency, fc.nat())
      .map(([ids, bad, at]): Break => {
        const list: string[] = [...ids];
        list.splice(at % (ids.length + 1), 0, bad);
        return {
          patch: set('allowed_pay_currencies', list),
          message: `unsupported network/currency: ${splitId(bad)}`,
        };
      }),
  ],
  [
    'allowed_pay_currencies',
    'empty',
    fc.constant<Break>({
      patch: set('allowed_pay_currencies', []),
      message: 'allowed_pay_currencies required',
    }),
  ],
  [
    'expire_seconds',
    'absent',
    fc.constantFrom<Break>(
      { patch: (body) => without(body, 'expire_seconds'), message: 'expire_seconds required' },
      { patch: set('expire_seconds', null), message: 'expire_seconds required' },
    ),
  ],
  [
    'expire_seconds',
    'out of range or not an integer',
    breaking(
      'expire_seconds',
      nonIntegerOrOutOfRange,
      () => 'expire_seconds must be between 60 and 10800',
    ),
  ],
  ['underpay_tolerance', 'absent or blank', missing('underpay_tolerance')],
  [
    'underpay_tolerance',
    'negative',
    breaking('underpay_tolerance', negativeUsd, () => 'underpay_tolerance must be >= 0'),
  ],
  [
    'underpay_tolerance',
    'not a USD decimal',
    breaking(
      'underpay_tolerance',
      fc.oneof(overScaled, notADecimal),
      () => 'underpay_tolerance must be a decimal string with at most 2 decimal places',
    ),
  ],
  ['notify_webhook_id', 'absent or blank', missing('notify_webhook_id')],
  [
    'redirect_url',
    'not https nor a same-origin path',
    breaking(
      'redirect_url',
      badRedirect,
      () => 'redirect_url must be an absolute https URL or a same-origin relative path',
    ),
  ],
  [
    'logo_url',
    'not an absolute https URL',
    breaking('logo_url', badLogo, () => 'logo_url must be an absolute https URL'),
  ],
  [
    'remark',
    'over 256 characters',
    breaking(
      'remark',
      fc
        .string({ minLength: 257, maxLength: 400 })
        .filter((s) => /\S/.test(s) && Array.from(s).length > 256),
      () => 'Validation Failed',
    ),
  ],
  [
    'mode',
    'not checkout or direct',
    breaking(
      'mode',
      fc.oneof(
        fc.string().filter((s) => s !== 'checkout' && s !== 'direct'),
        fc.integer(),
      ),
      () => 'mode must be checkout or direct',
    ),
  ],
  [
    'checkout_type',
    'not hosted',
    breaking(
      'checkout_type',
      fc.oneof(
        fc.string().filter((s) => s !== 'hosted'),
        fc.boolean(),
      ),
      () => 'unsupported checkout_type',
    ),
  ],
  [
    'redirect_automatically',
    'not a JSON boolean',
    breaking(
      'redirect_automatically',
      fc.oneof(fc.constantFrom('true', 'false', 1, 0, [], {}), fc.string(), fc.integer()),
      () => 'Validation Failed',
    ),
  ],
];

/** The pair rules, checked after every field. */
const pairBreaks: ReadonlyArray<readonly [string, fc.Arbitrary<Break>]> = [
  [
    'only one of network/currency',
    fc.constantFrom<'network' | 'currency'>('network', 'currency').map(
      (keep): Break => ({
        patch: (body) =>
          body.network === undefined
            ? { ...body, [keep]: payTokens.TRON_USDT[keep] }
            : without(body, keep === 'network' ? 'currency' : 'network'),
        message: 'network/currency required',
      }),
    ),
  ],
  [
    'direct mode without the pair',
    fc.constant<Break>({
      patch: (body) => ({ ...without(body, 'network', 'currency'), mode: 'direct' }),
      message: 'network/currency required',
    }),
  ],
  [
    'a pair naming no token',
    fc
      .tuple(fc.stringMatching(/^[A-Za-z]{1,10}$/), fc.stringMatching(/^[A-Za-z]{1,6}$/))
      .filter(([network, currency]) => !isPayTokenId(`${network}_${currency}`))
      .map(
        ([network, currency]): Break => ({
          patch: (body) => ({ ...body, network, currency }),
          message: `unsupported network/currency: ${network}/${currency}`,
        }),
      ),
  ],
  [
    'a pair outside allowed_pay_currencies',
    fc
      .tuple(payTokenIdArb, fc.subarray([...payTokenIds], { minLength: 1 }))
      .filter(([token, allowed]) => !allowed.includes(token))
      .map(
        ([token, allowed]): Break => ({
          patch: (body) => ({
            ...body,
            allowed_pay_currencies: allowed,
            network: payTokens[token].network,
            currency: payTokens[token].currency,
          }),
          message: 'network/currency not allowed by order',
        }),
      ),
  ],
];

describe('acquiring order create: generated valid orders', () => {
  it('decode, with amounts at USD scale, defaults filled in and the pair kept', () => {
    fc.assert(
      fc.property(acquiringOrderInputArb, (input) => {
        const result = decodeAcquiringOrderCreate(input);
        if (E.isLeft(result)) throw new Error(result.left.message);
        const order = result.right;
        expect(order.order_amount).toBe(usdScaled(input.order_amount as string));
        expect(order.underpay_tolerance).toBe(usdScaled(input.underpay_tolerance as string));
        expect(order.mode).toBe(input.mode ?? 'checkout');
        expect(order.checkout_type).toBe('hosted');
        expect(order.redirect_automatically).toBe(input.redirect_automatically ?? false);
        expect(order.network).toBe(input.network ?? undefined);
        expect(order.currency).toBe(input.currency ?? undefined);
        if (Array.isArray(input.allowed_pay_currencies)) {
          expect(order.allowed_pay_currencies).toEqual([...new Set(input.allowed_pay_currencies)]);
        } else {
          expect(order).not.toHaveProperty('allowed_pay_currencies');
        }
      }),
    );
  });

  it('decode idempotently: the decoded order is a codec value and decodes to itself', () => {
    fc.assert(
      fc.property(acquiringOrderInputArb, (input) => {
        const once = decodeAcquiringOrderCreate(input);
        if (E.isLeft(once)) throw new Error(once.left.message);
        expect(AcquiringOrderCreateRequest.is(once.right)).toBe(true);
        expect(decodeAcquiringOrderCreate(once.right)).toEqual(once);
      }),
    );
  });

  it('resolve against an account that enables every token: the sent list, or the defaults', () => {
    fc.assert(
      fc.property(
        acquiringOrderInputArb,
        fc.subarray([...payTokenIds], { minLength: 1 }),
        (input, defaults) => {
          const order = decodeAcquiringOrderCreate(input);
          if (E.isLeft(order)) throw new Error(order.left.message);
          const account = { enabledPayTokens: payTokenIds, defaultPayTokens: defaults };
          const resolved = resolveOrderPayTokens(order.right, account);
          const pair =
            order.right.network === undefined
              ? undefined
              : (`${order.right.network}_${order.right.currency}` as PayTokenId);
          if (order.right.allowed_pay_currencies !== undefined) {
            expect(resolved).toEqual(E.right(order.right.allowed_pay_currencies));
          } else if (pair === undefined || defaults.includes(pair)) {
            expect(resolved).toEqual(E.right(defaults));
          } else {
            expect(resolved).toEqual(
              E.left(expect.objectContaining({ message: 'network/currency not allowed by order' })),
            );
          }
        },
      ),
    );
  });
});

describe('acquiring order create: each broken rule answers exactly its message', () => {
  it.each(fieldBreaks.map(([field, rule, arb]) => [`${field}: ${rule}`, arb] as const))(
    '%s',
    (_, arb) => {
      fc.assert(
        fc.property(acquiringOrderInputArb, arb, (input, broken) => {
          expect(messageOf(broken.patch(input))).toBe(broken.message);
        }),
      );
    },
  );

  it.each(pairBreaks)('network/currency: %s', (_, arb) => {
    fc.assert(
      fc.property(acquiringOrderInputArb, arb, (input, broken) => {
        expect(messageOf(broken.patch(input))).toBe(broken.message);
      }),
    );
  });
});

describe('acquiring order create: precedence', () => {
  const distinctFieldPair = fc
    .tuple(fc.nat(fieldBreaks.length - 1), fc.nat(fieldBreaks.length - 1))
    .filter(([a, b]) => fieldBreaks[a]?.[0] !== fieldBreaks[b]?.[0])
    .chain(([a, b]) => {
      const first = fieldBreaks[Math.min(a, b)];
      const second = fieldBreaks[Math.max(a, b)];
      if (!first || !second) throw new Error('index out of range');
      return fc.tuple(first[2], second[2]);
    });

  it('of two broken fields, the one earlier in the table answers, in either order of breaking', () => {
    fc.assert(
      fc.property(acquiringOrderInputArb, distinctFieldPair, (input, [earlier, later]) => {
        expect(messageOf(later.patch(earlier.patch(input)))).toBe(earlier.message);
        expect(messageOf(earlier.patch(later.patch(input)))).toBe(earlier.message);
      }),
    );
  });

  it('a broken field answers before any broken pair rule', () => {
    const anyField = fc.constantFrom(...fieldBreaks).chain(([, , arb]) => arb);
    const anyPair = fc.constantFrom(...pairBreaks).chain(([, arb]) => arb);
    fc.assert(
      fc.property(acquiringOrderInputArb, anyPair, anyField, (input, pair, field) => {
        // The pair rules may rewrite mode and allowed_pay_currencies: break the field after them.
        expect(messageOf(field.patch(pair.patch(input)))).toBe(field.message);
      }),
    );
  });
});

describe('acquiring order create: underpay_tolerance below order_amount (issue 12, finding 6)', () => {
  const centsOf = (amount: string): bigint => BigInt(usdScaled(amount).replace('.', ''));
  const usdOf = (cents: bigint): string =>
    `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
  /** A tolerance of the order amount or more: 0 to 1 000 000.00 above it. */
  const toleranceNotBelow = fc.bigInt(0n, 10n ** 8n).map(
    (extra): Break => ({
      patch: (body) => ({
        ...body,
        underpay_tolerance: usdOf(centsOf(body.order_amount as string) + extra),
      }),
      message: 'underpay_tolerance must be less than order_amount',
    }),
  );

  it('a tolerance not below the order amount answers `underpay_tolerance must be less than order_amount`', () => {
    fc.assert(
      fc.property(acquiringOrderInputArb, toleranceNotBelow, (input, broken) => {
        expect(messageOf(broken.patch(input))).toBe(broken.message);
      }),
    );
  });

  it('a tolerance one cent below the order amount decodes', () => {
    fc.assert(
      fc.property(acquiringOrderInputArb, (input) => {
        const tolerance = usdOf(centsOf(input.order_amount as string) - 1n);
        const result = decodeAcquiringOrderCreate({ ...input, underpay_tolerance: tolerance });
        expect(E.isRight(result) && result.right.underpay_tolerance).toBe(tolerance);
      }),
    );
  });

  it('answers after every broken field and before every broken pair rule', () => {
    const anyField = fc.constantFrom(...fieldBreaks).chain(([, , arb]) => arb);
    const anyPair = fc.constantFrom(...pairBreaks).chain(([, arb]) => arb);
    fc.assert(
      fc.property(
        acquiringOrderInputArb,
        toleranceNotBelow,
        anyField,
        anyPair,
        (input, tolerance, field, pair) => {
          expect(messageOf(field.patch(tolerance.patch(input)))).toBe(field.message);
          expect(messageOf(pair.patch(tolerance.patch(input)))).toBe(tolerance.message);
        },
      ),
    );
  });
});

describe('checkout token selection', () => {
  it('answers the chosen token exactly when the order allows it', () => {
    fc.assert(
      fc.property(
        fc.subarray([...payTokenIds], { minLength: 1 }),
        payTokenIdArb,
        (allowed, chosen) => {
          const token = payTokens[chosen];
          const result = decodePayTokenSelection(
            { network: token.network, currency: token.currency },
            allowed,
          );
          if (allowed.includes(chosen)) {
            expect(result).toEqual(E.right(token));
          } else {
            expect(E.isLeft(result) && result.left.message).toBe(
              'network/currency not allowed by order',
            );
          }
        },
      ),
    );
  });
});

describe('acquiring order close', () => {
  const reason = fc
    .string({ minLength: 1, maxLength: 256, unit: 'grapheme-ascii' })
    .filter((text) => text.trim() !== '' && !/\p{Cc}/u.test(text));

  it('decodes any non-blank reason of at most 256 characters to itself, idempotently', () => {
    fc.assert(
      fc.property(reason, fc.jsonValue(), (text, extra) => {
        const once = decodeAcquiringOrderClose({ reason: text, extra });
        expect(once).toEqual(E.right({ reason: text }));
        if (E.isLeft(once)) return;
        expect(AcquiringOrderCloseRequest.is(once.right)).toBe(true);
        expect(decodeAcquiringOrderClose(once.right)).toEqual(once);
      }),
    );
  });

  it('a missing reason answers before its type: `reason required`, then `Validation Failed`', () => {
    const messageOfClose = (body: unknown) => {
      const result = decodeAcquiringOrderClose(body);
      return E.isLeft(result) ? result.left.message : 'decoded';
    };
    fc.assert(
      fc.property(
        fc.constantFrom(undefined, null, '', ' \t'),
        fc.oneof(fc.integer(), fc.boolean(), fc.string({ minLength: 257, maxLength: 300 })),
        (blank, bad) => {
          expect(messageOfClose({ reason: blank })).toBe('reason required');
          const wrong = typeof bad === 'string' && bad.trim() === '' ? 1 : bad;
          expect(messageOfClose({ reason: wrong })).toBe('Validation Failed');
        },
      ),
    );
  });
});

describe('checkout token selection request', () => {
  const decodeSelection = decodeWith(PayTokenSelectionRequest);
  const member = fc.string({ minLength: 1 }).filter((text) => text.trim() !== '');

  it('decodes any two non-blank strings to themselves, idempotently', () => {
    fc.assert(
      fc.property(member, member, (network, currency) => {
        const once = decodeSelection({ network, currency, order_id: 'ord_1' });
        expect(once).toEqual(E.right({ network, currency }));
        if (E.isLeft(once)) return;
        expect(PayTokenSelectionRequest.is(once.right)).toBe(true);
        expect(decodeSelection(once.right)).toEqual(once);
      }),
    );
  });

  it("a missing member answers before the other member's type", () => {
    fc.assert(
      fc.property(
        fc.constantFrom('network', 'currency'),
        fc.constantFrom(undefined, null, '', '  '),
        fc.oneof(fc.integer(), fc.boolean(), fc.constant([])),
        (missingKey, blank, wrong) => {
          const otherKey = missingKey === 'network' ? 'currency' : 'network';
          const result = decodeSelection({ [missingKey]: blank, [otherKey]: wrong });
          expect(E.isLeft(result) && result.left.message).toBe('network/currency required');
          const typed = decodeSelection({ [missingKey]: 'TRON', [otherKey]: wrong });
          expect(E.isLeft(typed) && typed.left.message).toBe('Validation Failed');
        },
      ),
    );
  });
});
