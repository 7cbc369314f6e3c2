import { payTokenIds } from '@payrail/core';
import { decodeJwt } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type AccessHarness,
  accessHarness,
  failureOf,
  rightOf,
  testKeySecret,
  testNow,
} from './access.test-support.js';
import { openSecret } from './secrets-at-rest.crypto.js';

const whsec = /^whsec_[A-Za-z0-9+/]{32}$/;
const thirtyDays = 30 * 24 * 60 * 60;

let h: AccessHarness;
beforeEach(() => {
  h = accessHarness();
});

const createAcme = async (body: Record<string, unknown> = { name: 'Acme' }) =>
  rightOf(await h.access.admin.createMerchant(body));

const issue = async (accountId: string, body: Record<string, unknown>) =>
  rightOf(await h.access.admin.issueApiKey(accountId, body));

describe('createMerchant', () => {
  it('creates a merchant and its first account, with the notify secret shown once', async () => {
    const data = await createAcme();
    expect(data.merchant).toEqual({
      merchant_id: 'mch_0001',
      account_id: 'acc_0001',
      name: 'Acme',
      status: 'active',
      currencies: ['USD', 'USDT', 'USDC'],
      notify_secret: expect.stringMatching(whsec),
      created_at: testNow,
      updated_at: testNow,
    });
    expect(data.account).toEqual({
      merchant_id: 'mch_0001',
      account_id: 'acc_0001',
      status: 'active',
      currencies: ['USD', 'USDT', 'USDC'],
      verification_enabled: false,
      auto_approve: false,
      products: { payout: true, acquiring: true },
      enabled_pay_tokens: [...payTokenIds],
      default_pay_tokens: ['TRON_USDT', 'ETH_USDC'],
      created_at: testNow,
      updated_at: testNow,
    });
    const stored = (await h.oracle.record('accounts', 'acc_0001')) as { notify_secret: string };
    expect(openSecret(testKeySecret, stored.notify_secret)).toBe(data.merchant.notify_secret);
  });

  it('gives each merchant its own secret', async () => {
    const a = await createAcme();
    const b = await createAcme({ name: 'Beta' });
    expect(a.merchant.notify_secret).not.toBe(b.merchant.notify_secret);
  });

  it('enables only the pay tokens of the currencies asked for', async () => {
    const { account } = await createAcme({ name: 'Fiat', currencies: ['USD', 'USDT'] });
    expect(account.enabled_pay_tokens).toEqual(payTokenIds.filter((id) => id.endsWith('_USDT')));
    expect(account.default_pay_tokens).toEqual(['TRON_USDT']);
    const fiat = await createAcme({ name: 'Fiat', currencies: ['USD'] });
    expect(fiat.account.enabled_pay_tokens).toEqual([]);
    expect(fiat.account.default_pay_tokens).toEqual([]);
  });

  it('enables no pay token in live', async () => {
    h = accessHarness({ environment: 'live' });
    const { account } = await createAcme();
    expect(account.enabled_pay_tokens).toEqual([]);
    expect(account.default_pay_tokens).toEqual([]);
  });

  it('answers the codec errors and stores nothing', async () => {
    expect(failureOf(await h.access.admin.createMerchant({}))).toEqual({
      message: 'name required',
      httpStatus: 400,
      code: 51,
    });
    expect(failureOf(await h.access.admin.createMerchant(undefined)).message).toBe(
      'request required',
    );
    expect(await h.oracle.count('merchants')).toBe(0);
  });
});

describe('updateAccount', () => {
  it('changes the settings sent and keeps the others', async () => {
    const { merchant } = await createAcme();
    h.clock.advance(5);
    const data = rightOf(
      await h.access.admin.updateAccount(merchant.account_id, {
        verification_enabled: true,
        products: { acquiring: false },
        enabled_pay_tokens: ['TRON_USDT', 'ETH_USDT'],
        default_pay_tokens: ['ETH_USDT'],
      }),
    );
    expect(data.account).toMatchObject({
      status: 'active',
      verification_enabled: true,
      auto_approve: false,
      products: { payout: true, acquiring: false },
      enabled_pay_tokens: ['TRON_USDT', 'ETH_USDT'],
      default_pay_tokens: ['ETH_USDT'],
      updated_at: testNow + 5,
    });
    expect(data.account).not.toHaveProperty('notify_secret');
  });

  it('no changes when nothing differs', async () => {
    const { merchant } = await createAcme();
    for (const body of [{}, { status: 'active' }, { products: { payout: true } }]) {
      expect(failureOf(await h.access.admin.updateAccount(merchant.account_id, body))).toEqual({
        message: 'no changes',
        httpStatus: 400,
        code: 53,
      });
    }
  });

  it('a default pay token must be enabled', async () => {
    const { merchant } = await createAcme();
    expect(
      failureOf(
        await h.access.admin.updateAccount(merchant.account_id, {
          enabled_pay_tokens: ['TRON_USDT'],
          default_pay_tokens: ['ETH_USDC'],
        }),
      ).message,
    ).toBe('unsupported network/currency: ETH/USDC');
    rightOf(
      await h.access.admin.updateAccount(merchant.account_id, {
        enabled_pay_tokens: ['TRON_USDT'],
      }),
    );
    expect(
      failureOf(
        await h.access.admin.updateAccount(merchant.account_id, {
          default_pay_tokens: ['ETH_USDT'],
        }),
      ).message,
    ).toBe('unsupported network/currency: ETH/USDT');
  });

  it('an unknown account in the path is 404 `account_id not found`', async () => {
    expect(failureOf(await h.access.admin.updateAccount('acc_nope', { status: 'frozen' }))).toEqual(
      { message: 'account_id not found', httpStatus: 404, code: 65 },
    );
    expect(failureOf(await h.access.admin.updateAccount('acc_nope', { status: 'x' })).message).toBe(
      'invalid status',
    );
  });
});

describe('rotateNotifySecret', () => {
  it('replaces the secret and shows the new one', async () => {
    const { merchant } = await createAcme();
    const data = rightOf(await h.access.admin.rotateNotifySecret(merchant.account_id));
    expect(data).toEqual({
      account: { account_id: merchant.account_id, notify_secret: expect.stringMatching(whsec) },
    });
    expect(data.account.notify_secret).not.toBe(merchant.notify_secret);
    const stored = (await h.oracle.record('accounts', merchant.account_id)) as {
      notify_secret: string;
    };
    expect(openSecret(testKeySecret, stored.notify_secret)).toBe(data.account.notify_secret);
    expect(failureOf(await h.access.admin.rotateNotifySecret('acc_nope')).message).toBe(
      'account_id not found',
    );
  });
});

describe('API keys', () => {
  it('issues a key with its token, once', async () => {
    const { merchant } = await createAcme();
    const { api_key } = await issue(merchant.account_id, {
      permissions: ['payment.account.read', 'payment.ledger.read'],
      name: 'erp',
      ip_whitelist: ['203.0.113.0/24'],
    });
    expect(api_key).toEqual({
      key_id: 'key_0001',
      merchant_id: merchant.merchant_id,
      account_id: merchant.account_id,
      name: 'erp',
      env: 'sandbox',
      permissions: ['payment.account.read', 'payment.ledger.read'],
      version: 1,
      status: 'active',
      ip_whitelist: ['203.0.113.0/24'],
      expires_at: testNow + thirtyDays,
      created_at: testNow,
      updated_at: testNow,
      token: expect.any(String),
    });
    expect(decodeJwt(api_key.token)).toEqual({
      sub: 'key_0001',
      merchant_id: merchant.merchant_id,
      account_id: merchant.account_id,
      env: 'sandbox',
      ver: 1,
      iat: testNow,
      iss: 'payrail',
    });
    const stored = await h.oracle.record('apiKeys', 'key_0001');
    expect(stored).toMatchObject({ key_version: 1, status: 'active' });
    expect(JSON.stringify(stored)).not.toContain(api_key.token);
  });

  it('refuses an unknown permission and an unknown account', async () => {
    const { merchant } = await createAcme();
    expect(
      failureOf(
        await h.access.admin.issueApiKey(merchant.account_id, {
          permissions: ['root'],
        }),
      ),
    ).toEqual({ message: 'Validation Failed', httpStatus: 400, code: 51 });
    expect(
      failureOf(
        await h.access.admin.issueApiKey('acc_nope', {
          permissions: ['payment.account.read'],
        }),
      ).message,
    ).toBe('account_id not found');
  });

  it('lists the keys that are not deleted, newest first, never a token', async () => {
    const { merchant } = await createAcme();
    const first = await issue(merchant.account_id, { permissions: ['payment.account.read'] });
    h.clock.advance(1);
    const second = await issue(merchant.account_id, { permissions: ['payment.wallet.read'] });
    h.clock.advance(1);
    const third = await issue(merchant.account_id, { permissions: ['payment.ledger.read'] });
    rightOf(await h.access.admin.deleteApiKey(second.api_key.key_id));
    const other = await createAcme({ name: 'Other' });
    await issue(other.merchant.account_id, { permissions: ['payment.ledger.read'] });

    const data = rightOf(await h.access.admin.listApiKeys(merchant.account_id));
    expect(data.items.map((key) => key.key_id)).toEqual([
      third.api_key.key_id,
      first.api_key.key_id,
    ]);
    expect(data).toMatchObject({ total: 2, limit: 100, offset: 0 });
    expect(JSON.stringify(data)).not.toContain('token');
    const { token: _, ...view } = first.api_key;
    expect(data.items[1]).toEqual(view);
    expect(failureOf(await h.access.admin.listApiKeys('acc_nope')).message).toBe(
      'account_id not found',
    );
  });

  it('rotates to a new version and token, keeping the expiry', async () => {
    const { merchant } = await createAcme();
    const { api_key } = await issue(merchant.account_id, { permissions: ['payment.account.read'] });
    h.clock.advance(100);
    const rotated = rightOf(await h.access.admin.rotateApiKey(api_key.key_id));
    expect(rotated.api_key).toMatchObject({
      key_id: api_key.key_id,
      version: 2,
      expires_at: api_key.expires_at,
      updated_at: testNow + 100,
    });
    expect(rotated.api_key.token).not.toBe(api_key.token);
    expect(decodeJwt(rotated.api_key.token)).toMatchObject({ ver: 2, iat: testNow + 100 });
  });

  it('disables, enables and deletes; a deleted key is not found', async () => {
    const { merchant } = await createAcme();
    const { api_key } = await issue(merchant.account_id, { permissions: ['payment.account.read'] });
    const disabled = rightOf(
      await h.access.admin.updateApiKey(api_key.key_id, { status: 'disabled' }),
    );
    expect(disabled.api_key.status).toBe('disabled');
    expect(disabled.api_key).not.toHaveProperty('token');
    expect(
      failureOf(
        await h.access.admin.updateApiKey(api_key.key_id, {
          status: 'disabled',
        }),
      ),
    ).toEqual({ message: 'no changes', httpStatus: 400, code: 53 });
    expect(
      failureOf(await h.access.admin.updateApiKey(api_key.key_id, { status: 'deleted' })).message,
    ).toBe('invalid status');

    const deleted = rightOf(await h.access.admin.deleteApiKey(api_key.key_id));
    expect(deleted.api_key.status).toBe('deleted');
    const notFound = { message: 'key_id not found', httpStatus: 404, code: 65 };
    expect(failureOf(await h.access.admin.deleteApiKey(api_key.key_id))).toEqual(notFound);
    expect(failureOf(await h.access.admin.rotateApiKey(api_key.key_id))).toEqual(notFound);
    expect(
      failureOf(await h.access.admin.updateApiKey(api_key.key_id, { status: 'active' })),
    ).toEqual(notFound);
    expect(failureOf(await h.access.admin.rotateApiKey('key_nope'))).toEqual(notFound);
  });
});

describe('credit (sandbox only)', () => {
  it('records a completed deposit and posts it to the available balance', async () => {
    const { merchant } = await createAcme();
    const data = rightOf(
      await h.access.admin.credit(merchant.account_id, {
        currency: 'USD',
        amount: '100.5',
      }),
    );
    expect(data).toEqual({
      deposit: {
        record_id: 'dep_0001',
        currency: 'USD',
        network: 'SANDBOX',
        amount: '100.50',
        status: 'completed',
        tx_hash: null,
        created_at: testNow,
        updated_at: testNow,
      },
      balance: { currency: 'USD', available: '100.50', held: '0.00', total: '100.50' },
    });
    const again = rightOf(
      await h.access.admin.credit(merchant.account_id, {
        currency: 'USD',
        amount: '0.25',
      }),
    );
    expect(again.balance).toEqual({
      currency: 'USD',
      available: '100.75',
      held: '0.00',
      total: '100.75',
    });
    expect(await h.oracle.journalIds()).toEqual(['dep_0001:deposit', 'dep_0002:deposit']);
  });

  it('refuses a currency the account does not hold, and stores nothing', async () => {
    const { merchant } = await createAcme({ name: 'Fiat', currencies: ['USD'] });
    expect(
      failureOf(
        await h.access.admin.credit(merchant.account_id, {
          currency: 'USDT',
          amount: '1',
        }),
      ),
    ).toEqual({ message: 'currency not supported', httpStatus: 400, code: 53 });
    expect(await h.oracle.count('deposits')).toBe(0);
    expect(await h.oracle.journalIds()).toEqual([]);
  });

  it('answers the codec errors, and an unknown account', async () => {
    const { merchant } = await createAcme();
    expect(
      failureOf(
        await h.access.admin.credit(merchant.account_id, {
          currency: 'USD',
          amount: '0',
        }),
      ).message,
    ).toBe('amount must be greater than zero');
    expect(
      failureOf(
        await h.access.admin.credit('acc_nope', {
          currency: 'USD',
          amount: '1',
        }),
      ).message,
    ).toBe('account_id not found');
  });

  it('is forbidden in live', async () => {
    h = accessHarness({ environment: 'live' });
    const { merchant } = await createAcme();
    expect(
      failureOf(
        await h.access.admin.credit(merchant.account_id, {
          currency: 'USD',
          amount: '1',
        }),
      ),
    ).toEqual({ message: 'forbidden', httpStatus: 403, code: 61 });
    expect(await h.oracle.count('deposits')).toBe(0);
  });
});
