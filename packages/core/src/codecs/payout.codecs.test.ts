import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { toEvmChecksumAddress } from './addresses.js';
import { networkLookupOf, sandboxNetworkSchemas } from './beneficiary-account.codecs.js';
import { decodeWith } from './codec-toolkit.js';
import {
  BeneficiaryAccountCreateRequest,
  BeneficiaryAccountPatchRequest,
  BeneficiaryCreateRequest,
  BeneficiaryPatchRequest,
  decodeBeneficiaryAccountCreate,
  decodePayoutCreate,
  decodePayoutUpdate,
  isNotifyUrl,
  PayoutCreateRequest,
  PayoutUpdateRequest,
} from './payout.codecs.js';

const lookupNetwork = networkLookupOf(sandboxNetworkSchemas);
const messageOf = (result: E.Either<{ message: string }, unknown>): string | undefined =>
  E.isLeft(result) ? result.left.message : undefined;

const beneficiary = {
  name: 'Ann Lee',
  fields: { payee_id: 'ann001', country: 'US', zip: '94105' },
};
const beneficiary_account = {
  network_code: 'WALLETA',
  fields: { walleta_email: 'ann@example.com' },
};
const byId = {
  currency: 'USD',
  amount: '10.50',
  reference: 'ORDER-1',
  notify_url: 'https://merchant.example.com/payouts/callback',
  beneficiary_account_id: 'ba_123',
};
const inline = {
  currency: 'USD',
  amount: '10.50',
  method_id: 1,
  reference: 'ORDER-2',
  notify_url: 'https://merchant.example.com/payouts/callback',
  beneficiary,
  beneficiary_account,
};

const create = (body: unknown) => decodePayoutCreate(body, { lookupNetwork });
/** The answer for `base` with `patch` applied (`undefined` in the patch deletes the key). */
const createMessage = (base: Record<string, unknown>, patch: Record<string, unknown>) => {
  const body: Record<string, unknown> = { ...base, ...patch };
  for (const [key, value] of Object.entries(patch)) if (value === undefined) delete body[key];
  return messageOf(create(body));
};

describe('quick payout create: valid bodies', () => {
  it('by beneficiary_account_id, with defaults fee_bearer merchant and submit true', () => {
    expect(create(byId)).toEqual(E.right({ ...byId, fee_bearer: 'merchant', submit: true }));
  });

  it('inline beneficiary and account, with every optional field', () => {
    const body = {
      ...inline,
      client_request_id: 'req-1',
      channel_id: 'ch_1',
      fee_bearer: 'user',
      submit: false,
      account_type: 'personal',
    };
    expect(create(body)).toEqual(E.right(body));
  });

  it('ignores keys it does not define and reads null as absent', () => {
    expect(create({ ...byId, channel_id: null, foo: 'bar', fee_bearer: null })).toEqual(
      E.right({ ...byId, fee_bearer: 'merchant', submit: true }),
    );
  });

  it('an id with the inline pair is accepted without method_id (the engine checks they match)', () => {
    const body = { ...byId, beneficiary, beneficiary_account };
    expect(E.isRight(create(body))).toBe(true);
  });

  it('the io-ts codec checks everything but the inline account network', () => {
    const unknownNetwork = { ...inline, beneficiary_account: { network_code: 'NOPE', fields: {} } };
    expect(E.isRight(decodeWith(PayoutCreateRequest)(unknownNetwork))).toBe(true);
    expect(messageOf(create(unknownNetwork))).toBe('network not found');
    expect(PayoutCreateRequest.is({ ...byId, fee_bearer: 'merchant', submit: true })).toBe(true);
    expect(PayoutCreateRequest.is(byId)).toBe(false);
  });
});

describe('quick payout create: each rule and its message', () => {
  it('"request required" for an empty or non-object body', () => {
    for (const body of [undefined, null, '', 'x', 5, [], [byId]]) {
      expect(messageOf(create(body)), JSON.stringify(body)).toBe('request required');
    }
  });

  it('required fields: currency, amount, reference, notify_url (absent, null or blank)', () => {
    for (const missing of [undefined, null, '', '   ']) {
      expect(createMessage(byId, { currency: missing })).toBe('currency required');
      expect(createMessage(byId, { amount: missing })).toBe('amount required');
      expect(createMessage(byId, { reference: missing })).toBe('reference required');
      expect(createMessage(byId, { notify_url: missing })).toBe('notify_url required');
    }
  });

  it('"currency not supported" for anything but a fiat currency', () => {
    for (const currency of ['USDT', 'USDC', 'usd', 'EUR', 'USD ', 840]) {
      expect(createMessage(byId, { currency })).toBe('currency not supported');
    }
  });

  it('amount: a decimal string at the currency scale, never a JS number', () => {
    const message = 'amount must be a decimal string with at most 2 decimal places';
    for (const amount of [
      10,
      10.5,
      '10.123',
      '1e3',
      ' 10',
      '010',
      '10.',
      '.5',
      '+5',
      'ten',
      true,
    ]) {
      expect(createMessage(byId, { amount }), String(amount)).toBe(message);
    }
  });

  it('"amount must be greater than zero" for zero and negative amounts', () => {
    for (const amount of ['0', '0.00', '0.0', '-5', '-0.01', '-0']) {
      expect(createMessage(byId, { amount }), amount).toBe('amount must be greater than zero');
    }
    expect(createMessage(byId, { amount: '0.01' })).toBeUndefined();
  });

  it('"Validation Failed" for wrong types and lengths of fields without a message of their own', () => {
    const cases: Record<string, readonly unknown[]> = {
      client_request_id: ['', '  ', 'x'.repeat(65), 7],
      method_id: [0, -1, 1.5, '1', Number.MAX_SAFE_INTEGER + 1],
      channel_id: ['', 'x'.repeat(65), 3],
      reference: ['x'.repeat(65), 42, ['ORDER-1']],
      beneficiary: ['Ann', 5, [beneficiary]],
      beneficiary_account: ['WALLETA', [beneficiary_account]],
      beneficiary_account_id: ['', 'x'.repeat(65), 123],
      submit: ['true', 1, 'yes'],
      account_type: ['', 'x'.repeat(65), 1],
    };
    for (const [field, values] of Object.entries(cases)) {
      for (const value of values) {
        expect(
          createMessage({ ...byId, method_id: 1 }, { [field]: value }),
          `${field}=${String(value)}`,
        ).toBe('Validation Failed');
      }
    }
  });

  it('"invalid notify_url" unless an absolute https URL with a host', () => {
    for (const notify_url of [
      'http://merchant.example.com/cb',
      'ftp://merchant.example.com/cb',
      '//merchant.example.com/cb',
      '/payouts/callback',
      'merchant.example.com',
      'https://',
      'https:///cb',
      'https://user:pw@merchant.example.com/cb',
      'https://merchant.example.com:0/cb',
      'https://merchant.example.com:65536/cb',
      'https://merchant .example.com/cb',
      'https://merchant.example.com/c b',
      'https://-merchant.example.com/cb',
      'https://merchant..example.com/cb',
      'https://[::1/cb',
      `https://merchant.example.com/${'x'.repeat(2048)}`,
      42,
    ]) {
      expect(createMessage(byId, { notify_url }), String(notify_url)).toBe('invalid notify_url');
    }
    for (const notify_url of [
      'https://merchant.example.com',
      'HTTPS://Merchant.Example.com:8443/cb?x=1#frag',
      'https://127.0.0.1/cb',
      'https://[2001:db8::1]:443/cb',
      'https://localhost/cb',
    ]) {
      expect(createMessage(byId, { notify_url }), notify_url).toBeUndefined();
    }
  });

  it('notify_url: what a lenient URL parser forgives is still refused, any LDH host still accepted', () => {
    for (const notify_url of [
      'https://merchant.example.com:/cb',
      'https://@merchant.example.com/cb',
      'https:/merchant.example.com/cb',
      'https:merchant.example.com',
      'https://merchant.example.com\\cb',
      'https://ex%61mple.com/cb',
      'https://bücher.example/cb',
      'https://merchant.example.com./cb',
      'https://[v1.x]/cb',
    ]) {
      expect(createMessage(byId, { notify_url }), notify_url).toBe('invalid notify_url');
    }
    // A DNS name whose `xn--` label is not valid punycode is still a DNS name.
    for (const notify_url of ['https://xn--a.example.com/cb', 'https://[::1]:8443/cb']) {
      expect(createMessage(byId, { notify_url }), notify_url).toBeUndefined();
    }
  });

  it('http notify_url only when the sandbox allows insecure webhooks', () => {
    const body = { ...byId, notify_url: 'http://127.0.0.1:3000/cb' };
    expect(messageOf(create(body))).toBe('invalid notify_url');
    expect(
      E.isRight(decodePayoutCreate(body, { lookupNetwork, allowInsecureNotifyUrl: true })),
    ).toBe(true);
    expect(isNotifyUrl('ftp://x.example', { allowHttp: true })).toBe(false);
  });

  it('"fee_bearer must be merchant or user"', () => {
    for (const fee_bearer of ['MERCHANT', 'platform', '', 1]) {
      expect(createMessage(byId, { fee_bearer })).toBe('fee_bearer must be merchant or user');
    }
  });

  it('"channel_id requires method_id"', () => {
    expect(createMessage(byId, { channel_id: 'ch_1' })).toBe('channel_id requires method_id');
    expect(createMessage(byId, { channel_id: 'ch_1', method_id: 2 })).toBeUndefined();
  });

  it('"beneficiary and beneficiary_account must be provided together"', () => {
    const message = 'beneficiary and beneficiary_account must be provided together';
    expect(createMessage(inline, { beneficiary: undefined })).toBe(message);
    expect(createMessage(inline, { beneficiary_account: undefined })).toBe(message);
    expect(createMessage(byId, { beneficiary })).toBe(message);
  });

  it('"beneficiary_account_id required" when neither an id nor the inline pair is sent', () => {
    expect(createMessage(byId, { beneficiary_account_id: undefined })).toBe(
      'beneficiary_account_id required',
    );
    expect(createMessage(byId, { beneficiary_account_id: null })).toBe(
      'beneficiary_account_id required',
    );
  });

  it('"method_id required when creating beneficiary inline"', () => {
    expect(createMessage(inline, { method_id: undefined })).toBe(
      'method_id required when creating beneficiary inline',
    );
  });

  it('the inline objects answer their own messages', () => {
    expect(createMessage(inline, { beneficiary: { name: 'Ann' } })).toBe(
      'beneficiary fields required',
    );
    expect(
      createMessage(inline, { beneficiary: { ...beneficiary, fields: { payee_id: 'a' } } }),
    ).toBe('fields.payee_id invalid: expect ^[a-zA-Z0-9]{3,60}$');
    expect(createMessage(inline, { beneficiary_account: { fields: {} } })).toBe(
      'network_code required',
    );
    expect(
      createMessage(inline, {
        beneficiary_account: { network_code: 'WALLETB', fields: { walletb_account: 'ann' } },
      }),
    ).toBe('walletb_account must start with $');
    expect(
      createMessage(inline, {
        beneficiary_account: {
          network_code: 'EVM',
          fields: { address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' },
        },
      }),
    ).toBe('field address invalid: expect 0x + 40 hex with a valid EIP-55 checksum');
    expect(
      createMessage(inline, {
        beneficiary_account: {
          network_code: 'EVM',
          fields: { address: toEvmChecksumAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed') },
        },
      }),
    ).toBeUndefined();
  });
});

describe('quick payout create: precedence of rules', () => {
  it('1. body before everything', () => {
    expect(messageOf(create([{ currency: 'EUR' }]))).toBe('request required');
  });

  it('2. required fields before formats, in the table order', () => {
    expect(messageOf(create({}))).toBe('currency required');
    expect(messageOf(create({ currency: 'EUR', fee_bearer: 'x' }))).toBe('amount required');
    expect(messageOf(create({ currency: 'EUR', amount: '-1', notify_url: 'x' }))).toBe(
      'reference required',
    );
    expect(messageOf(create({ currency: 'EUR', amount: 'x', reference: 'r' }))).toBe(
      'notify_url required',
    );
  });

  it('3. formats in the table order', () => {
    const broken = {
      ...byId,
      client_request_id: '',
      currency: 'EUR',
      amount: '1.234',
      method_id: 0,
      channel_id: 9,
      reference: 'x'.repeat(65),
      notify_url: 'http://x.example',
      fee_bearer: 'both',
    };
    const order: readonly [string, string][] = [
      ['client_request_id', 'Validation Failed'],
      ['currency', 'currency not supported'],
      ['amount', 'amount must be a decimal string with at most 2 decimal places'],
      ['method_id', 'Validation Failed'],
      ['channel_id', 'Validation Failed'],
      ['reference', 'Validation Failed'],
      ['notify_url', 'invalid notify_url'],
      ['fee_bearer', 'fee_bearer must be merchant or user'],
    ];
    const fixed: Record<string, unknown> = {
      client_request_id: 'req-1',
      currency: 'USD',
      amount: '1.23',
      method_id: 1,
      channel_id: 'ch_1',
      reference: 'ORDER-3',
      notify_url: 'https://merchant.example.com/cb',
      fee_bearer: 'user',
    };
    const body: Record<string, unknown> = { ...broken };
    // Each answer is the first broken field; repairing it reveals the next one.
    for (const [field, message] of order) {
      expect(messageOf(create(body)), field).toBe(message);
      body[field] = fixed[field];
    }
    expect(messageOf(create(body))).toBeUndefined();
  });

  it('4. formats before cross-field rules', () => {
    expect(createMessage(byId, { channel_id: 'ch', fee_bearer: 'x' })).toBe(
      'fee_bearer must be merchant or user',
    );
    expect(createMessage(byId, { beneficiary_account_id: undefined, submit: 'yes' })).toBe(
      'Validation Failed',
    );
  });

  it('4. cross-field rules in order: channel, pair, id or pair, method_id inline', () => {
    expect(
      createMessage(inline, { method_id: undefined, channel_id: 'c', beneficiary: undefined }),
    ).toBe('channel_id requires method_id');
    expect(createMessage(inline, { method_id: undefined, beneficiary: undefined })).toBe(
      'beneficiary and beneficiary_account must be provided together',
    );
  });

  it('5. inline objects last, the beneficiary before its account', () => {
    expect(createMessage(inline, { method_id: undefined, beneficiary: { name: 'Ann' } })).toBe(
      'method_id required when creating beneficiary inline',
    );
    expect(
      createMessage(inline, { beneficiary: { name: 'Ann' }, beneficiary_account: { fields: {} } }),
    ).toBe('beneficiary fields required');
    expect(
      createMessage(inline, {
        beneficiary_account: { network_code: 'NOPE', fields: {} },
        beneficiary: {},
      }),
    ).toBe('beneficiary.name required');
  });
});

describe('payout PATCH', () => {
  const update = (body: unknown) => decodePayoutUpdate(body, { lookupNetwork });

  it('"request required" for a non-object body, "no changes" when nothing editable is sent', () => {
    expect(messageOf(update(undefined))).toBe('request required');
    for (const body of [{}, { reference: 'R-2', submit: true }, { amount: null }]) {
      expect(messageOf(update(body)), JSON.stringify(body)).toBe('no changes');
    }
  });

  it('decodes only what is sent', () => {
    expect(update({ amount: '12.00', foo: 1 })).toEqual(E.right({ amount: '12.00' }));
    expect(update({ beneficiary, beneficiary_account, fee_bearer: 'user' })).toEqual(
      E.right({ beneficiary, beneficiary_account, fee_bearer: 'user' }),
    );
  });

  it('each sent field follows the create rules', () => {
    expect(messageOf(update({ currency: '' }))).toBe('currency required');
    expect(messageOf(update({ currency: 'USDT' }))).toBe('currency not supported');
    expect(messageOf(update({ amount: '' }))).toBe('amount required');
    expect(messageOf(update({ amount: 5 }))).toBe(
      'amount must be a decimal string with at most 2 decimal places',
    );
    expect(messageOf(update({ amount: '1.001', currency: 'USD' }))).toBe(
      'amount must be a decimal string with at most 2 decimal places',
    );
    expect(messageOf(update({ amount: '0' }))).toBe('amount must be greater than zero');
    expect(messageOf(update({ method_id: '1' }))).toBe('Validation Failed');
    expect(messageOf(update({ notify_url: '' }))).toBe('notify_url required');
    expect(messageOf(update({ notify_url: 'http://x.example' }))).toBe('invalid notify_url');
    expect(messageOf(update({ beneficiary_account_id: 5 }))).toBe('Validation Failed');
    expect(messageOf(update({ fee_bearer: 'nobody' }))).toBe('fee_bearer must be merchant or user');
    expect(messageOf(update({ beneficiary: 'x', beneficiary_account }))).toBe('Validation Failed');
  });

  it('"method_id required when channel_id provided"', () => {
    expect(messageOf(update({ channel_id: 'ch_1' }))).toBe(
      'method_id required when channel_id provided',
    );
    expect(update({ channel_id: 'ch_1', method_id: 3 })).toEqual(
      E.right({ channel_id: 'ch_1', method_id: 3 }),
    );
  });

  it('the inline pair goes together and is validated', () => {
    expect(messageOf(update({ beneficiary }))).toBe(
      'beneficiary and beneficiary_account must be provided together',
    );
    expect(
      messageOf(
        update({ beneficiary, beneficiary_account: { network_code: 'WALLETA', fields: {} } }),
      ),
    ).toBe('field walleta_email required');
  });

  it('the io-ts codec leaves the network to decodePayoutUpdate', () => {
    const body = { beneficiary, beneficiary_account: { network_code: 'NOPE', fields: {} } };
    expect(E.isRight(decodeWith(PayoutUpdateRequest)(body))).toBe(true);
    expect(messageOf(update(body))).toBe('network not found');
  });
});

describe('standalone beneficiaries', () => {
  const decode = decodeWith(BeneficiaryCreateRequest);
  const valid = { method_id: 1, name: 'Ann Lee', fields: { payee_id: 'ann001' } };

  it('decodes method_id, channel_id, name and fields', () => {
    expect(decode({ ...valid, channel_id: 'ch', other: 1 })).toEqual(
      E.right({ ...valid, channel_id: 'ch' }),
    );
  });

  it('required, in order: method_id, name, fields; then formats', () => {
    expect(messageOf(decode('x'))).toBe('request required');
    expect(messageOf(decode({}))).toBe('method_id required');
    expect(messageOf(decode({ method_id: 0 }))).toBe('name required');
    expect(messageOf(decode({ method_id: 0, name: 'Ann' }))).toBe('fields required');
    expect(messageOf(decode({ ...valid, method_id: 0 }))).toBe('Validation Failed');
    expect(messageOf(decode({ ...valid, channel_id: 4 }))).toBe('Validation Failed');
    expect(messageOf(decode({ ...valid, name: 'x'.repeat(201) }))).toBe('Validation Failed');
    expect(messageOf(decode({ ...valid, fields: {} }))).toBe('fields missing required: payee_id');
    expect(messageOf(decode({ ...valid, fields: { payee_id: 'ann001', language: 'eng' } }))).toBe(
      'fields.language invalid: expect 2 letters',
    );
  });

  it('PATCH status: active or disabled; no status -> "no changes"; else "invalid status"', () => {
    const patch = decodeWith(BeneficiaryPatchRequest);
    expect(patch({ status: 'disabled' })).toEqual(E.right({ status: 'disabled' }));
    expect(patch({ status: 'active' })).toEqual(E.right({ status: 'active' }));
    expect(messageOf(patch({}))).toBe('no changes');
    expect(messageOf(patch(null))).toBe('request required');
    for (const status of ['suspended', 'ACTIVE', '', 1]) {
      expect(messageOf(patch({ status }))).toBe('invalid status');
    }
  });
});

describe('standalone beneficiary accounts', () => {
  const decode = (body: unknown) => decodeBeneficiaryAccountCreate(body, { lookupNetwork });
  const valid = { beneficiary_id: 'b_1', ...beneficiary_account };

  it('decodes an account for an existing beneficiary', () => {
    expect(decode({ ...valid, display_name: 'Main' })).toEqual(
      E.right({ ...valid, display_name: 'Main' }),
    );
  });

  it('request required, beneficiary_id required, then the account rules', () => {
    expect(messageOf(decode([]))).toBe('request required');
    expect(messageOf(decode({ ...valid, beneficiary_id: undefined }))).toBe(
      'beneficiary_id required',
    );
    expect(messageOf(decode({ ...valid, beneficiary_id: ' ' }))).toBe('beneficiary_id required');
    expect(messageOf(decode({ ...valid, beneficiary_id: 9 }))).toBe('Validation Failed');
    expect(messageOf(decode({ beneficiary_id: 'b_1', fields: {} }))).toBe('network_code required');
    expect(messageOf(decode({ ...valid, network_code: 'X' }))).toBe('network not found');
    expect(messageOf(decode({ ...valid, fields: { walleta_email: 'x', extra: 'y' } }))).toBe(
      'unknown field extra',
    );
  });

  it('the io-ts codec checks the shape only', () => {
    const body = { ...valid, network_code: 'X' };
    expect(decodeWith(BeneficiaryAccountCreateRequest)(body)).toEqual(E.right(body));
  });

  it('PATCH status: active, disabled or suspended; else "invalid status"', () => {
    const patch = decodeWith(BeneficiaryAccountPatchRequest);
    for (const status of ['active', 'disabled', 'suspended']) {
      expect(patch({ status })).toEqual(E.right({ status }));
    }
    expect(messageOf(patch({ status: 'deleted' }))).toBe('invalid status');
    expect(messageOf(patch({ status: null }))).toBe('no changes');
  });
});
