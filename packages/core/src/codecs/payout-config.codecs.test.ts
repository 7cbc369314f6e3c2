import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { PayrailError } from '../errors/error-catalogue.js';
import {
  decodePayoutMethodCreate,
  decodePayoutMethodUpdate,
  decodePayoutNetworkCreate,
  decodePayoutNetworkUpdate,
  decodePayoutReview,
  decodePayoutRouteCreate,
  decodePayoutRouteUpdate,
  decodeSandboxExecution,
  type PayoutMethodDraft,
  type PayoutNetworkDraft,
  type PayoutRouteDraft,
} from './payout-config.codecs.js';

const errorOf = <A>(result: E.Either<PayrailError, A>): PayrailError => {
  if (E.isRight(result)) throw new Error(`expected an error, got ${JSON.stringify(result.right)}`);
  return result.left;
};
const messageOf = <A>(result: E.Either<PayrailError, A>): string => errorOf(result).message;
const checkedValue = <A>(result: E.Either<PayrailError, A>): A => {
  if (E.isLeft(result)) throw new Error(`expected a value, got ${result.left.message}`);
  return result.right;
};

const fiatMethod = {
  name: 'Wallet payouts',
  currency_type: 'fiat',
  currencies: ['USD'],
  network_codes: ['WALLETA', 'WALLETB'],
};

describe('payout method bodies', () => {
  it('decodes a create with defaults: no channels, active, no id', () => {
    expect(decodePayoutMethodCreate(fiatMethod)).toEqual(
      E.right({ ...fiatMethod, channel_ids: [], status: 'active' }),
    );
    expect(
      checkedValue(
        decodePayoutMethodCreate({ ...fiatMethod, method_id: 7, channel_ids: ['fast'] }),
      ),
    ).toMatchObject({ method_id: 7, channel_ids: ['fast'] });
  });

  it.each([
    [undefined, 'request required'],
    [[fiatMethod], 'request required'],
    [{ ...fiatMethod, name: ' ' }, 'name required'],
    [{ ...fiatMethod, name: 'x'.repeat(101) }, 'Validation Failed'],
    [{ ...fiatMethod, currency_type: undefined }, 'currency_type required'],
    [{ ...fiatMethod, currency_type: 'card' }, 'Validation Failed'],
    [{ ...fiatMethod, currencies: [] }, 'currencies required'],
    [{ ...fiatMethod, currencies: 'USD' }, 'Validation Failed'],
    [{ ...fiatMethod, currencies: ['EUR'] }, 'currency not supported'],
    [{ ...fiatMethod, currencies: ['USD', 'USD'] }, 'Validation Failed'],
    [{ ...fiatMethod, currencies: ['USDT'] }, 'payout method not supported for currency type'],
    [{ ...fiatMethod, network_codes: [] }, 'network_codes required'],
    [{ ...fiatMethod, network_codes: ['walleta'] }, 'Validation Failed'],
    [{ ...fiatMethod, channel_ids: [''] }, 'Validation Failed'],
    [{ ...fiatMethod, method_id: 0 }, 'Validation Failed'],
    [{ ...fiatMethod, status: 'gone' }, 'invalid status'],
  ])('create %j answers %s', (body, message) => {
    expect(messageOf(decodePayoutMethodCreate(body))).toBe(message);
  });

  const current: PayoutMethodDraft = {
    method_id: 1,
    name: 'Wallet payouts',
    currency_type: 'fiat',
    currencies: ['USD'],
    network_codes: ['WALLETA'],
    channel_ids: [],
    status: 'active',
  };

  it('an update merges into the stored method and keeps its id', () => {
    expect(decodePayoutMethodUpdate({ status: 'disabled', method_id: 9 }, current)).toEqual(
      E.right({ ...current, status: 'disabled' }),
    );
  });

  it('an update is checked as a whole: a crypto type with USD currencies is refused', () => {
    expect(messageOf(decodePayoutMethodUpdate({ currency_type: 'crypto' }, current))).toBe(
      'payout method not supported for currency type',
    );
    expect(messageOf(decodePayoutMethodUpdate({}, current))).toBe('no changes');
    expect(messageOf(decodePayoutMethodUpdate('x', current))).toBe('request required');
  });
});

const walleta = {
  code: 'WALLETA',
  fields: [{ field_key: 'walleta_email', required: true, validation_rule: 'email' }],
};

describe('payout network bodies', () => {
  it('decodes a create: the name defaults to the code, required to true, the rule to any', () => {
    expect(decodePayoutNetworkCreate(walleta)).toEqual(
      E.right({ ...walleta, name: 'WALLETA', status: 'active' }),
    );
    expect(
      checkedValue(decodePayoutNetworkCreate({ code: 'ACH', fields: [{ field_key: 'iban' }] }))
        .fields,
    ).toEqual([{ field_key: 'iban', required: true, validation_rule: '' }]);
  });

  it.each([
    [{ fields: walleta.fields }, 'code required'],
    [{ ...walleta, code: 'walleta' }, 'Validation Failed'],
    [{ ...walleta, name: 5 }, 'Validation Failed'],
    [{ code: 'WALLETA' }, 'fields required'],
    [{ ...walleta, fields: {} }, 'Validation Failed'],
    [{ ...walleta, fields: [] }, 'schema required'],
    [{ ...walleta, fields: ['walleta_email'] }, 'Validation Failed'],
    [{ ...walleta, fields: [{ required: true }] }, 'fields[0].field_key required'],
    [{ ...walleta, fields: [{ field_key: 'Email' }] }, 'Validation Failed'],
    [{ ...walleta, fields: [{ field_key: 'a' }, { field_key: 'a' }] }, 'Validation Failed'],
    [{ ...walleta, fields: [{ field_key: 'a', required: 'yes' }] }, 'Validation Failed'],
    [{ ...walleta, fields: [{ field_key: 'a', validation_rule: 3 }] }, 'Validation Failed'],
    [{ ...walleta, status: 'on' }, 'invalid status'],
  ])('create %j answers %s', (body, message) => {
    expect(messageOf(decodePayoutNetworkCreate(body))).toBe(message);
  });

  it('refuses a validation_rule the service does not understand, naming the field', () => {
    for (const rule of ['phone', 'regex:(', 'length:5-2', 'prefix:']) {
      expect(
        messageOf(
          decodePayoutNetworkCreate({
            code: 'X1',
            fields: [{ field_key: 'a' }, { field_key: 'b', validation_rule: rule }],
          }),
        ),
      ).toBe(
        "field fields[1].validation_rule invalid: expect '', email, evm_address, tron_address, prefix:<p>, regex:<pattern> or length:<min>-<max>",
      );
    }
  });

  it('an update keeps the code and re-checks the schema', () => {
    const current: PayoutNetworkDraft = {
      code: 'WALLETA',
      name: 'Wallet A',
      fields: walleta.fields,
      status: 'active',
    };
    expect(decodePayoutNetworkUpdate({ name: 'A', code: 'OTHER' }, current)).toEqual(
      E.right({ ...current, name: 'A' }),
    );
    expect(messageOf(decodePayoutNetworkUpdate({ fields: [] }, current))).toBe('schema required');
    expect(messageOf(decodePayoutNetworkUpdate({ code: 'X' }, current))).toBe('no changes');
  });
});

const usdRoute = {
  currency: 'USD',
  method_id: 1,
  min_amount: '1',
  max_amount: '100000',
  fixed_fee: '0.5',
  percent_fee: '1.0',
  channel_account_id: 'chacc_usd',
};

describe('payout route bodies', () => {
  it('decodes a create: amounts at the currency scale, nulls for the optional labels', () => {
    expect(decodePayoutRouteCreate(usdRoute)).toEqual(
      E.right({
        account_id: null,
        currency: 'USD',
        method_id: 1,
        channel_id: null,
        min_amount: '1.00',
        max_amount: '100000.00',
        fixed_fee: '0.50',
        percent_fee: '1.0',
        channel_account_id: 'chacc_usd',
        required_beneficiary_fields: [],
        status: 'active',
      }),
    );
  });

  it('fees default to zero and required fields are deduplicated', () => {
    const route = checkedValue(
      decodePayoutRouteCreate({
        currency: 'USDT',
        method_id: 2,
        min_amount: '1',
        max_amount: '5',
        required_beneficiary_fields: ['country', 'zip', 'country'],
      }),
    );
    expect(route).toMatchObject({
      fixed_fee: '0.000000',
      percent_fee: '0',
      channel_account_id: null,
      required_beneficiary_fields: ['country', 'zip'],
    });
  });

  it.each([
    [null, 'request required'],
    [{ ...usdRoute, currency: undefined }, 'currency required'],
    [{ ...usdRoute, currency: 'EUR' }, 'currency not supported'],
    [{ ...usdRoute, method_id: undefined }, 'method_id required'],
    [{ ...usdRoute, method_id: '1' }, 'Validation Failed'],
    [{ ...usdRoute, account_id: 3 }, 'Validation Failed'],
    [{ ...usdRoute, channel_id: '' }, 'Validation Failed'],
    [{ ...usdRoute, min_amount: undefined }, 'min_amount required'],
    [
      { ...usdRoute, min_amount: '1.001' },
      'min_amount must be a decimal string with at most 2 decimal places',
    ],
    [{ ...usdRoute, max_amount: undefined }, 'max_amount required'],
    [{ ...usdRoute, min_amount: '5', max_amount: '4.99' }, 'invalid max_amount'],
    [
      { ...usdRoute, fixed_fee: 1 },
      'fixed_fee must be a decimal string with at most 2 decimal places',
    ],
    [{ ...usdRoute, percent_fee: '100.01' }, 'Validation Failed'],
    [{ ...usdRoute, percent_fee: '1.00001' }, 'Validation Failed'],
    [{ ...usdRoute, percent_fee: 1 }, 'Validation Failed'],
    [{ ...usdRoute, required_beneficiary_fields: 'zip' }, 'Validation Failed'],
    [{ ...usdRoute, required_beneficiary_fields: ['zipcode'] }, 'unknown field fields.zipcode'],
    [{ ...usdRoute, status: 'paused' }, 'invalid status'],
  ])('create %j answers %s', (body, message) => {
    expect(messageOf(decodePayoutRouteCreate(body))).toBe(message);
  });

  it('an update re-checks the amounts at the merged currency', () => {
    const current: PayoutRouteDraft = checkedValue(decodePayoutRouteCreate(usdRoute));
    expect(checkedValue(decodePayoutRouteUpdate({ percent_fee: '2' }, current)).percent_fee).toBe(
      '2',
    );
    expect(checkedValue(decodePayoutRouteUpdate({ currency: 'USDT' }, current)).min_amount).toBe(
      '1.000000',
    );
    expect(messageOf(decodePayoutRouteUpdate({ max_amount: '0.50' }, current))).toBe(
      'invalid max_amount',
    );
    expect(messageOf(decodePayoutRouteUpdate({ unknown: 1 }, current))).toBe('no changes');
  });

  it('any min <= max pair at the scale decodes, and the range is kept', () => {
    const cents = fc.bigInt({ min: 0n, max: 10n ** 12n });
    fc.assert(
      fc.property(cents, cents, (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const asUsd = (c: bigint) => `${c / 100n}.${String(c % 100n).padStart(2, '0')}`;
        const route = checkedValue(
          decodePayoutRouteCreate({ ...usdRoute, min_amount: asUsd(lo), max_amount: asUsd(hi) }),
        );
        expect([route.min_amount, route.max_amount]).toEqual([asUsd(lo), asUsd(hi)]);
      }),
    );
  });
});

describe('operator actions', () => {
  it('review: approve, return or reject with an optional reason', () => {
    expect(decodePayoutReview({ action: 'approve' })).toEqual(E.right({ action: 'approve' }));
    expect(decodePayoutReview({ action: 'reject', reason: 'sanctions hit' })).toEqual(
      E.right({ action: 'reject', reason: 'sanctions hit' }),
    );
    expect(decodePayoutReview({ action: 'return', reason: '  ' })).toEqual(
      E.right({ action: 'return' }),
    );
    expect(messageOf(decodePayoutReview(undefined))).toBe('request required');
    expect(messageOf(decodePayoutReview({}))).toBe('action required');
    expect(messageOf(decodePayoutReview({ action: 'approved' }))).toBe('Validation Failed');
    expect(messageOf(decodePayoutReview({ action: 'reject', reason: 'x'.repeat(257) }))).toBe(
      'Validation Failed',
    );
  });

  it('sandbox execution: processing, completed or failed with an optional reason', () => {
    expect(decodeSandboxExecution({ outcome: 'completed' })).toEqual(
      E.right({ outcome: 'completed' }),
    );
    expect(decodeSandboxExecution({ outcome: 'failed', reason: 'account closed' })).toEqual(
      E.right({ outcome: 'failed', reason: 'account closed' }),
    );
    expect(messageOf(decodeSandboxExecution({ outcome: null }))).toBe('outcome required');
    expect(messageOf(decodeSandboxExecution({ outcome: 'done' }))).toBe('Validation Failed');
  });
});
