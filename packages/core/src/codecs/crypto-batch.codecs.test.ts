import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { PayrailError } from '../errors/error-catalogue.js';
import {
  type BatchItemRoute,
  batchRouteOf,
  type CryptoBatchConfiguration,
  type CryptoBatchItem,
  cryptoBatchConfigurationRefusal,
  cryptoMethodRefusal,
  decodeCryptoBatchCreateRequest,
  decodeCryptoBatchItemsRequest,
  duplicateInBatchRefusal,
  duplicateInMerchantPayoutsRefusal,
  inferNetworkCode,
} from './crypto-batch.codecs.js';

// EIP-55's own example, and the USDT contract on TRON: both valid as published.
const evm = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const evm2 = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const tron = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

const item = (order_no: string, address: string, amount = '10'): Record<string, unknown> => ({
  order_no,
  amount,
  beneficiary_account: { address },
});

const body = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  currency: 'USDT',
  method_id: 7,
  items: [item('A-1', evm), item('A-2', tron, '0.5')],
  ...overrides,
});

const withItem = (patch: Record<string, unknown>): Record<string, unknown> =>
  body({ items: [item('A-1', evm), { ...item('A-2', tron), ...patch }] });

const withAccount = (account: unknown): Record<string, unknown> =>
  body({ items: [{ order_no: 'A-1', amount: '1', beneficiary_account: account }] });

const messageOf = (u: unknown): string => {
  const decoded = decodeCryptoBatchCreateRequest(u);
  return E.isLeft(decoded) ? decoded.left.message : 'decoded';
};

const errorOf = (u: unknown): PayrailError => {
  const decoded = decodeCryptoBatchCreateRequest(u);
  if (E.isRight(decoded)) throw new Error('expected a refusal');
  return decoded.left;
};

describe('crypto batch create request: accepted', () => {
  it('decodes a valid body, amounts at the currency scale, unknown keys dropped', () => {
    const decoded = decodeCryptoBatchCreateRequest(
      body({
        submit: false,
        extra: 1,
        items: [
          {
            order_no: 'A-1',
            amount: '10',
            beneficiary_account: { address: evm, network_code: 'EVM', display_name: 'Ann', x: 1 },
            note: 'dropped',
          },
          item('A-2', tron, '0.5'),
        ],
      }),
    );
    expect(decoded).toEqual(
      E.right({
        currency: 'USDT',
        method_id: 7,
        submit: false,
        items: [
          {
            order_no: 'A-1',
            amount: '10.000000',
            beneficiary_account: { address: evm, network_code: 'EVM', display_name: 'Ann' },
          },
          {
            order_no: 'A-2',
            amount: '0.500000',
            beneficiary_account: { address: tron, network_code: 'TRON' },
          },
        ],
      }),
    );
  });

  it('leaves submit out when it is not sent (the machine reads that as true)', () => {
    const decoded = decodeCryptoBatchCreateRequest(body());
    expect(E.isRight(decoded) && !('submit' in decoded.right)).toBe(true);
  });

  it('accepts USDC, all-lower and all-upper EVM hex, and exactly 500 items', () => {
    const lower = `0x${evm.slice(2).toLowerCase()}`;
    const upper = `0x${evm.slice(2).toUpperCase()}`;
    expect(messageOf(body({ currency: 'USDC', items: [item('a', lower)] }))).toBe('decoded');
    expect(messageOf(body({ items: [item('a', upper)] }))).toBe('decoded');
    const many = Array.from({ length: 500 }, (_, i) =>
      item(`o${i}`, `0x${i.toString(16).padStart(40, '0')}`),
    );
    expect(messageOf(body({ items: many }))).toBe('decoded');
  });

  it('infers network_code from the address when it is not sent (T is TRON, else EVM)', () => {
    expect(inferNetworkCode(tron)).toBe('TRON');
    expect(inferNetworkCode(evm)).toBe('EVM');
    expect(inferNetworkCode('nonsense')).toBe('EVM');
    const decoded = decodeCryptoBatchCreateRequest(body());
    expect(
      E.isRight(decoded) && decoded.right.items.map((i) => i.beneficiary_account.network_code),
    ).toEqual(['EVM', 'TRON']);
  });
});

describe('crypto batch create request: each rule and its message', () => {
  it.each([
    ['no body', undefined],
    ['null', null],
    ['an array', [body()]],
    ['a string', 'items'],
  ])('request required: %s', (_, u) => {
    expect(messageOf(u)).toBe('request required');
  });

  it.each([undefined, null, ''])('currency required: %s', (currency) => {
    expect(messageOf(body({ currency }))).toBe('currency required');
  });

  it.each(['USD', 'usdt', 'BTC', 'TRON_USDT', 5])('only crypto currency supported: %s', (c) => {
    expect(messageOf(body({ currency: c }))).toBe('only crypto currency supported');
  });

  it.each([undefined, null])('method_id required: %s', (method_id) => {
    expect(messageOf(body({ method_id }))).toBe('method_id required');
  });

  it.each(['7', 0, -1, 1.5])('a method_id that is not a positive integer: %s', (method_id) => {
    expect(messageOf(body({ method_id }))).toBe('Validation Failed');
  });

  it('a submit that is not a boolean fails validation', () => {
    expect(messageOf(body({ submit: 'false' }))).toBe('Validation Failed');
  });

  it('notify_url: kept when https; absent, null or blank counts as not sent', () => {
    const url = 'https://merchant.example.com/payouts/callback';
    const decoded = decodeCryptoBatchCreateRequest(body({ notify_url: url }));
    expect(E.isRight(decoded) && decoded.right.notify_url).toBe(url);
    for (const notify_url of [undefined, null, '', '   ']) {
      const without = decodeCryptoBatchCreateRequest(body({ notify_url }));
      expect(E.isRight(without) && !('notify_url' in without.right), String(notify_url)).toBe(true);
    }
  });

  it('"invalid notify_url" as for a quick payout; http only when the sandbox allows it', () => {
    for (const notify_url of [5, true, 'merchant.example.com/cb', 'https://', 'ftp://x.example']) {
      expect(messageOf(body({ notify_url })), String(notify_url)).toBe('invalid notify_url');
    }
    // A URL the rule takes, but not text (an unpaired surrogate): refused like the payout's.
    expect(errorOf(body({ notify_url: 'https://x.example/\ud800' }))).toMatchObject({
      message: 'invalid notify_url',
      httpStatus: 400,
      code: 51,
    });
    const http = body({ notify_url: 'http://127.0.0.1:3000/cb' });
    expect(messageOf(http)).toBe('invalid notify_url');
    expect(E.isRight(decodeCryptoBatchCreateRequest(http, { allowInsecureNotifyUrl: true }))).toBe(
      true,
    );
  });

  it.each([undefined, null])('no items: an empty draft batch (items come later): %s', (items) => {
    expect(decodeCryptoBatchCreateRequest(body({ items }))).toEqual(
      E.right({ currency: 'USDT', method_id: 7, items: [] }),
    );
  });

  it('items that is not an array fails validation', () => {
    expect(messageOf(body({ items: item('A-1', evm) }))).toBe('Validation Failed');
  });

  it('items length must be between 1 and 500: none, or 501', () => {
    expect(messageOf(body({ items: [] }))).toBe('items length must be between 1 and 500');
    const many = Array.from({ length: 501 }, (_, i) => item(`o${i}`, evm));
    expect(messageOf(body({ items: many }))).toBe('items length must be between 1 and 500');
  });

  it('an item that is not an object fails validation', () => {
    expect(messageOf(body({ items: ['A-1'] }))).toBe('Validation Failed');
  });

  it.each([undefined, null, '', '   '])('order_no required: %s', (order_no) => {
    expect(messageOf(withItem({ order_no }))).toBe('order_no required');
  });

  it('an order_no that is not a string fails validation', () => {
    expect(messageOf(withItem({ order_no: 12 }))).toBe('Validation Failed');
  });

  it.each([undefined, null])('amount required: %s', (amount) => {
    expect(messageOf(withItem({ amount }))).toBe('amount required');
  });

  it.each(['0', '0.000000', '0.0'])('amount must be greater than zero: %s', (amount) => {
    expect(messageOf(withItem({ amount }))).toBe('amount must be greater than zero');
  });

  it.each(['1.0000001', '-1', '1e3', ' 1', '', 10])(
    'an amount beyond the currency scale or not a decimal string: %s',
    (amount) => {
      expect(messageOf(withItem({ amount }))).toBe(
        'amount must be a decimal string with at most 6 decimal places',
      );
    },
  );

  it.each([
    ['no beneficiary_account', undefined],
    ['beneficiary_account null', null],
    ['no address key', {}],
    ['address null', { address: null }],
    ['only a network_code', { network_code: 'TRON' }],
  ])('beneficiary_account.address required: %s', (_, account) => {
    expect(messageOf(withAccount(account))).toBe('beneficiary_account.address required');
  });

  it.each(['', ' ', '\t\n'])('receiving address required: address %j', (address) => {
    expect(messageOf(withAccount({ address }))).toBe('receiving address required');
  });

  it('a beneficiary_account or address of the wrong type fails validation', () => {
    expect(messageOf(withAccount('0xabc'))).toBe('Validation Failed');
    expect(messageOf(withAccount({ address: 42 }))).toBe('Validation Failed');
    expect(messageOf(withAccount({ address: evm, display_name: 3 }))).toBe('Validation Failed');
    expect(messageOf(withAccount({ address: evm, network_code: 1 }))).toBe('Validation Failed');
  });

  it.each(['SOL', 'ETH', 'evm', '', 'WALLETA'])(
    'network not found: network_code %j',
    (network_code) => {
      expect(messageOf(withAccount({ address: evm, network_code }))).toBe('network not found');
    },
  );

  it.each([
    ['39 hex digits', evm.slice(0, -1)],
    ['a broken checksum', `${evm.slice(0, -1)}D`],
    ['no 0x', evm.slice(2)],
    ['a non-hex digit', `0x${'g'.repeat(40)}`],
    ['surrounding spaces', ` ${evm} `],
    ['an address of no known shape', 'hello'],
  ])('invalid EVM receiving address: %s', (_, address) => {
    expect(messageOf(withAccount({ address }))).toBe('invalid EVM receiving address');
  });

  it('invalid EVM receiving address: a TRON address on the EVM network', () => {
    expect(messageOf(withAccount({ address: tron, network_code: 'EVM' }))).toBe(
      'invalid EVM receiving address',
    );
  });

  it.each([
    ['a broken checksum', `${tron.slice(0, -1)}u`],
    ['one character short', tron.slice(0, -1)],
    ['a character outside base58', `${tron.slice(0, -1)}0`],
    ['a T followed by hex', `T${'a'.repeat(33)}`],
  ])('invalid TRON receiving address: %s', (_, address) => {
    expect(messageOf(withAccount({ address }))).toBe('invalid TRON receiving address');
  });

  it('invalid TRON receiving address: an EVM address on the TRON network', () => {
    expect(messageOf(withAccount({ address: evm, network_code: 'TRON' }))).toBe(
      'invalid TRON receiving address',
    );
  });

  it('duplicate order_no in request: equal strings, case and spaces count', () => {
    expect(messageOf(body({ items: [item('A', evm), item('A', tron)] }))).toBe(
      'duplicate order_no in request',
    );
    expect(messageOf(body({ items: [item('A', evm), item('a', tron)] }))).toBe('decoded');
    expect(messageOf(body({ items: [item('A', evm), item('A ', tron)] }))).toBe('decoded');
  });

  it('duplicate receiving address in batch request: EVM case-insensitive, TRON exact', () => {
    const lower = `0x${evm.slice(2).toLowerCase()}`;
    expect(messageOf(body({ items: [item('A', evm), item('B', lower)] }))).toBe(
      'duplicate receiving address in batch request',
    );
    expect(messageOf(body({ items: [item('A', tron), item('B', evm), item('C', tron)] }))).toBe(
      'duplicate receiving address in batch request',
    );
    expect(messageOf(body({ items: [item('A', evm), item('B', evm2)] }))).toBe('decoded');
  });

  it('maps shape rules to 400/51 and duplicates to 400/53', () => {
    expect(errorOf(body({ items: [] }))).toMatchObject({ httpStatus: 400, code: 51 });
    expect(errorOf(withAccount({ address: 'x' }))).toMatchObject({ httpStatus: 400, code: 51 });
    expect(errorOf(body({ currency: 'USD' }))).toMatchObject({ httpStatus: 400, code: 53 });
    expect(errorOf(body({ items: [item('A', evm), item('A', tron)] }))).toMatchObject({
      httpStatus: 400,
      code: 53,
    });
  });
});

describe('crypto batch create request: precedence when several rules break', () => {
  it.each([
    [
      'currency before method_id and items',
      { currency: 'USD', method_id: null, items: [] },
      'only crypto currency supported',
    ],
    [
      'currency required before the rest',
      { currency: undefined, items: null },
      'currency required',
    ],
    ['method_id before items', { method_id: undefined, items: [] }, 'method_id required'],
    ['submit before items', { submit: 1, items: null }, 'Validation Failed'],
    [
      'items length before any item rule',
      { items: Array.from({ length: 501 }, () => ({})) },
      'items length must be between 1 and 500',
    ],
    [
      'items in array order: the first bad item wins',
      { items: [item('A', 'bad'), { amount: '1' }] },
      'invalid EVM receiving address',
    ],
    [
      'order_no before amount',
      { items: [{ amount: '0', beneficiary_account: { address: 'x' } }] },
      'order_no required',
    ],
    [
      'amount before the account',
      { items: [{ order_no: 'A', amount: '0', beneficiary_account: {} }] },
      'amount must be greater than zero',
    ],
    [
      'address key before network_code',
      { items: [{ order_no: 'A', amount: '1', beneficiary_account: { network_code: 'X' } }] },
      'beneficiary_account.address required',
    ],
    [
      'network_code before a blank address',
      {
        items: [
          { order_no: 'A', amount: '1', beneficiary_account: { address: ' ', network_code: 'X' } },
        ],
      },
      'network not found',
    ],
    [
      'every item rule before duplicates',
      { items: [item('A', evm), item('A', evm), item('B', 'bad')] },
      'invalid EVM receiving address',
    ],
    [
      'duplicate order_no before duplicate address',
      { items: [item('A', evm), item('B', evm), item('A', tron)] },
      'duplicate order_no in request',
    ],
    [
      'every items rule before notify_url',
      { items: [item('A', evm), item('A', tron)], notify_url: 'http://x.example' },
      'duplicate order_no in request',
    ],
    [
      'submit before notify_url',
      { submit: 'yes', notify_url: 'http://x.example' },
      'Validation Failed',
    ],
  ])('%s', (_, overrides, message) => {
    expect(messageOf(body(overrides))).toBe(message);
  });
});

describe('crypto batch items request', () => {
  const decodeUsdt = decodeCryptoBatchItemsRequest('USDT');

  it('decodes items at the batch currency scale', () => {
    expect(decodeUsdt({ items: [item('A', evm, '1.25')] })).toEqual(
      E.right({
        items: [
          {
            order_no: 'A',
            amount: '1.250000',
            beneficiary_account: { address: evm, network_code: 'EVM' },
          },
        ],
      }),
    );
  });

  it('applies the same item rules and messages', () => {
    const message = (u: unknown) => {
      const d = decodeUsdt(u);
      return E.isLeft(d) ? d.left.message : 'decoded';
    };
    expect(message(undefined)).toBe('request required');
    expect(message({})).toBe('items required');
    expect(message({ items: [] })).toBe('items length must be between 1 and 500');
    expect(message({ items: [item('A', evm, '1.0000001')] })).toBe(
      'amount must be a decimal string with at most 6 decimal places',
    );
    expect(message({ items: [item('A', evm), item('A', tron)] })).toBe(
      'duplicate order_no in request',
    );
    expect(
      message({ items: [{ order_no: 'A', amount: '1', beneficiary_account: { address: '' } }] }),
    ).toBe('receiving address required');
  });
});

describe('rules that need storage or configuration', () => {
  const items: CryptoBatchItem[] = [
    {
      order_no: 'A',
      amount: '1.000000',
      beneficiary_account: { address: evm, network_code: 'EVM' },
    },
    {
      order_no: 'B',
      amount: '2.000000',
      beneficiary_account: { address: tron, network_code: 'TRON' },
    },
  ];
  const route = (route_id: string, channel_account_id = 'ca1'): BatchItemRoute => ({
    route_id,
    channel_account_id,
  });

  it('payout method not supported for crypto; payout method not found', () => {
    expect(cryptoMethodRefusal('crypto')).toBeUndefined();
    expect(cryptoMethodRefusal('fiat')?.message).toBe('payout method not supported for crypto');
    expect(cryptoMethodRefusal(undefined)?.message).toBe('payout method not found');
  });

  it('duplicate order_no in batch; an address already in the batch', () => {
    const existing: CryptoBatchItem[] = [
      {
        order_no: 'B',
        amount: '1.000000',
        beneficiary_account: { address: evm2, network_code: 'EVM' },
      },
    ];
    expect(duplicateInBatchRefusal(items, existing)?.message).toBe('duplicate order_no in batch');
    const sameAddress: CryptoBatchItem[] = [
      {
        order_no: 'Z',
        amount: '1.000000',
        beneficiary_account: { address: evm.toLowerCase(), network_code: 'EVM' },
      },
    ];
    expect(duplicateInBatchRefusal(items, sameAddress)?.message).toBe(
      'duplicate receiving address in batch request',
    );
    expect(duplicateInBatchRefusal(items, [])).toBeUndefined();
  });

  it('duplicate order_no in merchant payouts', () => {
    expect(duplicateInMerchantPayoutsRefusal(items, new Set(['B']))?.message).toBe(
      'duplicate order_no in merchant payouts',
    );
    expect(duplicateInMerchantPayoutsRefusal(items, new Set(['a', 'C']))).toBeUndefined();
  });

  it('one route for every item: the route, or which message when not', () => {
    expect(batchRouteOf(items, () => route('r1'))).toEqual(E.right(route('r1')));
    const by = (routes: Record<string, BatchItemRoute | undefined>) => (i: CryptoBatchItem) =>
      routes[i.order_no];
    const message = (routes: Record<string, BatchItemRoute | undefined>) => {
      const r = batchRouteOf(items, by(routes));
      return E.isLeft(r) ? r.left.message : 'one route';
    };
    expect(message({ A: route('r1') })).toBe('payout route not configured');
    expect(message({ A: route('r1', 'ca1'), B: route('r2', 'ca2') })).toBe(
      'batch contains multiple payout channel accounts',
    );
    expect(message({ A: route('r1', 'ca1'), B: route('r1', 'ca2') })).toBe(
      'batch contains multiple payout channel accounts',
    );
    expect(message({ A: route('r1', 'ca1'), B: route('r2', 'ca1') })).toBe('split batch by route');
    expect(batchRouteOf([], () => route('r1'))).toEqual(
      E.left(expect.objectContaining({ message: 'batch has no items' })),
    );
  });

  it('precedence: method, duplicate in batch, merchant payouts, then the route', () => {
    const all: CryptoBatchConfiguration = {
      items,
      existing_items: [
        {
          order_no: 'A',
          amount: '1.000000',
          beneficiary_account: { address: evm2, network_code: 'EVM' },
        },
      ],
      method_currency_type: 'fiat',
      taken_references: new Set(['B']),
      route_of: () => undefined,
    };
    const message = (patch: Partial<CryptoBatchConfiguration>) =>
      cryptoBatchConfigurationRefusal({ ...all, ...patch })?.message;
    expect(message({})).toBe('payout method not supported for crypto');
    expect(message({ method_currency_type: 'crypto' })).toBe('duplicate order_no in batch');
    expect(message({ method_currency_type: 'crypto', existing_items: [] })).toBe(
      'duplicate order_no in merchant payouts',
    );
    expect(
      message({ method_currency_type: 'crypto', existing_items: [], taken_references: new Set() }),
    ).toBe('payout route not configured');
    expect(
      message({
        method_currency_type: 'crypto',
        existing_items: [],
        taken_references: new Set(),
        route_of: () => route('r1'),
      }),
    ).toBeUndefined();
  });

  it('the route covers the batch existing items too', () => {
    const existing: CryptoBatchItem[] = [
      {
        order_no: 'E',
        amount: '1.000000',
        beneficiary_account: { address: evm2, network_code: 'EVM' },
      },
    ];
    expect(
      cryptoBatchConfigurationRefusal({
        items,
        existing_items: existing,
        method_currency_type: 'crypto',
        taken_references: new Set(),
        route_of: (i) => (i.order_no === 'E' ? route('r0') : route('r1')),
      })?.message,
    ).toBe('split batch by route');
  });
});
