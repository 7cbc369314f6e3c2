/**
 * Every authentication failure of the interface, through HTTP, on the real engine (memory store
 * and PostgreSQL): the exact message, 401 or 403, code 61, data null.
 */
import { describe, expect, it } from 'vitest';
import {
  engineApp as engineAppOn,
  type HarnessOptions,
  operatorToken,
  refusalOf,
} from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

const refused = (status: number, message: string) => ({ status, code: 61, message, data: null });

describe.each(storesUnderTest)('authentication through HTTP (real engine, $name)', (under) => {
  const engineApp = async (options: HarnessOptions = {}) =>
    engineAppOn({ ...options, store: await under.open() });

  it('accepts a key as Bearer and as X-API-Key', async () => {
    const h = await engineApp();
    const a = await h.merchant('Acme');
    expect((await h.as(a.token).get('/payment/account')).body).toMatchObject({
      code: 0,
      data: { account: { account_id: a.accountId, merchant_id: a.merchantId } },
    });
    const viaHeader = await h.call('GET', '/payment/account', { 'X-API-Key': a.token });
    expect(viaHeader.status).toBe(200);
  });

  it('answers 401 `unauthorized` for a missing or malformed credential', async () => {
    const h = await engineApp();
    const a = await h.merchant('Acme');
    for (const headers of [
      {},
      { Authorization: 'Bearer' },
      { Authorization: `Basic ${a.token}` },
      { Authorization: 'Bearer not-a-jwt' },
      { 'X-API-Key': 'not.a.jwt' },
    ]) {
      expect(refusalOf(await h.call('GET', '/payment/account', headers))).toEqual(
        refused(401, 'unauthorized'),
      );
    }
  });

  it('answers 401 `invalid api key token` for a bad signature', async () => {
    const h = await engineApp();
    const a = await h.merchant('Acme');
    const [header, payload, signature = ''] = a.token.split('.');
    const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    expect(
      refusalOf(await h.as(`${header}.${payload}.${flipped}`).get('/payment/account')),
    ).toEqual(refused(401, 'invalid api key token'));
    // A token signed with another service's secret.
    const other = await engineApp({ keySecret: new Uint8Array(32).fill(1) });
    const stranger = await other.merchant('Acme');
    expect(refusalOf(await h.as(stranger.token).get('/payment/account'))).toEqual(
      refused(401, 'invalid api key token'),
    );
  });

  it('answers 401 `api key expired` once the key expired', async () => {
    const h = await engineApp();
    const a = await h.merchant('Acme', {
      permissions: ['payment.account.read'],
      expires_in_seconds: 60,
    });
    expect((await h.as(a.token).get('/payment/account')).status).toBe(200);
    await h.admin('POST', '/admin/sandbox/clock/advance', { seconds: 60 });
    expect(refusalOf(await h.as(a.token).get('/payment/account'))).toEqual(
      refused(401, 'api key expired'),
    );
  });

  it('answers 401 `api key disabled` while the key is disabled', async () => {
    const h = await engineApp();
    const a = await h.merchant('Acme');
    await h.admin('PATCH', `/admin/api-keys/${a.keyId}`, { status: 'disabled' });
    expect(refusalOf(await h.as(a.token).get('/payment/account'))).toEqual(
      refused(401, 'api key disabled'),
    );
    await h.admin('PATCH', `/admin/api-keys/${a.keyId}`, { status: 'active' });
    expect((await h.as(a.token).get('/payment/account')).status).toBe(200);
  });

  it('answers 401 `api key version mismatch` for the token of a rotated key', async () => {
    const h = await engineApp();
    const a = await h.merchant('Acme');
    const { api_key } = await h.admin('POST', `/admin/api-keys/${a.keyId}/rotate`);
    expect(refusalOf(await h.as(a.token).get('/payment/account'))).toEqual(
      refused(401, 'api key version mismatch'),
    );
    expect((await h.as(api_key.token).get('/payment/account')).status).toBe(200);
  });

  it('answers 401 `api key not found` for a deleted key and for a key of the other environment', async () => {
    const h = await engineApp();
    const a = await h.merchant('Acme');
    await h.admin('DELETE', `/admin/api-keys/${a.keyId}`);
    expect(refusalOf(await h.as(a.token).get('/payment/account'))).toEqual(
      refused(401, 'api key not found'),
    );
    // The same secret, the live environment: its keys are not this sandbox's.
    const secret = new Uint8Array(32).fill(4);
    const live = await engineApp({ environment: 'live', keySecret: secret });
    const liveKey = await live.merchant('Acme');
    const sandbox = await engineApp({ keySecret: secret });
    expect(refusalOf(await sandbox.as(liveKey.token).get('/payment/account'))).toEqual(
      refused(401, 'api key not found'),
    );
    expect((await live.as(liveKey.token).get('/payment/account')).status).toBe(200);
  });

  it('answers 403 `ip not allowed: <ip>` with the socket address outside the whitelist', async () => {
    const h = await engineApp();
    const a = await h.merchant('Acme', {
      permissions: ['payment.account.read'],
      ip_whitelist: ['198.51.100.0/24'],
    });
    const from = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });
    expect(refusalOf(await h.as(a.token).get('/payment/account', from('203.0.113.5')))).toEqual(
      refused(403, 'ip not allowed: 203.0.113.5'),
    );
    expect(
      refusalOf(await h.as(a.token).get('/payment/account', from('::ffff:203.0.113.5'))),
    ).toEqual(refused(403, 'ip not allowed: 203.0.113.5'));
    expect((await h.as(a.token).get('/payment/account', from('198.51.100.7'))).status).toBe(200);
    // Without a socket (app.request), the address is 127.0.0.1.
    expect(refusalOf(await h.as(a.token).get('/payment/account'))).toEqual(
      refused(403, 'ip not allowed: 127.0.0.1'),
    );
  });

  it('reads X-Forwarded-For only from a trusted proxy', async () => {
    const h = await engineApp({ trustedProxies: ['10.0.0.0/8'] });
    const a = await h.merchant('Acme', {
      permissions: ['payment.account.read'],
      ip_whitelist: ['198.51.100.7'],
    });
    const via = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });
    const forwarded = { Authorization: `Bearer ${a.token}`, 'X-Forwarded-For': '198.51.100.7' };
    expect(
      (await h.call('GET', '/payment/account', forwarded, undefined, via('10.0.0.2'))).status,
    ).toBe(200);
    expect(
      refusalOf(await h.call('GET', '/payment/account', forwarded, undefined, via('203.0.113.9'))),
    ).toEqual(refused(403, 'ip not allowed: 203.0.113.9'));
  });

  it('answers 403 `account frozen` while the account is frozen', async () => {
    const h = await engineApp();
    const a = await h.merchant('Acme');
    await h.admin('PATCH', `/admin/accounts/${a.accountId}`, { status: 'frozen' });
    expect(refusalOf(await h.as(a.token).get('/payment/account'))).toEqual(
      refused(403, 'account frozen'),
    );
  });

  it('answers 403 `forbidden` for a missing permission and for a product not enabled', async () => {
    const h = await engineApp();
    await h.seedCatalogue();
    const a = await h.merchant('Acme', { permissions: ['payment.account.read'] });
    expect(refusalOf(await h.as(a.token).get('/payment/payouts'))).toEqual(
      refused(403, 'forbidden'),
    );
    expect(refusalOf(await h.as(a.token).get('/payment/balances'))).toEqual(
      refused(403, 'forbidden'),
    );
    const full = await h.merchant('Bmart');
    await h.admin('PATCH', `/admin/accounts/${full.accountId}`, {
      products: { payout: false, acquiring: true },
    });
    expect(refusalOf(await h.as(full.token).get('/payment/payouts'))).toEqual(
      refused(403, 'forbidden'),
    );
  });

  it('keeps the operator token and merchant keys apart', async () => {
    const h = await engineApp();
    const a = await h.merchant('Acme');
    expect(refusalOf(await h.as(operatorToken).get('/payment/account'))).toEqual(
      refused(401, 'unauthorized'),
    );
    expect(refusalOf(await h.as(a.token).post('/admin/merchants', { name: 'x' }))).toEqual(
      refused(401, 'unauthorized'),
    );
  });
});
