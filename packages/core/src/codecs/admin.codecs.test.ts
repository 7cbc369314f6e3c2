import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { PayrailError } from '../errors/error-catalogue.js';
import {
  AccountUpdateRequest,
  ApiKeyIssueRequest,
  apiKeyLimits,
  apiKeyPermissions,
  decodeAccountCredit,
  decodeAccountUpdate,
  decodeApiKeyIssue,
  decodeApiKeyUpdate,
  decodeMerchantCreate,
  decodeSandboxClockAdvance,
  isApiKeyPermission,
  MerchantCreateRequest,
} from './admin.codecs.js';

const errorOf = <A>(result: E.Either<PayrailError, A>): PayrailError => {
  if (E.isRight(result)) throw new Error(`expected an error, got ${JSON.stringify(result.right)}`);
  return result.left;
};
const messageOf = <A>(result: E.Either<PayrailError, A>): string => errorOf(result).message;

const notObjects = [undefined, null, 'x', 1, [], [{}]];

describe('merchant create', () => {
  it('fills every currency when none is sent', () => {
    expect(decodeMerchantCreate({ name: 'Acme' })).toEqual(
      E.right({ name: 'Acme', currencies: ['USD', 'USDT', 'USDC'] }),
    );
    expect(decodeMerchantCreate({ name: 'Acme', currencies: null })).toEqual(
      E.right({ name: 'Acme', currencies: ['USD', 'USDT', 'USDC'] }),
    );
  });

  it('keeps the currencies sent, in order, without repeats', () => {
    expect(decodeMerchantCreate({ name: 'Acme', currencies: ['USDT', 'USD', 'USDT'] })).toEqual(
      E.right({ name: 'Acme', currencies: ['USDT', 'USD'] }),
    );
  });

  it.each(notObjects)('%j is `request required`', (body) => {
    expect(messageOf(decodeMerchantCreate(body))).toBe('request required');
  });

  it('answers the first broken rule', () => {
    expect(messageOf(decodeMerchantCreate({}))).toBe('name required');
    expect(messageOf(decodeMerchantCreate({ name: '  ', currencies: ['EUR'] }))).toBe(
      'name required',
    );
    expect(messageOf(decodeMerchantCreate({ name: 5 }))).toBe('Validation Failed');
    expect(messageOf(decodeMerchantCreate({ name: 'x'.repeat(201) }))).toBe('Validation Failed');
    expect(messageOf(decodeMerchantCreate({ name: 'Acme', currencies: [] }))).toBe(
      'Validation Failed',
    );
    expect(messageOf(decodeMerchantCreate({ name: 'Acme', currencies: 'USD' }))).toBe(
      'Validation Failed',
    );
    expect(messageOf(decodeMerchantCreate({ name: 'Acme', currencies: ['USD', 1] }))).toBe(
      'Validation Failed',
    );
    expect(messageOf(decodeMerchantCreate({ name: 'Acme', currencies: ['USD', 'EUR'] }))).toBe(
      'currency not supported',
    );
  });

  it('`is` holds for decoded values only', () => {
    expect(MerchantCreateRequest.is({ name: 'Acme', currencies: ['USD'] })).toBe(true);
    expect(MerchantCreateRequest.is({ name: 'Acme' })).toBe(false);
  });
});

describe('account update', () => {
  it('decodes every setting', () => {
    const body = {
      status: 'frozen',
      verification_enabled: true,
      auto_approve: false,
      products: { payout: false, acquiring: true },
      enabled_pay_tokens: ['TRON_USDT', 'ETH_USDC', 'TRON_USDT'],
      default_pay_tokens: ['TRON_USDT'],
    };
    expect(decodeAccountUpdate(body)).toEqual(
      E.right({ ...body, enabled_pay_tokens: ['TRON_USDT', 'ETH_USDC'] }),
    );
  });

  it('decodes a partial products object and empty token lists', () => {
    expect(
      decodeAccountUpdate({ products: { payout: false }, enabled_pay_tokens: [], unknown: 1 }),
    ).toEqual(E.right({ products: { payout: false }, enabled_pay_tokens: [] }));
  });

  it('a body without settings decodes to {} (the engine answers `no changes`)', () => {
    expect(decodeAccountUpdate({})).toEqual(E.right({}));
    expect(decodeAccountUpdate({ status: null })).toEqual(E.right({}));
  });

  it.each(notObjects)('%j is `request required`', (body) => {
    expect(messageOf(decodeAccountUpdate(body))).toBe('request required');
  });

  it.each([
    [{ status: 'disabled' }, 'invalid status'],
    [{ status: 'deleted', verification_enabled: 'yes' }, 'invalid status'],
    [{ verification_enabled: 'true' }, 'Validation Failed'],
    [{ auto_approve: 1 }, 'Validation Failed'],
    [{ products: true }, 'Validation Failed'],
    [{ products: [] }, 'Validation Failed'],
    [{ products: { payout: 'yes' } }, 'Validation Failed'],
    [{ products: { acquiring: 0 } }, 'Validation Failed'],
    [{ enabled_pay_tokens: 'TRON_USDT' }, 'Validation Failed'],
    [{ enabled_pay_tokens: ['USDT'] }, 'invalid pay currency: USDT'],
    [{ enabled_pay_tokens: ['tron_usdt'] }, 'invalid pay currency: tron_usdt'],
    [{ enabled_pay_tokens: ['TRON_USDC'] }, 'unsupported network/currency: TRON/USDC'],
    [{ default_pay_tokens: ['BTC_USDT'] }, 'unsupported network/currency: BTC/USDT'],
    [
      { enabled_pay_tokens: ['USDT'], default_pay_tokens: ['BTC_USDT'] },
      'invalid pay currency: USDT',
    ],
  ] as const)('%j is `%s`', (body, message) => {
    expect(messageOf(decodeAccountUpdate(body))).toBe(message);
  });

  it('`is` holds for decoded values', () => {
    expect(AccountUpdateRequest.is({ status: 'active' })).toBe(true);
    expect(AccountUpdateRequest.is({ status: 'gone' })).toBe(false);
  });
});

describe('api key issue', () => {
  it('fills the defaults: 30 days, no whitelist, no name; env left to the engine', () => {
    expect(decodeApiKeyIssue({ permissions: ['payment.account.read'] })).toEqual(
      E.right({
        permissions: ['payment.account.read'],
        ip_whitelist: [],
        expires_in_seconds: 2_592_000,
        name: '',
      }),
    );
  });

  it('keeps what was sent, duplicates dropped', () => {
    expect(
      decodeApiKeyIssue({
        permissions: ['payment.wallet.read', 'payment.ledger.read', 'payment.wallet.read'],
        env: 'live',
        ip_whitelist: ['203.0.113.0/24', '2001:db8::1', '203.0.113.0/24'],
        expires_in_seconds: 60,
        name: 'erp',
      }),
    ).toEqual(
      E.right({
        permissions: ['payment.wallet.read', 'payment.ledger.read'],
        env: 'live',
        ip_whitelist: ['203.0.113.0/24', '2001:db8::1'],
        expires_in_seconds: 60,
        name: 'erp',
      }),
    );
  });

  it('accepts every known permission', () => {
    expect(E.isRight(decodeApiKeyIssue({ permissions: [...apiKeyPermissions] }))).toBe(true);
    expect(apiKeyPermissions.every(isApiKeyPermission)).toBe(true);
    expect(isApiKeyPermission('payment.admin')).toBe(false);
  });

  it.each(notObjects)('%j is `request required`', (body) => {
    expect(messageOf(decodeApiKeyIssue(body))).toBe('request required');
  });

  const permissions = ['payment.account.read'];
  it.each([
    [{}, 'permissions required'],
    [{ permissions: [] }, 'permissions required'],
    [{ permissions: null, env: 'prod' }, 'permissions required'],
    [{ permissions: 'payment.account.read' }, 'Validation Failed'],
    [{ permissions: ['payment.account.read', 'payment.admin'] }, 'Validation Failed'],
    [{ permissions: [1] }, 'Validation Failed'],
    [{ permissions, env: 'prod' }, 'Validation Failed'],
    [{ permissions, ip_whitelist: '10.0.0.1' }, 'Validation Failed'],
    [{ permissions, ip_whitelist: ['10.0.0.1', 'localhost'] }, 'Validation Failed'],
    [{ permissions, ip_whitelist: ['10.0.0.0/33'] }, 'Validation Failed'],
    [{ permissions, expires_in_seconds: 59 }, 'Validation Failed'],
    [{ permissions, expires_in_seconds: 31_536_001 }, 'Validation Failed'],
    [{ permissions, expires_in_seconds: 3600.5 }, 'Validation Failed'],
    [{ permissions, expires_in_seconds: '3600' }, 'Validation Failed'],
    [{ permissions, name: 7 }, 'Validation Failed'],
    [{ permissions, name: 'x'.repeat(101) }, 'Validation Failed'],
  ] as const)('%j is `%s`', (body, message) => {
    expect(messageOf(decodeApiKeyIssue(body))).toBe(message);
  });

  it('accepts the limits exactly', () => {
    const tooMany = Array.from(
      { length: apiKeyLimits.maxIpWhitelist + 1 },
      (_, i) => `10.0.0.${i}`,
    );
    expect(messageOf(decodeApiKeyIssue({ permissions, ip_whitelist: tooMany }))).toBe(
      'Validation Failed',
    );
    expect(E.isRight(decodeApiKeyIssue({ permissions, ip_whitelist: tooMany.slice(0, 100) }))).toBe(
      true,
    );
    expect(E.isRight(decodeApiKeyIssue({ permissions, expires_in_seconds: 31_536_000 }))).toBe(
      true,
    );
    expect(E.isRight(decodeApiKeyIssue({ permissions, name: 'x'.repeat(100) }))).toBe(true);
  });

  it('`is` holds for decoded values only', () => {
    const decoded = decodeApiKeyIssue({ permissions });
    expect(E.isRight(decoded) && ApiKeyIssueRequest.is(decoded.right)).toBe(true);
    expect(ApiKeyIssueRequest.is({ permissions })).toBe(false);
  });
});

describe('api key update', () => {
  it('decodes active and disabled', () => {
    expect(decodeApiKeyUpdate({ status: 'disabled' })).toEqual(E.right({ status: 'disabled' }));
    expect(decodeApiKeyUpdate({ status: 'active' })).toEqual(E.right({ status: 'active' }));
  });

  it('no status is `no changes`; another status is `invalid status`', () => {
    expect(messageOf(decodeApiKeyUpdate({}))).toBe('no changes');
    expect(messageOf(decodeApiKeyUpdate({ status: null }))).toBe('no changes');
    expect(messageOf(decodeApiKeyUpdate({ status: 'deleted' }))).toBe('invalid status');
    expect(messageOf(decodeApiKeyUpdate({ status: 1 }))).toBe('invalid status');
    expect(messageOf(decodeApiKeyUpdate(undefined))).toBe('request required');
  });
});

describe('account credit', () => {
  it('decodes a positive amount at the currency scale', () => {
    expect(decodeAccountCredit({ currency: 'USD', amount: '100.50' })).toEqual(
      E.right({ currency: 'USD', amount: '100.50' }),
    );
    expect(decodeAccountCredit({ currency: 'USDT', amount: '0.000001' })).toEqual(
      E.right({ currency: 'USDT', amount: '0.000001' }),
    );
  });

  it.each(notObjects)('%j is `request required`', (body) => {
    expect(messageOf(decodeAccountCredit(body))).toBe('request required');
  });

  it.each([
    [{}, 'currency required'],
    [{ currency: ' ', amount: 'x' }, 'currency required'],
    [{ currency: 'USD' }, 'amount required'],
    [{ currency: 'EUR', amount: '1' }, 'currency not supported'],
    [
      { currency: 'USD', amount: '1.001' },
      'amount must be a decimal string with at most 2 decimal places',
    ],
    [
      { currency: 'USD', amount: 10 },
      'amount must be a decimal string with at most 2 decimal places',
    ],
    [
      { currency: 'USD', amount: '1e3' },
      'amount must be a decimal string with at most 2 decimal places',
    ],
    [{ currency: 'USD', amount: '0' }, 'amount must be greater than zero'],
    [{ currency: 'USD', amount: '-5' }, 'amount must be greater than zero'],
    [
      { currency: 'USD', amount: '1'.repeat(25) },
      'amount must have at most 24 digits before the decimal point',
    ],
  ] as const)('%j is `%s`', (body, message) => {
    expect(messageOf(decodeAccountCredit(body))).toBe(message);
  });
});

describe('sandbox clock advance', () => {
  it('decodes a whole number of seconds, zero included', () => {
    expect(decodeSandboxClockAdvance({ seconds: 1800 })).toEqual(E.right({ seconds: 1800 }));
    expect(decodeSandboxClockAdvance({ seconds: 0, other: 1 })).toEqual(E.right({ seconds: 0 }));
  });

  it.each([undefined, null, 'x', 1])('%j is `request required`', (body) => {
    expect(messageOf(decodeSandboxClockAdvance(body))).toBe('request required');
  });

  it.each([
    [{}, 'seconds required'],
    [{ seconds: null }, 'seconds required'],
    [{ seconds: -1 }, 'seconds must be between 0 and 2592000'],
    [{ seconds: 1.5 }, 'Validation Failed'],
    [{ seconds: '60' }, 'Validation Failed'],
    [{ seconds: ' ' }, 'Validation Failed'],
  ] as const)('%j is `%s`', (body, message) => {
    expect(messageOf(decodeSandboxClockAdvance(body))).toBe(message);
  });

  it('the sandbox clock can be advanced far enough to expire every key: no more than 30 days at once (issue 12, finding 6)', () => {
    expect(decodeSandboxClockAdvance({ seconds: 2_592_000 })).toEqual(
      E.right({ seconds: 2_592_000 }),
    );
    for (const seconds of [2_592_001, 31_536_001, Number.MAX_SAFE_INTEGER]) {
      expect(messageOf(decodeSandboxClockAdvance({ seconds }))).toBe(
        'seconds must be between 0 and 2592000',
      );
    }
    expect(messageOf(decodeSandboxClockAdvance({ seconds: 1e300 }))).toBe('Validation Failed');
  });
});
