import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { recordTypes } from '../ledger/ledger.js';
import { executionStatuses, reviewStatuses } from '../machines/payout.machine.js';
import { currencies } from '../money/money.js';
import { chainNetworks } from '../money/pay-tokens.js';
import { decodeWith } from './codec-toolkit.js';
import {
  AccountListQuery,
  AcquiringOrderListQuery,
  accountStatusFilterValues,
  BalanceListQuery,
  DepositListQuery,
  fundingStatusFilterValues,
  LedgerListQuery,
  orderStatusFilterValues,
  PageQuery,
  PayoutListQuery,
  PayoutMethodListQuery,
  PayoutNetworkListQuery,
  payoutStatusFilterValues,
  WithdrawalListQuery,
} from './list-query.codecs.js';

type Value = string | number | boolean;

/** A parameter as a client sees it: valid wire values, what they decode to, and bad values. */
interface ParamSpec {
  readonly valid: fc.Arbitrary<string>;
  readonly value: (raw: string) => Value;
  readonly invalid: fc.Arbitrary<string>;
  readonly fallback?: Value;
}

const maxUnixSeconds = 253_402_300_799;

const notAnInteger = fc.constantFrom('abc', '1.5', '+1', '1e2', ' 1', '1 ', '01', '-0', '0x1', '١');

const enumSpec = (values: readonly string[], fallback?: string): ParamSpec => ({
  valid: fc.constantFrom(...values),
  value: (raw) => raw,
  invalid: fc.string({ minLength: 1 }).filter((s) => !values.includes(s)),
  ...(fallback === undefined ? {} : { fallback }),
});

const integerSpec = (min: number, max: number, fallback?: number): ParamSpec => ({
  valid: fc.integer({ min, max }).map(String),
  value: Number,
  invalid: fc.oneof(
    notAnInteger,
    fc.integer({ min: -1_000_000, max: min - 1 }).map(String),
    fc.bigInt(BigInt(max) + 1n, BigInt(max) * 10n + 10n).map(String),
  ),
  ...(fallback === undefined ? {} : { fallback }),
});

const textSpec: ParamSpec = {
  valid: fc.string({ minLength: 1, maxLength: 256 }),
  value: (raw) => raw,
  invalid: fc.string({ minLength: 257, maxLength: 400 }).filter((s) => Array.from(s).length > 256),
};

const flagSpec: ParamSpec = {
  valid: fc.constantFrom('true', 'false'),
  value: (raw) => raw === 'true',
  invalid: fc.string({ minLength: 1 }).filter((s) => s !== 'true' && s !== 'false'),
  fallback: false,
};

const page = {
  limit: integerSpec(1, 100, 20),
  offset: integerSpec(0, Number.MAX_SAFE_INTEGER, 0),
};
const timeWindow = {
  start_at: integerSpec(0, maxUnixSeconds),
  end_at: integerSpec(0, maxUnixSeconds),
};
const currency = enumSpec(currencies);
const funding = {
  currency,
  network: enumSpec(Object.keys(chainNetworks)),
  status: enumSpec(fundingStatusFilterValues),
  ...timeWindow,
  ...page,
};

/** Every list endpoint with its parameters in the declared order (the precedence order). */
const endpoints: ReadonlyArray<readonly [t.Mixed, Readonly<Record<string, ParamSpec>>]> = [
  [AccountListQuery, { status: enumSpec(accountStatusFilterValues), ...page }],
  [BalanceListQuery, { currency, at: integerSpec(0, maxUnixSeconds) }],
  [DepositListQuery, funding],
  [WithdrawalListQuery, funding],
  [
    LedgerListQuery,
    {
      currency,
      record_type: enumSpec(recordTypes),
      ...timeWindow,
      ...page,
      sort_by: enumSpec(['created_at'], 'created_at'),
      sort_order: enumSpec(['asc', 'desc'], 'desc'),
    },
  ],
  [
    PayoutListQuery,
    {
      reference: textSpec,
      client_request_id: textSpec,
      status: enumSpec(payoutStatusFilterValues),
      review_status: enumSpec(reviewStatuses),
      execution_status: enumSpec(executionStatuses),
      ...timeWindow,
      ...page,
    },
  ],
  [
    AcquiringOrderListQuery,
    { out_trade_no: textSpec, status: enumSpec(orderStatusFilterValues), ...timeWindow, ...page },
  ],
  [PayoutMethodListQuery, { currency }],
  [
    PayoutNetworkListQuery,
    { method_id: integerSpec(1, Number.MAX_SAFE_INTEGER), currency, include_schema: flagSpec },
  ],
  [PageQuery, page],
];

/** `invalid status`, `invalid review_status`, ... and `invalid <param>` read the same. */
const messageFor = (param: string): string => `invalid ${param}`;

const extraKey = fc.stringMatching(/^[a-z_]{1,12}$/);

/** A valid query: each parameter sent or not, a time window in order, unknown extras mixed in. */
const validQuery = (params: Readonly<Record<string, ParamSpec>>) =>
  fc
    .tuple(
      fc.record(
        Object.fromEntries(
          Object.entries(params).map(([name, spec]) => [
            name,
            fc.oneof(fc.constant(undefined), fc.constant(''), spec.valid),
          ]),
        ),
      ),
      fc.dictionary(
        extraKey.filter((key) => !Object.hasOwn(params, key)),
        fc.string(),
        { maxKeys: 3 },
      ),
    )
    .map(([query, extra]) => {
      const ordered: Record<string, string | undefined> = { ...extra, ...query };
      const { start_at: start, end_at: end } = ordered;
      if (start && end && Number(start) > Number(end)) {
        ordered.start_at = end;
        ordered.end_at = start;
      }
      return ordered;
    });

const expectedOf = (
  params: Readonly<Record<string, ParamSpec>>,
  query: Record<string, string | undefined>,
): Record<string, Value> => {
  const expected: Record<string, Value> = {};
  for (const [name, spec] of Object.entries(params)) {
    const raw = query[name];
    if (raw !== undefined && raw !== '') expected[name] = spec.value(raw);
    else if (spec.fallback !== undefined) expected[name] = spec.fallback;
  }
  return expected;
};

const messageOf = (codec: t.Mixed, query: unknown): string => {
  const result = decodeWith(codec)(query);
  return E.isLeft(result) ? result.left.message : `decoded: ${JSON.stringify(result.right)}`;
};

describe.each(endpoints.map(([codec, params]) => [codec.name, codec, params] as const))(
  '%s',
  (_, codec, params) => {
    it('decodes generated valid queries: sent values typed, defaults filled in, extras ignored', () => {
      fc.assert(
        fc.property(validQuery(params), (query) => {
          expect(codec.decode(query)).toEqual(E.right(expectedOf(params, query)));
        }),
      );
    });

    it('round-trips: encode then decode gives the decoded query back, which `is` accepts', () => {
      fc.assert(
        fc.property(validQuery(params), (query) => {
          const once = codec.decode(query);
          if (E.isLeft(once)) throw new Error('expected a valid query');
          expect(codec.is(once.right)).toBe(true);
          expect(codec.decode(codec.encode(once.right))).toEqual(once);
        }),
      );
    });

    it.each(Object.keys(params))('a bad %s answers exactly its message', (name) => {
      const spec = params[name];
      if (!spec) throw new Error(`no spec for ${name}`);
      fc.assert(
        fc.property(validQuery(params), spec.invalid, (query, bad) => {
          expect(messageOf(codec, { ...query, [name]: bad })).toBe(messageFor(name));
        }),
      );
    });

    it('of two bad parameters, the one declared first answers', () => {
      const names = Object.keys(params);
      if (names.length < 2) return;
      const twoBad = fc
        .uniqueArray(fc.constantFrom(...names), { minLength: 2, maxLength: 2 })
        .chain((picked) => {
          const [first, second] = [...picked].sort((a, b) => names.indexOf(a) - names.indexOf(b));
          const firstSpec = first === undefined ? undefined : params[first];
          const secondSpec = second === undefined ? undefined : params[second];
          if (!first || !second || !firstSpec || !secondSpec) throw new Error('two names');
          return fc
            .tuple(firstSpec.invalid, secondSpec.invalid)
            .map(([a, b]) => ({ first, second, a, b }));
        });
      fc.assert(
        fc.property(validQuery(params), twoBad, (query, { first, second, a, b }) => {
          expect(messageOf(codec, { ...query, [second]: b, [first]: a })).toBe(messageFor(first));
        }),
      );
    });
  },
);

describe('bounds', () => {
  it('limit: exactly the integers 1..100 are accepted', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), (limit) => {
        const result = decodeWith(PayoutListQuery)({ limit: String(limit) });
        if (limit >= 1 && limit <= 100) {
          expect(result).toEqual(E.right({ limit, offset: 0 }));
        } else {
          expect(E.isLeft(result) && result.left.message).toBe('invalid limit');
        }
      }),
    );
  });

  it('offset: exactly the integers >= 0 are accepted', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000, max: 1_000_000_000 }), (offset) => {
        const result = decodeWith(AcquiringOrderListQuery)({ offset: String(offset) });
        if (offset >= 0) {
          expect(result).toEqual(E.right({ limit: 20, offset }));
        } else {
          expect(E.isLeft(result) && result.left.message).toBe('invalid offset');
        }
      }),
    );
  });

  it('time window: start_at after end_at is `invalid end_at`, otherwise both are kept', () => {
    fc.assert(
      fc.property(fc.nat(maxUnixSeconds), fc.nat(maxUnixSeconds), (start, end) => {
        const result = decodeWith(LedgerListQuery)({
          start_at: String(start),
          end_at: String(end),
        });
        if (start <= end) {
          expect(E.isRight(result) && [result.right.start_at, result.right.end_at]).toEqual([
            start,
            end,
          ]);
        } else {
          expect(E.isLeft(result) && result.left.message).toBe('invalid end_at');
        }
      }),
    );
  });
});
