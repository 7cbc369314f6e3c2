import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import {
  type Broken,
  blankOrMissing,
  brokenBeneficiaryAccounts,
  brokenBeneficiaryFields,
  merchantLabel,
  nonString,
  notifyUrl,
  sandboxLookup,
  usdAmount,
  validBeneficiary,
  validBeneficiaryAccount,
  validBeneficiaryFields,
  validPayoutCreate,
  validPayoutCreateById,
  validPayoutCreateInline,
} from '../testing/payout.arbitraries.js';
import { decodeWith } from './codec-toolkit.js';
import {
  BeneficiaryAccountCreateRequest,
  BeneficiaryAccountPatchRequest,
  BeneficiaryCreateRequest,
  BeneficiaryPatchRequest,
  beneficiaryAccountStatuses,
  beneficiaryStatuses,
  decodePayoutCreate,
  decodePayoutUpdate,
  PayoutCreateRequest,
  PayoutUpdateRequest,
} from './payout.codecs.js';

type Body = Record<string, unknown>;

const decode = (input: unknown) => decodePayoutCreate(input, { lookupNetwork: sandboxLookup });
const messageOf = (input: unknown): string | false => {
  const result = decode(input);
  return E.isLeft(result) && result.left.message;
};

/** `body` with `key` set to `value`; `undefined` removes the key. */
const withValue = (body: Body, key: string, value: unknown): Body => {
  const { [key]: _, ...rest } = body;
  return value === undefined ? rest : { ...rest, [key]: value };
};

const broken = (
  bodies: fc.Arbitrary<Body>,
  key: string,
  values: fc.Arbitrary<unknown>,
  message: string,
): fc.Arbitrary<Broken> =>
  fc
    .tuple(bodies, values)
    .map(([body, value]) => ({ input: withValue(body, key, value), message }));

const tooLong = (min: number) => fc.string({ unit: 'binary', minLength: min, maxLength: min + 20 });
const badLabel = fc.oneof(fc.constant(''), fc.stringMatching(/^ {1,4}$/), tooLong(65), nonString);
const decimalMessage = 'amount must be a decimal string with at most 2 decimal places';

const badDecimal = fc.oneof(
  fc.integer({ min: 1 }),
  fc.double({ min: 0.01, max: 1e9, noNaN: true }),
  fc
    .tuple(usdAmount, fc.stringMatching(/^[0-9]{1,4}$/))
    .map(([a, more]) => `${a.split('.')[0]}.${'0'.repeat(3)}${more}`),
  usdAmount.map((a) => `${a}e2`),
  usdAmount.map((a) => ` ${a}`),
  usdAmount.map((a) => `0${a}`),
  usdAmount.map((a) => `+${a}`),
  usdAmount.map((a) => `${a.split('.')[0]}.`),
  fc.stringMatching(/^[a-z]{1,6}$/),
  fc.boolean(),
);

const notPositive = fc.oneof(
  fc.constantFrom('0', '0.0', '0.00', '-0'),
  usdAmount.map((a) => `-${a}`),
);

const badNotifyUrl = fc.oneof(
  notifyUrl.map((u) => u.replace(/^https:/, 'http:')),
  notifyUrl.map((u) => u.replace(/^https:/, 'ftp:')),
  notifyUrl.map((u) => u.replace(/^https:/, '')),
  notifyUrl.map((u) => u.replace(/^https:\/\//, '')),
  notifyUrl.map((u) => u.replace('https://', 'https://user:secret@')),
  fc.tuple(notifyUrl, fc.constantFrom(' ', '\n', '\t', '\u0000')).map(([u, ws]) => `${u}${ws}x`),
  notifyUrl.map((u) => u.replace('https://', 'https://-')),
  notifyUrl.map((u) => `${u.replace(/:\d+/, '')}`.replace(/^(https:\/\/[^/?#]+)/, '$1:70000')),
  notifyUrl.map((u) => `${u}/${'x'.repeat(2048)}`),
  nonString,
);

/** Each rule of the quick payout body, broken alone on a valid body, and its message. */
const brokenPayouts: Readonly<Record<string, fc.Arbitrary<Broken<unknown>>>> = {
  request_required: fc
    .oneof(
      fc.constantFrom(undefined, null),
      fc.string(),
      fc.integer(),
      fc.array(validPayoutCreate, { maxLength: 2 }),
    )
    .map((input) => ({ input, message: 'request required' })),
  currency_required: broken(validPayoutCreate, 'currency', blankOrMissing, 'currency required'),
  amount_required: broken(validPayoutCreate, 'amount', blankOrMissing, 'amount required'),
  reference_required: broken(validPayoutCreate, 'reference', blankOrMissing, 'reference required'),
  notify_url_required: broken(
    validPayoutCreate,
    'notify_url',
    blankOrMissing,
    'notify_url required',
  ),
  client_request_id: broken(validPayoutCreate, 'client_request_id', badLabel, 'Validation Failed'),
  currency_not_supported: broken(
    validPayoutCreate,
    'currency',
    fc.oneof(
      fc.constantFrom('USDT', 'USDC', 'usd', 'EUR', 'USD ', 'US'),
      fc.stringMatching(/^[A-Z]{3}$/).filter((c) => c !== 'USD'),
      nonString,
    ),
    'currency not supported',
  ),
  amount_decimal: broken(validPayoutCreate, 'amount', badDecimal, decimalMessage),
  amount_positive: broken(
    validPayoutCreate,
    'amount',
    notPositive,
    'amount must be greater than zero',
  ),
  method_id: broken(
    validPayoutCreate,
    'method_id',
    fc.oneof(
      fc.integer({ max: 0 }),
      fc.double({ noNaN: true }).filter((n) => !Number.isInteger(n)),
      fc.integer({ min: 1 }).map(String),
      fc.constant(Number.MAX_SAFE_INTEGER + 1),
      fc.boolean(),
    ),
    'Validation Failed',
  ),
  channel_id: broken(validPayoutCreate, 'channel_id', badLabel, 'Validation Failed'),
  reference_format: broken(
    validPayoutCreate,
    'reference',
    fc.oneof(tooLong(65), nonString),
    'Validation Failed',
  ),
  notify_url: broken(validPayoutCreate, 'notify_url', badNotifyUrl, 'invalid notify_url'),
  beneficiary_not_object: broken(
    validPayoutCreateInline,
    'beneficiary',
    fc.oneof(fc.string(), fc.integer(), fc.array(validBeneficiary, { maxLength: 1 })),
    'Validation Failed',
  ),
  beneficiary_account_not_object: broken(
    validPayoutCreateInline,
    'beneficiary_account',
    fc.oneof(fc.string(), fc.boolean()),
    'Validation Failed',
  ),
  beneficiary_account_id: broken(
    validPayoutCreate,
    'beneficiary_account_id',
    badLabel,
    'Validation Failed',
  ),
  fee_bearer: broken(
    validPayoutCreate,
    'fee_bearer',
    fc.oneof(
      fc.string().filter((s) => s !== 'merchant' && s !== 'user'),
      nonString,
    ),
    'fee_bearer must be merchant or user',
  ),
  submit: broken(
    validPayoutCreate,
    'submit',
    fc.oneof(fc.constantFrom('true', 'false', 0, 1), fc.string()),
    'Validation Failed',
  ),
  account_type: broken(validPayoutCreate, 'account_type', badLabel, 'Validation Failed'),
  channel_requires_method: fc
    .tuple(validPayoutCreateById, merchantLabel)
    .map(([body, channel_id]) => ({
      input: { ...withValue(body, 'method_id', undefined), channel_id },
      message: 'channel_id requires method_id',
    })),
  pair_together: fc
    .oneof(
      fc
        .tuple(
          validPayoutCreateInline,
          fc.constantFrom('beneficiary', 'beneficiary_account'),
          fc.constantFrom(undefined, null),
        )
        .map(([body, key, gone]) => withValue(body, key, gone)),
      fc
        .tuple(validPayoutCreateById, validBeneficiary)
        .map(([body, beneficiary]) => ({ ...body, beneficiary })),
      fc
        .tuple(validPayoutCreateById, validBeneficiaryAccount)
        .map(([body, beneficiary_account]) => ({ ...body, beneficiary_account })),
    )
    .map((input) => ({
      input,
      message: 'beneficiary and beneficiary_account must be provided together',
    })),
  account_id_required: broken(
    validPayoutCreateById,
    'beneficiary_account_id',
    fc.constantFrom(undefined, null),
    'beneficiary_account_id required',
  ),
  method_id_inline: validPayoutCreateInline.map((body) => ({
    input: withValue(withValue(body, 'method_id', undefined), 'channel_id', undefined),
    message: 'method_id required when creating beneficiary inline',
  })),
  inline_beneficiary: fc
    .tuple(validPayoutCreateInline, fc.oneof(...Object.values(brokenBeneficiaryFields)))
    .map(([body, { input, message }]) => ({
      input: { ...body, beneficiary: { name: 'Ann Lee', fields: input } },
      message,
    })),
  inline_account: fc
    .tuple(validPayoutCreateInline, fc.oneof(...Object.values(brokenBeneficiaryAccounts)))
    .map(([body, { input, message }]) => ({
      input: { ...body, beneficiary_account: input },
      message,
    })),
};

describe('quick payout properties', () => {
  it('every valid body decodes to itself, with fee_bearer merchant and submit true by default', () => {
    fc.assert(
      fc.property(validPayoutCreate, (body) => {
        expect(decode(body)).toEqual(E.right({ fee_bearer: 'merchant', submit: true, ...body }));
        expect(decodeWith(PayoutCreateRequest)(body)).toEqual(decode(body));
      }),
    );
  });

  for (const [rule, arbitrary] of Object.entries(brokenPayouts)) {
    it(`breaking only the ${rule} rule answers exactly its message`, () => {
      fc.assert(
        fc.property(arbitrary, ({ input, message }) => {
          expect(messageOf(input)).toBe(message);
        }),
      );
    });
  }

  it('an http notify_url is accepted only when insecure webhooks are allowed', () => {
    fc.assert(
      fc.property(validPayoutCreate, (body) => {
        const http = { ...body, notify_url: String(body.notify_url).replace(/^https:/, 'http:') };
        expect(messageOf(http)).toBe('invalid notify_url');
        const allowed = decodePayoutCreate(http, {
          lookupNetwork: sandboxLookup,
          allowInsecureNotifyUrl: true,
        });
        expect(E.isRight(allowed)).toBe(true);
      }),
    );
  });

  /**
   * Several rules broken at once: the answer is the broken rule that comes first in the stated
   * precedence (required fields, then formats in table order, then cross-field, then inline).
   * At most one rule per field is broken; `rank` is the rule's place in the precedence.
   */
  it('with several rules broken, the first in precedence answers', () => {
    const rule = (rank: number, values: fc.Arbitrary<unknown>, message: string) =>
      values.map((value) => ({ rank, value, message }));
    const fieldRules: Readonly<
      Record<string, fc.Arbitrary<{ rank: number; value: unknown; message: string }>>
    > = {
      currency: fc.oneof(
        rule(0, blankOrMissing, 'currency required'),
        rule(11, fc.constantFrom('EUR', 'USDT'), 'currency not supported'),
      ),
      amount: fc.oneof(
        rule(1, blankOrMissing, 'amount required'),
        rule(12, badDecimal, decimalMessage),
        rule(12, notPositive, 'amount must be greater than zero'),
      ),
      reference: fc.oneof(
        rule(2, blankOrMissing, 'reference required'),
        rule(15, tooLong(65), 'Validation Failed'),
      ),
      notify_url: fc.oneof(
        rule(3, blankOrMissing, 'notify_url required'),
        rule(16, badNotifyUrl, 'invalid notify_url'),
      ),
      client_request_id: rule(10, badLabel, 'Validation Failed'),
      method_id: rule(13, fc.constantFrom(0, -1, 1.5, '7'), 'Validation Failed'),
      channel_id: rule(14, badLabel, 'Validation Failed'),
      beneficiary_account_id: rule(19, badLabel, 'Validation Failed'),
      fee_bearer: rule(
        20,
        fc.constantFrom('both', 'MERCHANT', 1),
        'fee_bearer must be merchant or user',
      ),
      submit: rule(21, fc.constantFrom('true', 1), 'Validation Failed'),
      account_type: rule(22, badLabel, 'Validation Failed'),
      beneficiary_account: rule(
        31,
        fc.constant(undefined),
        'beneficiary and beneficiary_account must be provided together',
      ),
      beneficiary: fc
        .oneof(...Object.values(brokenBeneficiaryFields))
        .map(({ input, message }) => ({
          rank: 40,
          value: { name: 'Ann Lee', fields: input },
          message,
        })),
    };
    const breaks = fc.record(
      Object.fromEntries(
        Object.entries(fieldRules).map(([field, arb]) => [
          field,
          fc.option(arb, { nil: undefined }),
        ]),
      ),
    );
    fc.assert(
      fc.property(validPayoutCreateInline, breaks, (body, chosen) => {
        let input: Body = body;
        let first: { rank: number; message: string } | undefined;
        for (const [field, broken] of Object.entries(chosen)) {
          if (broken === undefined) continue;
          input = withValue(input, field, broken.value);
          if (first === undefined || broken.rank < first.rank) first = broken;
        }
        expect(messageOf(input)).toBe(first === undefined ? false : first.message);
      }),
    );
  });
});

/** `codec` decodes `body` and then its own decoded value to the same value, which `is` accepts. */
const decodesIdempotently = <A>(codec: t.Type<A, A, unknown>, body: unknown): void => {
  const once = decodeWith(codec)(body);
  if (E.isLeft(once)) throw new Error(`${codec.name}: ${once.left.message}`);
  expect(decodeWith(codec)(once.right)).toEqual(once);
  expect(codec.is(once.right)).toBe(true);
};

/** A rule broken by setting `key` to `value` (`undefined` removes it), and its message. */
interface KeyRule {
  readonly key: string;
  readonly value: unknown;
  readonly message: string;
}

/**
 * Two of `rules` (listed in precedence order, one per key) broken on one valid body: the answer
 * is the earlier rule's message.
 */
const earlierRuleAnswers = (
  decode: (body: unknown) => E.Either<{ readonly message: string }, unknown>,
  bodies: fc.Arbitrary<Body>,
  rules: readonly KeyRule[],
): void => {
  const pairs = fc
    .tuple(fc.nat(rules.length - 1), fc.nat(rules.length - 1))
    .filter(([i, j]) => i < j);
  fc.assert(
    fc.property(bodies, pairs, (body, [i, j]) => {
      const [first, second] = [rules[i], rules[j]];
      if (first === undefined || second === undefined) throw new Error('no such rule');
      const input = withValue(withValue(body, second.key, second.value), first.key, first.value);
      const result = decode(input);
      expect(E.isLeft(result) && result.left.message).toBe(first.message);
    }),
  );
};

const validPayoutPatch: fc.Arbitrary<Body> = fc
  .record(
    {
      currency: fc.constant('USD'),
      amount: usdAmount,
      method_id: fc.integer({ min: 1, max: 1_000_000 }),
      channel_id: merchantLabel,
      notify_url: notifyUrl,
      beneficiary_account_id: merchantLabel,
      fee_bearer: fc.constantFrom('merchant', 'user'),
    },
    { requiredKeys: [] },
  )
  .map((patch) =>
    patch.method_id === undefined ? withValue(patch, 'channel_id', undefined) : patch,
  )
  .filter((patch) => Object.keys(patch).length > 0);

describe('payout request properties: decoding a decoded value is identity', () => {
  it('quick payout create', () => {
    fc.assert(
      fc.property(validPayoutCreate, (body) => decodesIdempotently(PayoutCreateRequest, body)),
    );
  });

  it('payout PATCH, the inline pair included', () => {
    const withPair = fc
      .tuple(validPayoutPatch, validBeneficiary, validBeneficiaryAccount)
      .map(([patch, beneficiary, beneficiary_account]) => ({
        ...patch,
        beneficiary,
        beneficiary_account,
      }));
    fc.assert(
      fc.property(fc.oneof(validPayoutPatch, withPair), (body) => {
        decodesIdempotently(PayoutUpdateRequest, body);
        expect(decodePayoutUpdate(body, { lookupNetwork: sandboxLookup })).toEqual(
          decodeWith(PayoutUpdateRequest)(body),
        );
      }),
    );
  });

  it('standalone beneficiary and beneficiary account', () => {
    const beneficiary = fc.record(
      {
        method_id: fc.integer({ min: 1, max: 1_000_000 }),
        channel_id: merchantLabel,
        name: fc.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim() !== ''),
        fields: validBeneficiaryFields,
      },
      { requiredKeys: ['method_id', 'name', 'fields'] },
    );
    fc.assert(
      fc.property(beneficiary, (body) => decodesIdempotently(BeneficiaryCreateRequest, body)),
    );
    fc.assert(
      fc.property(validBeneficiaryAccount, merchantLabel, (account, beneficiary_id) =>
        decodesIdempotently(BeneficiaryAccountCreateRequest, { ...account, beneficiary_id }),
      ),
    );
  });

  it('status PATCHes', () => {
    fc.assert(
      fc.property(fc.constantFrom(...beneficiaryStatuses), (status) =>
        decodesIdempotently(BeneficiaryPatchRequest, { status }),
      ),
    );
    fc.assert(
      fc.property(fc.constantFrom(...beneficiaryAccountStatuses), (status) =>
        decodesIdempotently(BeneficiaryAccountPatchRequest, { status }),
      ),
    );
  });
});

describe('payout request properties: with two rules broken, the earlier one answers', () => {
  it('payout PATCH: formats in table order, then the inline pair', () => {
    earlierRuleAnswers(
      (body) => decodePayoutUpdate(body, { lookupNetwork: sandboxLookup }),
      validPayoutPatch,
      [
        { key: 'currency', value: ' ', message: 'currency required' },
        { key: 'amount', value: '0', message: 'amount must be greater than zero' },
        { key: 'method_id', value: 0, message: 'Validation Failed' },
        { key: 'notify_url', value: 'http://x.example', message: 'invalid notify_url' },
        { key: 'beneficiary_account_id', value: 7, message: 'Validation Failed' },
        { key: 'fee_bearer', value: 'both', message: 'fee_bearer must be merchant or user' },
        {
          key: 'beneficiary_account',
          value: { network_code: 'WALLETA', fields: { walleta_email: 'ann@example.com' } },
          message: 'beneficiary and beneficiary_account must be provided together',
        },
      ],
    );
  });

  it('standalone beneficiary: required fields, then formats', () => {
    const body = validBeneficiaryFields.map((fields) => ({
      method_id: 1,
      name: 'Ann Lee',
      fields,
    }));
    earlierRuleAnswers(decodeWith(BeneficiaryCreateRequest), body, [
      { key: 'method_id', value: undefined, message: 'method_id required' },
      { key: 'name', value: ' ', message: 'name required' },
      { key: 'fields', value: null, message: 'fields required' },
      { key: 'channel_id', value: 4, message: 'Validation Failed' },
    ]);
  });

  it('standalone beneficiary account: beneficiary_id, then the account in table order', () => {
    const body = fc
      .tuple(validBeneficiaryAccount, merchantLabel)
      .map(([account, beneficiary_id]) => ({ ...account, beneficiary_id }));
    earlierRuleAnswers((input) => decodeWith(BeneficiaryAccountCreateRequest)(input), body, [
      { key: 'beneficiary_id', value: '', message: 'beneficiary_id required' },
      { key: 'network_code', value: undefined, message: 'network_code required' },
      { key: 'display_name', value: 5, message: 'Validation Failed' },
      { key: 'fields', value: undefined, message: 'fields required' },
      { key: 'account_type', value: 'x'.repeat(65), message: 'Validation Failed' },
    ]);
  });
});
