import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { PayrailError } from '../errors/error-catalogue.js';
import type { PayTokenId } from '../money/pay-tokens.js';
import {
  AcquiringOrderCreateRequest,
  decodeAcquiringOrderClose,
  decodeAcquiringOrderCreate,
  decodePayTokenSelection,
  isSameOriginPath,
  resolveOrderPayTokens,
  validateNotifyWebhook,
} from './acquiring.codecs.js';

const validOrder = {
  out_trade_no: 'ORD-1001',
  order_currency: 'USD',
  order_amount: '25.5',
  allowed_pay_currencies: ['TRON_USDT', 'ETH_USDC'],
  expire_seconds: 1800,
  underpay_tolerance: '0.1',
  notify_webhook_id: 'wh_123',
};

const errorOf = <A>(result: E.Either<PayrailError, A>): PayrailError => {
  if (E.isRight(result)) throw new Error(`expected an error, got ${JSON.stringify(result.right)}`);
  return result.left;
};

const messageOf = (input: unknown): string => errorOf(decodeAcquiringOrderCreate(input)).message;

const decoded = (input: unknown) => {
  const result = decodeAcquiringOrderCreate(input);
  if (E.isLeft(result)) throw new Error(`expected success, got ${result.left.message}`);
  return result.right;
};

describe('acquiring order create: a valid order', () => {
  it('decodes with defaults filled in and amounts at the USD scale', () => {
    expect(decoded(validOrder)).toEqual({
      out_trade_no: 'ORD-1001',
      order_currency: 'USD',
      order_amount: '25.50',
      allowed_pay_currencies: ['TRON_USDT', 'ETH_USDC'],
      expire_seconds: 1800,
      underpay_tolerance: '0.10',
      notify_webhook_id: 'wh_123',
      mode: 'checkout',
      checkout_type: 'hosted',
      redirect_automatically: false,
    });
  });

  it('leaves allowed_pay_currencies out when omitted or null (the account defaults apply later)', () => {
    const { allowed_pay_currencies: _, ...withoutList } = validOrder;
    expect(decoded(withoutList)).not.toHaveProperty('allowed_pay_currencies');
    expect(decoded({ ...validOrder, allowed_pay_currencies: null })).not.toHaveProperty(
      'allowed_pay_currencies',
    );
  });

  it('drops duplicate pay currencies, keeping the first occurrence order', () => {
    const order = decoded({
      ...validOrder,
      allowed_pay_currencies: ['ETH_USDC', 'TRON_USDT', 'ETH_USDC'],
    });
    expect(order.allowed_pay_currencies).toEqual(['ETH_USDC', 'TRON_USDT']);
  });

  it('keeps the optional fields and ignores keys the interface does not define', () => {
    const order = decoded({
      ...validOrder,
      redirect_url: '/orders/1001?from=pay',
      logo_url: 'https://cdn.example.com/logo.png',
      remark: 'first order',
      mode: 'direct',
      checkout_type: 'hosted',
      network: 'TRON',
      currency: 'USDT',
      notify_url: 'https://merchant.example.com/hook',
    });
    expect(order).toMatchObject({
      redirect_url: '/orders/1001?from=pay',
      logo_url: 'https://cdn.example.com/logo.png',
      remark: 'first order',
      mode: 'direct',
      network: 'TRON',
      currency: 'USDT',
    });
    expect(order).not.toHaveProperty('notify_url');
  });

  it('reads redirect_automatically as a JSON boolean, absent or null meaning false', () => {
    expect(decoded({ ...validOrder, redirect_automatically: true }).redirect_automatically).toBe(
      true,
    );
    expect(decoded({ ...validOrder, redirect_automatically: false }).redirect_automatically).toBe(
      false,
    );
    expect(decoded({ ...validOrder, redirect_automatically: null }).redirect_automatically).toBe(
      false,
    );
    expect(decoded(validOrder).redirect_automatically).toBe(false);
  });

  it.each(['true', 'false', 1, 0, '', [], {}])(
    'redirect_automatically %j is Validation Failed',
    (value) => {
      expect(messageOf({ ...validOrder, redirect_automatically: value })).toBe('Validation Failed');
    },
  );

  it('accepts the range ends of expire_seconds and a zero tolerance', () => {
    expect(decoded({ ...validOrder, expire_seconds: 60 }).expire_seconds).toBe(60);
    expect(decoded({ ...validOrder, expire_seconds: 10800 }).expire_seconds).toBe(10800);
    expect(decoded({ ...validOrder, underpay_tolerance: '0' }).underpay_tolerance).toBe('0.00');
  });

  it('is a fixed point: the decoded order is a value of the codec and decodes to itself', () => {
    const order = decoded({ ...validOrder, network: 'ETH', currency: 'USDC' });
    expect(AcquiringOrderCreateRequest.is(order)).toBe(true);
    expect(decoded(order)).toEqual(order);
    expect(AcquiringOrderCreateRequest.is(validOrder)).toBe(false);
  });
});

describe('acquiring order create: each rule and its message', () => {
  it.each([undefined, null, 'text', [validOrder], 42])(
    'a body that is not a JSON object (%j) is `request required`',
    (body) => {
      expect(messageOf(body)).toBe('request required');
    },
  );

  it.each([
    'out_trade_no',
    'order_currency',
    'order_amount',
    'expire_seconds',
    'underpay_tolerance',
    'notify_webhook_id',
  ])('a missing %s is `<field> required`', (field) => {
    const { [field as keyof typeof validOrder]: _, ...rest } = validOrder;
    expect(messageOf(rest)).toBe(`${field} required`);
    expect(messageOf({ ...validOrder, [field]: null })).toBe(`${field} required`);
  });

  it('a blank out_trade_no or notify_webhook_id is required, an over-long one Validation Failed', () => {
    expect(messageOf({ ...validOrder, out_trade_no: '  ' })).toBe('out_trade_no required');
    expect(messageOf({ ...validOrder, notify_webhook_id: '' })).toBe('notify_webhook_id required');
    expect(
      E.isRight(decodeAcquiringOrderCreate({ ...validOrder, out_trade_no: 'x'.repeat(64) })),
    ).toBe(true);
    expect(messageOf({ ...validOrder, out_trade_no: 'x'.repeat(65) })).toBe('Validation Failed');
    expect(messageOf({ ...validOrder, out_trade_no: 1001 })).toBe('Validation Failed');
    expect(messageOf({ ...validOrder, out_trade_no: 'a\nb' })).toBe('Validation Failed');
  });

  it.each(['usd', 'EUR', 'USDT', 840])(
    'order_currency %j is `order_currency only supports USD`',
    (currency) => {
      expect(messageOf({ ...validOrder, order_currency: currency })).toBe(
        'order_currency only supports USD',
      );
    },
  );

  it.each(['0', '0.00', '-1', '-0', '-12.345'])(
    'order_amount %j is `order_amount must be > 0`',
    (amount) => {
      expect(messageOf({ ...validOrder, order_amount: amount })).toBe('order_amount must be > 0');
    },
  );

  it.each(['1.001', '1e3', '01', ' 1', '1.', 25, 'abc'])(
    'order_amount %j is not a USD decimal string',
    (amount) => {
      expect(messageOf({ ...validOrder, order_amount: amount })).toBe(
        'order_amount must be a decimal string with at most 2 decimal places',
      );
    },
  );

  it.each(['USDT', 'tron_usdt', 'TRON-USDT', 'TRON_', '_USDT'])(
    'a malformed pay currency %j is `invalid pay currency: <id>` (400/51)',
    (id) => {
      const error = errorOf(
        decodeAcquiringOrderCreate({ ...validOrder, allowed_pay_currencies: ['TRON_USDT', id] }),
      );
      expect(error.message).toBe(`invalid pay currency: ${id}`);
      expect([error.httpStatus, error.code]).toEqual([400, 51]);
    },
  );

  it('a well-formed but unknown pay currency is `unsupported network/currency` (400/53)', () => {
    const error = errorOf(
      decodeAcquiringOrderCreate({ ...validOrder, allowed_pay_currencies: ['TRON_USDC'] }),
    );
    expect(error.message).toBe('unsupported network/currency: TRON/USDC');
    expect([error.httpStatus, error.code]).toEqual([400, 53]);
    expect(messageOf({ ...validOrder, allowed_pay_currencies: ['POLYGON_USDT'] })).toBe(
      'unsupported network/currency: POLYGON/USDT',
    );
  });

  it('the first bad pay currency in list order is the answer', () => {
    expect(messageOf({ ...validOrder, allowed_pay_currencies: ['BASE_USDT', 'usdt'] })).toBe(
      'unsupported network/currency: BASE/USDT',
    );
  });

  it('an empty allowed_pay_currencies is `allowed_pay_currencies required`; a non-list Validation Failed', () => {
    expect(messageOf({ ...validOrder, allowed_pay_currencies: [] })).toBe(
      'allowed_pay_currencies required',
    );
    expect(messageOf({ ...validOrder, allowed_pay_currencies: 'TRON_USDT' })).toBe(
      'Validation Failed',
    );
    expect(messageOf({ ...validOrder, allowed_pay_currencies: ['TRON_USDT', 7] })).toBe(
      'Validation Failed',
    );
  });

  it.each([59, 10801, 0, -60, 600.5, '600', true])(
    'expire_seconds %j is `expire_seconds must be between 60 and 10800`',
    (seconds) => {
      expect(messageOf({ ...validOrder, expire_seconds: seconds })).toBe(
        'expire_seconds must be between 60 and 10800',
      );
    },
  );

  it.each(['-0.01', '-1', '-5.123'])(
    'underpay_tolerance %j is `underpay_tolerance must be >= 0`',
    (t) => {
      expect(messageOf({ ...validOrder, underpay_tolerance: t })).toBe(
        'underpay_tolerance must be >= 0',
      );
    },
  );

  it.each(['-0', '0.001', 'x', 0])('underpay_tolerance %j is not a USD decimal string', (t) => {
    expect(messageOf({ ...validOrder, underpay_tolerance: t })).toBe(
      'underpay_tolerance must be a decimal string with at most 2 decimal places',
    );
  });

  it.each([
    'http://merchant.example.com/done',
    '//evil.example.com/path',
    '/\\evil.example.com',
    '/a\\b',
    'done.html',
    'javascript:alert(1)',
    'https://',
    'https://user:pw@merchant.example.com/',
    '/with space',
    '',
    42,
  ])('redirect_url %j is rejected with its message', (url) => {
    expect(messageOf({ ...validOrder, redirect_url: url })).toBe(
      'redirect_url must be an absolute https URL or a same-origin relative path',
    );
  });

  it.each([
    'https://merchant.example.com/done?o=1#top',
    '/',
    '/done',
    'HTTPS://merchant.example.com',
  ])('redirect_url %j is accepted', (url) => {
    expect(decoded({ ...validOrder, redirect_url: url }).redirect_url).toBe(url);
  });

  it.each(['http://cdn.example.com/logo.png', '/logo.png', 'logo.png', '', 5])(
    'logo_url %j is `logo_url must be an absolute https URL`',
    (url) => {
      expect(messageOf({ ...validOrder, logo_url: url })).toBe(
        'logo_url must be an absolute https URL',
      );
    },
  );

  it('remark: blank is not sent, over 256 characters or not a string is Validation Failed', () => {
    expect(decoded({ ...validOrder, remark: ' ' })).not.toHaveProperty('remark');
    expect(decoded({ ...validOrder, remark: 'é'.repeat(256) }).remark).toHaveLength(256);
    expect(messageOf({ ...validOrder, remark: 'r'.repeat(257) })).toBe('Validation Failed');
    expect(messageOf({ ...validOrder, remark: { text: 'x' } })).toBe('Validation Failed');
  });

  it.each(['hosted', 'CHECKOUT', '', 1])('mode %j is `mode must be checkout or direct`', (mode) => {
    expect(messageOf({ ...validOrder, mode })).toBe('mode must be checkout or direct');
  });

  it.each(['embedded', 'HOSTED', '', 0])(
    'checkout_type %j is `unsupported checkout_type` (400/53)',
    (type) => {
      const error = errorOf(decodeAcquiringOrderCreate({ ...validOrder, checkout_type: type }));
      expect(error.message).toBe('unsupported checkout_type');
      expect(error.code).toBe(53);
    },
  );

  it('network/currency: only one of the pair is `network/currency required`', () => {
    expect(messageOf({ ...validOrder, network: 'TRON' })).toBe('network/currency required');
    expect(messageOf({ ...validOrder, currency: 'USDT' })).toBe('network/currency required');
    expect(messageOf({ ...validOrder, network: 'TRON', currency: '' })).toBe(
      'network/currency required',
    );
  });

  it('network/currency: direct mode without the pair is `network/currency required`', () => {
    expect(messageOf({ ...validOrder, mode: 'direct' })).toBe('network/currency required');
  });

  it('network/currency: a pair naming no known token is `unsupported network/currency`', () => {
    expect(messageOf({ ...validOrder, network: 'TRON', currency: 'USDC' })).toBe(
      'unsupported network/currency: TRON/USDC',
    );
    expect(messageOf({ ...validOrder, network: 'tron', currency: 'usdt' })).toBe(
      'unsupported network/currency: tron/usdt',
    );
  });

  it('network/currency: a pair outside allowed_pay_currencies is `network/currency not allowed by order`', () => {
    const error = errorOf(
      decodeAcquiringOrderCreate({
        ...validOrder,
        mode: 'direct',
        network: 'BSC',
        currency: 'USDT',
      }),
    );
    expect(error.message).toBe('network/currency not allowed by order');
    expect(error.code).toBe(53);
  });

  it('network/currency: a non-string member is Validation Failed', () => {
    expect(messageOf({ ...validOrder, network: 1, currency: 'USDT' })).toBe('Validation Failed');
  });
});

describe('acquiring order create: precedence', () => {
  it('field rules answer in the table order', () => {
    const allBroken = {
      out_trade_no: '',
      order_currency: 'EUR',
      order_amount: '0',
      allowed_pay_currencies: ['usdt'],
      expire_seconds: 5,
      underpay_tolerance: '-1',
      notify_webhook_id: '',
      redirect_url: 'http://x.example',
      logo_url: '/logo.png',
      remark: 'r'.repeat(300),
      mode: 'instant',
      checkout_type: 'embedded',
      network: 'TRON',
      redirect_automatically: 'yes',
    };
    const expected = [
      ['out_trade_no', 'out_trade_no required'],
      ['order_currency', 'order_currency only supports USD'],
      ['order_amount', 'order_amount must be > 0'],
      ['allowed_pay_currencies', 'invalid pay currency: usdt'],
      ['expire_seconds', 'expire_seconds must be between 60 and 10800'],
      ['underpay_tolerance', 'underpay_tolerance must be >= 0'],
      ['notify_webhook_id', 'notify_webhook_id required'],
      ['redirect_url', 'redirect_url must be an absolute https URL or a same-origin relative path'],
      ['logo_url', 'logo_url must be an absolute https URL'],
      ['remark', 'Validation Failed'],
      ['mode', 'mode must be checkout or direct'],
      ['checkout_type', 'unsupported checkout_type'],
      ['redirect_automatically', 'Validation Failed'],
      ['network', 'network/currency required'],
    ] as const;
    // Repair the fields one by one from the top: each time the next rule is the answer.
    let body: Record<string, unknown> = { ...allBroken };
    for (const [field, message] of expected) {
      expect(messageOf(body)).toBe(message);
      body = { ...body, [field]: (validOrder as Record<string, unknown>)[field] };
    }
    expect(E.isRight(decodeAcquiringOrderCreate(body))).toBe(true);
  });

  it('the pair is checked only once every field passes', () => {
    expect(messageOf({ ...validOrder, expire_seconds: 1, network: 'TRON' })).toBe(
      'expire_seconds must be between 60 and 10800',
    );
    expect(
      messageOf({
        ...validOrder,
        mode: 'direct',
        network: 'BSC',
        currency: 'USDT',
        remark: 'x'.repeat(257),
      }),
    ).toBe('Validation Failed');
  });

  it('pair rules: one-sided before direct-mode, unknown before not-allowed', () => {
    expect(messageOf({ ...validOrder, mode: 'direct', network: 'TRON' })).toBe(
      'network/currency required',
    );
    expect(messageOf({ ...validOrder, network: 'TRON', currency: 'USDC' })).toBe(
      'unsupported network/currency: TRON/USDC',
    );
  });
});

describe('acquiring order close', () => {
  it('needs a reason', () => {
    expect(decodeAcquiringOrderClose({ reason: 'customer cancelled' })).toEqual(
      E.right({ reason: 'customer cancelled' }),
    );
    expect(errorOf(decodeAcquiringOrderClose({})).message).toBe('reason required');
    expect(errorOf(decodeAcquiringOrderClose({ reason: ' ' })).message).toBe('reason required');
    expect(errorOf(decodeAcquiringOrderClose({ reason: null })).message).toBe('reason required');
    expect(errorOf(decodeAcquiringOrderClose({ reason: 7 })).message).toBe('Validation Failed');
    expect(errorOf(decodeAcquiringOrderClose({ reason: 'r'.repeat(257) })).message).toBe(
      'Validation Failed',
    );
    expect(errorOf(decodeAcquiringOrderClose(undefined)).message).toBe('request required');
  });
});

describe('checkout token selection', () => {
  const allowed: PayTokenId[] = ['TRON_USDT', 'BASE_USDC'];

  it('answers the chosen token when the order allows it', () => {
    const token = decodePayTokenSelection({ network: 'BASE', currency: 'USDC' }, allowed);
    expect(E.isRight(token) && token.right.id).toBe('BASE_USDC');
  });

  it('needs both members: `network/currency required`', () => {
    for (const body of [
      { network: 'TRON' },
      { currency: 'USDT' },
      {},
      { network: '', currency: 'USDT' },
    ]) {
      expect(errorOf(decodePayTokenSelection(body, allowed)).message).toBe(
        'network/currency required',
      );
    }
  });

  it('a pair the order does not allow, known or not, is `network/currency not allowed by order`', () => {
    for (const body of [
      { network: 'ETH', currency: 'USDT' },
      { network: 'TRON', currency: 'USDC' },
      { network: 'tron', currency: 'usdt' },
    ]) {
      expect(errorOf(decodePayTokenSelection(body, allowed)).message).toBe(
        'network/currency not allowed by order',
      );
    }
  });
});

describe('resolveOrderPayTokens (docs/spec/decisions.md §4)', () => {
  const account = {
    enabledPayTokens: ['TRON_USDT', 'ETH_USDT', 'BASE_USDC'] as PayTokenId[],
    defaultPayTokens: ['TRON_USDT', 'BASE_USDC'] as PayTokenId[],
  };

  it('an omitted list takes the account defaults', () => {
    expect(resolveOrderPayTokens({}, account)).toEqual(E.right(['TRON_USDT', 'BASE_USDC']));
  });

  it('a sent list is kept when every id is enabled', () => {
    expect(resolveOrderPayTokens({ allowed_pay_currencies: ['ETH_USDT'] }, account)).toEqual(
      E.right(['ETH_USDT']),
    );
  });

  it('no defaults configured is `allowed_pay_currencies required`', () => {
    const error = errorOf(resolveOrderPayTokens({}, { ...account, defaultPayTokens: [] }));
    expect(error.message).toBe('allowed_pay_currencies required');
  });

  it('defaults that are no longer enabled are skipped; none left is `allowed_pay_currencies required`', () => {
    const stale = { ...account, defaultPayTokens: ['SOL_USDC', 'TRON_USDT'] as PayTokenId[] };
    expect(resolveOrderPayTokens({}, stale)).toEqual(E.right(['TRON_USDT']));
    const allStale = { ...account, defaultPayTokens: ['SOL_USDC'] as PayTokenId[] };
    expect(errorOf(resolveOrderPayTokens({}, allStale)).message).toBe(
      'allowed_pay_currencies required',
    );
  });

  it('no enabled token at all is `no available pay tokens for current account`, before anything else', () => {
    const none = { enabledPayTokens: [], defaultPayTokens: [] };
    expect(errorOf(resolveOrderPayTokens({}, none)).message).toBe(
      'no available pay tokens for current account',
    );
    expect(
      errorOf(resolveOrderPayTokens({ allowed_pay_currencies: ['SOL_USDT'] }, none)).message,
    ).toBe('no available pay tokens for current account');
  });

  it('a listed id not enabled is `unsupported network/currency: <network>/<currency>` (400/53)', () => {
    const error = errorOf(
      resolveOrderPayTokens({ allowed_pay_currencies: ['TRON_USDT', 'SOL_USDC'] }, account),
    );
    expect(error.message).toBe('unsupported network/currency: SOL/USDC');
    expect(error.code).toBe(53);
  });

  it('a direct-mode pair must be enabled and inside the resolved list', () => {
    expect(
      errorOf(resolveOrderPayTokens({ network: 'SOL', currency: 'USDT' }, account)).message,
    ).toBe('unsupported network/currency: SOL/USDT');
    expect(
      errorOf(resolveOrderPayTokens({ network: 'ETH', currency: 'USDT' }, account)).message,
    ).toBe('network/currency not allowed by order');
    expect(resolveOrderPayTokens({ network: 'BASE', currency: 'USDC' }, account)).toEqual(
      E.right(['TRON_USDT', 'BASE_USDC']),
    );
  });
});

describe('validateNotifyWebhook', () => {
  const webhook = (status: string, events: string[]) => ({ webhook_id: 'wh_1', status, events });

  it('accepts an active webhook with an acquiring pattern', () => {
    for (const events of [
      ['acquiring.*'],
      ['acquiring.order.updated'],
      ['payout.*', 'acquiring.payment.updated'],
    ]) {
      const hook = webhook('active', events);
      expect(validateNotifyWebhook(hook)).toEqual(E.right(hook));
    }
  });

  it('a missing or inactive webhook is `notify_webhook_id invalid or inactive` (400/53)', () => {
    const missing = errorOf(validateNotifyWebhook(undefined));
    expect(missing.message).toBe('notify_webhook_id invalid or inactive');
    expect([missing.httpStatus, missing.code]).toEqual([400, 53]);
    expect(errorOf(validateNotifyWebhook(webhook('inactive', ['acquiring.*']))).message).toBe(
      'notify_webhook_id invalid or inactive',
    );
  });

  it('no acquiring pattern is `notify_webhook_id not subscribed to acquiring events`', () => {
    for (const events of [
      [],
      ['payout.*'],
      ['payout.execution.completed'],
      ['acquiring.refund.updated'],
    ]) {
      expect(errorOf(validateNotifyWebhook(webhook('active', events))).message).toBe(
        'notify_webhook_id not subscribed to acquiring events',
      );
    }
  });
});

describe('isSameOriginPath', () => {
  it('accepts paths on our origin only', () => {
    expect(['/', '/a/b?c=d#e', '/%2F'].every(isSameOriginPath)).toBe(true);
    expect(['//a', '/\\a', 'a', '', '/a b', '/é'].some(isSameOriginPath)).toBe(false);
  });
});
