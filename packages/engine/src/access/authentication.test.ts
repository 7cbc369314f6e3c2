import type { ApiKeyRecord } from '@payrail/core';
import { SignJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type AccessHarness,
  accessHarness,
  failureOf,
  merchantWithKey,
  rightOf,
  testKeySecret,
  testNow,
} from './access.test-support.js';
import { signApiKeyToken } from './api-key-token.crypto.js';

const ip = '203.0.113.10';
const unauthorized = { message: 'unauthorized', httpStatus: 401, code: 61 };
const invalidToken = { message: 'invalid api key token', httpStatus: 401, code: 61 };
const notFound = { message: 'api key not found', httpStatus: 401, code: 61 };
const thirtyDays = 30 * 24 * 60 * 60;

let h: AccessHarness;
let m: Awaited<ReturnType<typeof merchantWithKey>>;

const authenticate = (token: string | undefined, from = ip) =>
  h.access.auth.authenticate({ token, ip: from });

/** A token for `record` as the service would sign it, with `overrides` on its claims. */
const tokenFor = (key: ApiKeyRecord, overrides: Partial<Parameters<typeof signApiKeyToken>[1]>) =>
  signApiKeyToken(testKeySecret, {
    key_id: key.key_id,
    merchant_id: key.merchant_id,
    account_id: key.account_id,
    env: key.env,
    ver: key.key_version,
    iat: testNow,
    ...overrides,
  });

const storedKey = (keyId: string) =>
  h.store.transaction(async (tx) => {
    const key = await tx.apiKeys.get(keyId);
    if (key === undefined) throw new Error('no key');
    return key;
  });

beforeEach(async () => {
  h = accessHarness();
  m = await merchantWithKey(h, {
    permissions: ['payment.account.read', 'payment.wallet.read'],
    name: 'erp',
  });
});

describe('a key that checks out', () => {
  it('answers the caller: merchant, account, key, permissions and environment', async () => {
    expect(rightOf(await authenticate(m.token))).toEqual({
      merchant_id: m.merchantId,
      account_id: m.accountId,
      key_id: m.keyId,
      permissions: ['payment.account.read', 'payment.wallet.read'],
      env: 'sandbox',
      // The account as the key check read it, which the request's reads check (ADR 0054).
      account: expect.objectContaining({ account_id: m.accountId, status: 'active' }),
    });
  });

  it('is valid until the second before expires_at (default: issued + 30 days)', async () => {
    h.clock.advance(thirtyDays - 1);
    expect(rightOf(await authenticate(m.token)).key_id).toBe(m.keyId);
  });
});

describe('unauthorized: no token, or not a JWT at all', () => {
  it.each([undefined, '', '   ', 'sk_live_123', 'Bearer abc', 'a.b', 'a.b.c.d'])(
    '%j',
    async (token) => {
      expect(failureOf(await authenticate(token))).toEqual(unauthorized);
    },
  );

  it('a JWT whose payload is not a JSON object', async () => {
    const [header, , signature] = m.token.split('.');
    const payload = Buffer.from('"text"').toString('base64url');
    expect(failureOf(await authenticate(`${header}.${payload}.${signature}`))).toEqual(
      unauthorized,
    );
  });
});

describe('invalid api key token: a JWT that is not ours', () => {
  it('signed with another secret', async () => {
    const key = await storedKey(m.keyId);
    const forged = await signApiKeyToken(new Uint8Array(32).fill(9), {
      key_id: key.key_id,
      merchant_id: key.merchant_id,
      account_id: key.account_id,
      env: 'sandbox',
      ver: 1,
      iat: testNow,
    });
    expect(failureOf(await authenticate(forged))).toEqual(invalidToken);
  });

  it('with its signature cut off or its payload changed', async () => {
    const [header, payload] = m.token.split('.');
    expect(failureOf(await authenticate(`${header}.${payload}.`))).toEqual(invalidToken);
    const changed = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()), ver: 2 }),
    ).toString('base64url');
    const signature = m.token.split('.')[2];
    expect(failureOf(await authenticate(`${header}.${changed}.${signature}`))).toEqual(
      invalidToken,
    );
  });

  it('signed with our secret but missing claims', async () => {
    const token = await new SignJWT({ sub: m.keyId })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('payrail')
      .setIssuedAt(testNow)
      .sign(testKeySecret);
    expect(failureOf(await authenticate(token))).toEqual(invalidToken);
  });

  it('naming another merchant or account than its key record', async () => {
    const key = await storedKey(m.keyId);
    expect(failureOf(await authenticate(await tokenFor(key, { account_id: 'acc_9999' })))).toEqual(
      invalidToken,
    );
    expect(failureOf(await authenticate(await tokenFor(key, { merchant_id: 'mch_9999' })))).toEqual(
      invalidToken,
    );
  });
});

describe('api key not found', () => {
  it('for a well-signed token naming no key record', async () => {
    const key = await storedKey(m.keyId);
    expect(failureOf(await authenticate(await tokenFor(key, { key_id: 'key_9999' })))).toEqual(
      notFound,
    );
  });

  it('for a deleted key', async () => {
    rightOf(await h.access.admin.deleteApiKey(m.keyId));
    expect(failureOf(await authenticate(m.token))).toEqual(notFound);
  });

  it('for a key of the other environment, on either side', async () => {
    const { api_key } = rightOf(
      await h.access.admin.issueApiKey(m.accountId, {
        permissions: ['payment.account.read'],
        env: 'live',
      }),
    ) as { api_key: { token: string } };
    expect(failureOf(await authenticate(api_key.token))).toEqual(notFound);

    const live = accessHarness({ environment: 'live' });
    expect(failureOf(await live.access.auth.authenticate({ token: m.token, ip }))).toEqual(
      notFound,
    );
  });

  it('for a token claiming the other environment of a sandbox key', async () => {
    const key = await storedKey(m.keyId);
    expect(failureOf(await authenticate(await tokenFor(key, { env: 'live' })))).toEqual(notFound);
  });
});

describe('the key record decides', () => {
  it('api key disabled, and usable again once enabled', async () => {
    rightOf(await h.access.admin.updateApiKey(m.keyId, { status: 'disabled' }));
    expect(failureOf(await authenticate(m.token))).toEqual({
      message: 'api key disabled',
      httpStatus: 401,
      code: 61,
    });
    rightOf(await h.access.admin.updateApiKey(m.keyId, { status: 'active' }));
    expect(rightOf(await authenticate(m.token)).key_id).toBe(m.keyId);
  });

  it('api key expired from expires_at on', async () => {
    h.clock.advance(thirtyDays);
    expect(failureOf(await authenticate(m.token))).toEqual({
      message: 'api key expired',
      httpStatus: 401,
      code: 61,
    });
  });

  it('a custom lifetime', async () => {
    const { api_key } = rightOf(
      await h.access.admin.issueApiKey(m.accountId, {
        permissions: ['payment.account.read'],
        expires_in_seconds: 3600,
      }),
    ) as { api_key: { token: string; expires_at: number } };
    expect(api_key.expires_at).toBe(testNow + 3600);
    h.clock.advance(3599);
    expect(rightOf(await authenticate(api_key.token)).account_id).toBe(m.accountId);
    h.clock.advance(1);
    expect(failureOf(await authenticate(api_key.token)).message).toBe('api key expired');
  });

  it('api key version mismatch for the token before a rotation; the new one works', async () => {
    const { api_key } = rightOf(await h.access.admin.rotateApiKey(m.keyId)) as {
      api_key: { token: string; version: number };
    };
    expect(api_key.version).toBe(2);
    expect(failureOf(await authenticate(m.token))).toEqual({
      message: 'api key version mismatch',
      httpStatus: 401,
      code: 61,
    });
    expect(rightOf(await authenticate(api_key.token)).key_id).toBe(m.keyId);
    rightOf(await h.access.admin.rotateApiKey(m.keyId));
    expect(failureOf(await authenticate(api_key.token)).message).toBe('api key version mismatch');
  });
});

describe('the account decides', () => {
  it('account not found when the key names an account that does not exist', async () => {
    const key = await storedKey(m.keyId);
    await h.store.transaction((tx) =>
      tx.apiKeys.insert({
        ...key,
        key_id: 'key_orphan',
        account_id: 'acc_gone',
        created_at: testNow,
        updated_at: testNow,
      }),
    );
    const token = await tokenFor(
      { ...key, key_id: 'key_orphan', account_id: 'acc_gone' },
      { ver: 1 },
    );
    expect(failureOf(await authenticate(token))).toEqual({
      message: 'account not found',
      httpStatus: 401,
      code: 61,
    });
  });

  it('account frozen, and usable again once active', async () => {
    rightOf(await h.access.admin.updateAccount(m.accountId, { status: 'frozen' }));
    expect(failureOf(await authenticate(m.token))).toEqual({
      message: 'account frozen',
      httpStatus: 403,
      code: 61,
    });
    rightOf(await h.access.admin.updateAccount(m.accountId, { status: 'active' }));
    expect(rightOf(await authenticate(m.token)).account_id).toBe(m.accountId);
  });
});

describe('ip whitelist', () => {
  let token: string;
  beforeEach(async () => {
    const { api_key } = rightOf(
      await h.access.admin.issueApiKey(m.accountId, {
        permissions: ['payment.account.read'],
        ip_whitelist: ['198.51.100.0/24', '2001:db8::7'],
      }),
    ) as { api_key: { token: string } };
    token = api_key.token;
  });

  it.each(['198.51.100.1', '198.51.100.255', '::ffff:198.51.100.9', '2001:db8:0::7'])(
    'admits %s',
    async (from) => {
      expect(rightOf(await authenticate(token, from)).account_id).toBe(m.accountId);
    },
  );

  it.each(['198.51.101.1', '10.0.0.1', '2001:db8::8', '::1'])(
    'refuses %s with the address seen',
    async (from) => {
      expect(failureOf(await authenticate(token, from))).toEqual({
        message: `ip not allowed: ${from}`,
        httpStatus: 403,
        code: 61,
      });
    },
  );

  it('refuses an address that is not an IP address without echoing it', async () => {
    expect(failureOf(await authenticate(token, 'unknown'))).toEqual({
      message: 'ip not allowed',
      httpStatus: 403,
      code: 61,
    });
    expect(failureOf(await authenticate(token, '')).message).toBe('ip not allowed');
  });

  it('a key without a whitelist admits any address', async () => {
    expect(rightOf(await authenticate(m.token, 'unknown')).key_id).toBe(m.keyId);
  });
});

describe('order of the checks', () => {
  const issue = async (body: Record<string, unknown>) =>
    (
      rightOf(
        await h.access.admin.issueApiKey(m.accountId, {
          permissions: ['payment.account.read'],
          ...body,
        }),
      ) as { api_key: { key_id: string; token: string } }
    ).api_key;

  it('disabled before expired before version mismatch', async () => {
    const key = await issue({ expires_in_seconds: 60 });
    rightOf(await h.access.admin.rotateApiKey(key.key_id));
    h.clock.advance(60);
    expect(failureOf(await authenticate(key.token)).message).toBe('api key expired');
    rightOf(await h.access.admin.updateApiKey(key.key_id, { status: 'disabled' }));
    expect(failureOf(await authenticate(key.token)).message).toBe('api key disabled');
    rightOf(await h.access.admin.deleteApiKey(key.key_id));
    expect(failureOf(await authenticate(key.token)).message).toBe('api key not found');
  });

  it('every 401 before the 403s: a rotated key from a refused address of a frozen account', async () => {
    const key = await issue({ ip_whitelist: ['198.51.100.1'] });
    rightOf(await h.access.admin.updateAccount(m.accountId, { status: 'frozen' }));
    expect(failureOf(await authenticate(key.token, '10.0.0.1')).message).toBe(
      'ip not allowed: 10.0.0.1',
    );
    rightOf(await h.access.admin.rotateApiKey(key.key_id));
    expect(failureOf(await authenticate(key.token, '10.0.0.1')).message).toBe(
      'api key version mismatch',
    );
  });

  it('a forged token for a deleted key is invalid before it is unknown', async () => {
    rightOf(await h.access.admin.deleteApiKey(m.keyId));
    const key = await storedKey(m.keyId);
    const forged = await signApiKeyToken(new Uint8Array(32).fill(1), {
      key_id: key.key_id,
      merchant_id: key.merchant_id,
      account_id: key.account_id,
      env: 'sandbox',
      ver: 1,
      iat: testNow,
    });
    expect(failureOf(await authenticate(forged)).message).toBe('invalid api key token');
  });
});
