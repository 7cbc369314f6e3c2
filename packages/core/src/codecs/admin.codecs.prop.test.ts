import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { PayrailError } from '../errors/error-catalogue.js';
import { currencies } from '../money/money.js';
import { payTokenIds } from '../money/pay-tokens.js';
import {
  AccountCreditRequest,
  AccountUpdateRequest,
  ApiKeyIssueRequest,
  ApiKeyUpdateRequest,
  accountStatuses,
  apiKeyPatchStatuses,
  apiKeyPermissions,
  MerchantCreateRequest,
  SandboxClockAdvanceRequest,
} from './admin.codecs.js';
import { describeValidBodies, type ValidBodies } from './codec-laws.test-support.js';
import { decodeWith } from './codec-toolkit.js';

const messageOf = (result: E.Either<PayrailError, unknown>): string =>
  E.isLeft(result) ? result.left.message : `decoded: ${JSON.stringify(result.right)}`;

/** `null` members, which every body reads as absent, mixed into a generated body. */
const withNulls = <A extends object>(arb: fc.Arbitrary<A>, keys: readonly string[]) =>
  fc.tuple(arb, fc.subarray([...keys])).map(([body, nulls]) => ({
    ...Object.fromEntries(nulls.map((key) => [key, null])),
    ...body,
  }));

const merchantBody = withNulls(
  fc.record(
    {
      name: fc.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim() !== ''),
      currencies: fc.array(fc.constantFrom(...currencies), { minLength: 1, maxLength: 6 }),
    },
    { requiredKeys: ['name'] },
  ),
  ['currencies'],
);

const accountBody = fc.record(
  {
    status: fc.constantFrom(...accountStatuses),
    verification_enabled: fc.boolean(),
    auto_approve: fc.boolean(),
    products: fc.record({ payout: fc.boolean(), acquiring: fc.boolean() }, { requiredKeys: [] }),
    enabled_pay_tokens: fc.array(fc.constantFrom(...payTokenIds), { maxLength: 6 }),
    default_pay_tokens: fc.array(fc.constantFrom(...payTokenIds), { maxLength: 3 }),
  },
  { requiredKeys: [] },
);

const apiKeyBody = fc.record(
  {
    permissions: fc.array(fc.constantFrom(...apiKeyPermissions), { minLength: 1, maxLength: 6 }),
    env: fc.constantFrom('sandbox', 'live'),
    ip_whitelist: fc.array(fc.ipV4(), { maxLength: 5 }),
    expires_in_seconds: fc.integer({ min: 60, max: 31_536_000 }),
    name: fc.string({ maxLength: 100 }),
  },
  { requiredKeys: ['permissions'] },
);

const creditBody = fc.record({
  currency: fc.constant('USD'),
  amount: fc
    .bigInt({ min: 1n, max: 10n ** 12n })
    .map((c) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`),
});

/** Every admin codec with generated valid bodies. */
const valid: ValidBodies = [
  [MerchantCreateRequest, merchantBody],
  [AccountUpdateRequest, accountBody],
  [ApiKeyIssueRequest, apiKeyBody],
  [ApiKeyUpdateRequest, fc.record({ status: fc.constantFrom(...apiKeyPatchStatuses) })],
  [AccountCreditRequest, creditBody],
  [SandboxClockAdvanceRequest, fc.record({ seconds: fc.nat(2_592_000) })],
];

describeValidBodies(valid);

describe('of two broken rules, the earlier one answers', () => {
  const notBoolean = fc.oneof(fc.string(), fc.integer());

  it('merchant: a missing name before bad currencies, a bad name before unknown currencies', () => {
    fc.assert(
      fc.property(fc.constantFrom(undefined, '', '  '), (name) => {
        expect(messageOf(decodeWith(MerchantCreateRequest)({ name, currencies: 'x' }))).toBe(
          'name required',
        );
      }),
    );
    fc.assert(
      fc.property(fc.string({ minLength: 201, maxLength: 300 }), (name) => {
        expect(messageOf(decodeWith(MerchantCreateRequest)({ name, currencies: ['EUR'] }))).toBe(
          'Validation Failed',
        );
      }),
    );
  });

  it('account update: a bad status before a bad flag or token list', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !(accountStatuses as readonly string[]).includes(s)),
        notBoolean,
        (status, flag) => {
          expect(
            messageOf(
              decodeWith(AccountUpdateRequest)({
                auto_approve: flag,
                enabled_pay_tokens: ['USDT'],
                status,
              }),
            ),
          ).toBe('invalid status');
        },
      ),
    );
  });

  it('api key issue: missing permissions before any other broken rule', () => {
    fc.assert(
      fc.property(fc.constantFrom(undefined, null, []), notBoolean, (permissions, env) => {
        expect(
          messageOf(
            decodeWith(ApiKeyIssueRequest)({ env, expires_in_seconds: 1, name: 3, permissions }),
          ),
        ).toBe('permissions required');
      }),
    );
  });

  it('credit: a missing currency before a missing amount, an unknown one before a bad amount', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => s.trim() !== '' && s !== 'USD'),
        (amount) => {
          expect(messageOf(decodeWith(AccountCreditRequest)({ amount: undefined }))).toBe(
            'currency required',
          );
          expect(
            messageOf(decodeWith(AccountCreditRequest)({ currency: 'EUR', amount: `-${amount}` })),
          ).toBe('currency not supported');
        },
      ),
    );
  });

  it('clock: a missing seconds before anything, a bad one is `Validation Failed`', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.string()), (seconds) => {
        fc.pre(!Number.isSafeInteger(seconds));
        expect(messageOf(decodeWith(SandboxClockAdvanceRequest)({ seconds }))).toBe(
          'Validation Failed',
        );
      }),
    );
    expect(messageOf(decodeWith(SandboxClockAdvanceRequest)({ seconds: null }))).toBe(
      'seconds required',
    );
  });

  it('clock: a whole number beyond 0..2592000 is `seconds must be between 0 and 2592000` (issue 12, finding 6)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: Number.MIN_SAFE_INTEGER, max: -1 }),
          fc.integer({ min: 2_592_001, max: Number.MAX_SAFE_INTEGER }),
        ),
        (seconds) => {
          expect(messageOf(decodeWith(SandboxClockAdvanceRequest)({ seconds }))).toBe(
            'seconds must be between 0 and 2592000',
          );
        },
      ),
    );
  });
});
