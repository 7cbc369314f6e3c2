import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { PayrailError } from '../errors/error-catalogue.js';
import { cryptoCurrencies, fiatCurrencies } from '../money/money.js';
import { beneficiaryFieldKeys } from './beneficiary.codecs.js';
import { describeValidBodies, type ValidBodies } from './codec-laws.test-support.js';
import { decodeWith } from './codec-toolkit.js';
import {
  decodePayoutRouteCreate,
  PayoutMethodRequest,
  PayoutNetworkRequest,
  PayoutReviewRequest,
  PayoutRouteRequest,
  payoutConfigStatuses,
  reviewActions,
  SandboxExecutionRequest,
  sandboxExecutionOutcomes,
} from './payout-config.codecs.js';

const messageOf = (result: E.Either<PayrailError, unknown>): string =>
  E.isLeft(result) ? result.left.message : `decoded: ${JSON.stringify(result.right)}`;

const label = fc
  .string({ minLength: 1, maxLength: 100 })
  .filter((s) => s.trim() !== '' && !/\p{Cc}/u.test(s));
const networkCode = fc.stringMatching(/^[A-Z][A-Z0-9_]{1,31}$/);
const status = fc.constantFrom(...payoutConfigStatuses);

const methodBody = fc
  .constantFrom(['fiat', fiatCurrencies] as const, ['crypto', cryptoCurrencies] as const)
  .chain(([currencyType, ofType]) =>
    fc.record(
      {
        name: label,
        currency_type: fc.constant(currencyType),
        currencies: fc.uniqueArray(fc.constantFrom(...ofType), { minLength: 1 }),
        network_codes: fc.uniqueArray(networkCode, { minLength: 1, maxLength: 3 }),
        channel_ids: fc.uniqueArray(label, { maxLength: 3 }),
        method_id: fc.integer({ min: 1, max: 1000 }),
        status,
      },
      { requiredKeys: ['name', 'currency_type', 'currencies', 'network_codes'] },
    ),
  );

const networkBody = fc.record(
  {
    code: networkCode,
    name: label,
    fields: fc.uniqueArray(
      fc.record(
        {
          field_key: fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/),
          required: fc.boolean(),
          validation_rule: fc.constantFrom('', 'email', 'evm_address', 'length:1-5'),
        },
        { requiredKeys: ['field_key'] },
      ),
      { minLength: 1, maxLength: 4, selector: (field) => field.field_key },
    ),
    status,
  },
  { requiredKeys: ['code', 'fields'] },
);

const cents = fc.bigInt({ min: 0n, max: 10n ** 10n });
const usd = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;

const routeBody = fc
  .record(
    {
      account_id: label,
      method_id: fc.integer({ min: 1, max: 1000 }),
      channel_id: label,
      range: fc.tuple(cents, cents),
      fixed_fee: cents.map(usd),
      percent_fee: fc.constantFrom('0', '1.5', '100', '0.0001'),
      channel_account_id: label,
      required_beneficiary_fields: fc.uniqueArray(fc.constantFrom(...beneficiaryFieldKeys)),
      status,
    },
    { requiredKeys: ['method_id', 'range'] },
  )
  .map(({ range, ...route }) => {
    // bigint: no Math.min/Math.max
    const [lo, hi] = range[0] <= range[1] ? range : [range[1], range[0]];
    return { ...route, currency: 'USD', min_amount: usd(lo), max_amount: usd(hi) };
  });

const reason = fc.string({ maxLength: 256 }).filter((s) => s.trim() !== '');

/** Every payout configuration codec with generated valid bodies. */
const valid: ValidBodies = [
  [PayoutMethodRequest, methodBody],
  [PayoutNetworkRequest, networkBody],
  [PayoutRouteRequest, routeBody],
  [
    PayoutReviewRequest,
    fc.record({ action: fc.constantFrom(...reviewActions), reason }, { requiredKeys: ['action'] }),
  ],
  [
    SandboxExecutionRequest,
    fc.record(
      { outcome: fc.constantFrom(...sandboxExecutionOutcomes), reason },
      { requiredKeys: ['outcome'] },
    ),
  ],
];

describeValidBodies(valid);

describe('of two broken rules, the earlier one answers', () => {
  it('method: currencies of another type before bad network codes', () => {
    fc.assert(
      fc.property(methodBody, fc.string(), (body, code) => {
        const other = body.currency_type === 'fiat' ? cryptoCurrencies : fiatCurrencies;
        fc.pre(!/^[A-Z][A-Z0-9_]{1,31}$/.test(code));
        expect(
          messageOf(
            decodeWith(PayoutMethodRequest)({
              ...body,
              currencies: [...other],
              network_codes: [code],
            }),
          ),
        ).toBe('payout method not supported for currency type');
      }),
    );
  });

  it('route: max_amount below min_amount before a bad fixed fee or percent fee', () => {
    fc.assert(
      fc.property(routeBody, fc.integer(), (route, fee) => {
        fc.pre(route.min_amount !== route.max_amount);
        const swapped = { ...route, min_amount: route.max_amount, max_amount: route.min_amount };
        expect(
          messageOf(decodePayoutRouteCreate({ ...swapped, fixed_fee: fee, percent_fee: fee })),
        ).toBe('invalid max_amount');
      }),
    );
  });

  it('network: a missing code before empty fields, empty fields before a bad status', () => {
    fc.assert(
      fc.property(networkBody, (network) => {
        expect(
          messageOf(decodeWith(PayoutNetworkRequest)({ ...network, code: ' ', fields: [] })),
        ).toBe('code required');
        expect(
          messageOf(decodeWith(PayoutNetworkRequest)({ ...network, fields: [], status: 'on' })),
        ).toBe('schema required');
      }),
    );
  });

  it('review: a missing action before a too long reason', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 257, maxLength: 300 }), (long) => {
        fc.pre(Array.from(long).length > 256);
        expect(messageOf(decodeWith(PayoutReviewRequest)({ reason: long }))).toBe(
          'action required',
        );
      }),
    );
  });
});
