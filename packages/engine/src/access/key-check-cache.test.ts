import type { AccountRecord, ApiKeyRecord } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { accessHarness, failureOf, merchantWithKey, rightOf } from './access.test-support.js';
import { accessUseCases } from './access.use-cases.js';
import { createKeyCheckCache } from './key-check.cache.js';

const ip = '203.0.113.10';

describe('createKeyCheckCache', () => {
  const key = { key_id: 'key_1', account_id: 'acc_1' } as ApiKeyRecord;
  const account = { account_id: 'acc_1' } as AccountRecord;

  it('serves a key for less than ttlMs, then reads again', () => {
    let ms = 0;
    const cache = createKeyCheckCache({ ttlMs: 1000, nowMs: () => ms });
    cache.rememberRecords('key_1', { key, account });
    ms = 999;
    expect(cache.recordsOf('key_1')?.key).toBe(key);
    ms = 1000;
    expect(cache.recordsOf('key_1')).toBeUndefined();
  });

  it('forgets a key, or every key of an account, at once', () => {
    const cache = createKeyCheckCache({ ttlMs: 1000, nowMs: () => 0 });
    cache.rememberRecords('key_1', { key, account });
    cache.rememberRecords('key_2', { key: { ...key, key_id: 'key_2' }, account });
    cache.forgetKey('key_1');
    expect(cache.recordsOf('key_1')).toBeUndefined();
    expect(cache.recordsOf('key_2')).toBeDefined();
    cache.forgetAccount('acc_1');
    expect(cache.recordsOf('key_2')).toBeUndefined();
  });

  it('keeps nothing with ttlMs 0, and at most maxEntries of each kind', () => {
    const off = createKeyCheckCache({ ttlMs: 0 });
    off.rememberRecords('key_1', { key, account });
    expect(off.recordsOf('key_1')).toBeUndefined();
    const small = createKeyCheckCache({ ttlMs: 1000, nowMs: () => 0, maxEntries: 2 });
    for (const id of ['key_1', 'key_2', 'key_3']) small.rememberRecords(id, { key, account });
    expect([small.recordsOf('key_1'), small.recordsOf('key_3')]).toEqual([
      undefined,
      expect.objectContaining({ key }),
    ]);
  });
});

describe('the key check on two engines over one store (two processes)', () => {
  it('a change made by the other process applies here once keyCheckCacheMs has passed', async () => {
    const h = accessHarness({ keyCheckCacheMs: 40 });
    const m = await merchantWithKey(h, { permissions: ['payment.account.read'], name: 'erp' });
    const elsewhere = accessUseCases(h.deps);
    expect(E.isRight(await h.access.auth.authenticate({ token: m.token, ip }))).toBe(true);

    rightOf(await elsewhere.admin.updateApiKey(m.keyId, { status: 'disabled' }));
    // The other process's change is not seen while this process's read is fresh...
    expect(E.isRight(await h.access.auth.authenticate({ token: m.token, ip }))).toBe(true);
    // ...nor once it is older than keyCheckCacheMs; in the process that made it, at once.
    expect(failureOf(await elsewhere.auth.authenticate({ token: m.token, ip })).message).toBe(
      'api key disabled',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(failureOf(await h.access.auth.authenticate({ token: m.token, ip })).message).toBe(
      'api key disabled',
    );
  });

  it('with keyCheckCacheMs 0 every request reads the store', async () => {
    const h = accessHarness({ keyCheckCacheMs: 0 });
    const m = await merchantWithKey(h, { permissions: ['payment.account.read'], name: 'erp' });
    const elsewhere = accessUseCases(h.deps);
    expect(E.isRight(await h.access.auth.authenticate({ token: m.token, ip }))).toBe(true);
    rightOf(await elsewhere.admin.updateAccount(m.accountId, { status: 'frozen' }));
    expect(failureOf(await h.access.auth.authenticate({ token: m.token, ip })).message).toBe(
      'account frozen',
    );
  });

  it("answers the caller's account from the key check's fresh read, and the store's after", async () => {
    const h = accessHarness({ keyCheckCacheMs: 40 });
    const m = await merchantWithKey(h, { permissions: ['payment.account.read'], name: 'erp' });
    const elsewhere = accessUseCases(h.deps);
    const caller = rightOf(await h.access.auth.authenticate({ token: m.token, ip }));
    rightOf(await elsewhere.admin.updateAccount(m.accountId, { auto_approve: true }));
    expect(rightOf(await h.access.accounts.current(caller)).account.auto_approve).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const later = rightOf(await h.access.auth.authenticate({ token: m.token, ip }));
    expect(rightOf(await h.access.accounts.current(later)).account.auto_approve).toBe(true);
    // A change made through this engine is seen at once.
    rightOf(await h.access.admin.updateAccount(m.accountId, { auto_approve: false }));
    const again = rightOf(await h.access.auth.authenticate({ token: m.token, ip }));
    expect(rightOf(await h.access.accounts.current(again)).account.auto_approve).toBe(false);
  });
});
