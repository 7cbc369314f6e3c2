/**
 * A memory store, a test clock fixed at `testNow`, counting ids and a known key secret, with the
 * access use cases over them; plus a merchant with a key, made through the admin use cases.
 */
import type { IdGenerator, PayrailError } from '@payrail/core';
import { createMemoryStore } from '@payrail/store-memory';
import { memoryOracle } from '@payrail/store-memory/testing';
import * as E from 'fp-ts/lib/Either.js';
import type { Outcome } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import { adjustableClock, type EngineDeps, type EngineSettings } from '../engine.deps.js';
import { accessUseCases } from './access.use-cases.js';

export const testNow = 1_800_000_000;
export const testKeySecret = new Uint8Array(32).fill(7);

/** `<prefix>_0001`, `<prefix>_0002`, ... per prefix. */
const countingIds = (): IdGenerator => {
  const counts = new Map<string, number>();
  return {
    next: (prefix) => {
      const n = (counts.get(prefix) ?? 0) + 1;
      counts.set(prefix, n);
      return `${prefix}_${String(n).padStart(4, '0')}`;
    },
  };
};

export const accessHarness = (settings: Partial<EngineSettings> = {}) => {
  const store = createMemoryStore();
  const clock = adjustableClock({ now: () => testNow });
  const deps: EngineDeps = {
    store,
    clock,
    ids: countingIds(),
    settings: {
      environment: 'sandbox',
      checkoutBaseUrl: 'https://pay.example/checkout',
      allowInsecureWebhooks: false,
      keySecret: testKeySecret,
      ...settings,
    },
  };
  return { store, oracle: memoryOracle(store), clock, deps, access: accessUseCases(deps) };
};

export type AccessHarness = ReturnType<typeof accessHarness>;

export const rightOf = <T>(outcome: Outcome<T>): T => {
  if (E.isLeft(outcome)) throw new Error(`expected success, got "${outcome.left.message}"`);
  return outcome.right;
};

const leftOf = <T>(outcome: Outcome<T>): PayrailError => {
  if (E.isRight(outcome))
    throw new Error(`expected an error, got ${JSON.stringify(outcome.right)}`);
  return outcome.left;
};

/** What a merchant notices of an error: the envelope's message and the HTTP status and code. */
export const failureOf = <T>(outcome: Outcome<T>) => {
  const { message, httpStatus, code } = leftOf(outcome);
  return { message, httpStatus, code };
};

/** A merchant (admin create) and one key of it, authenticated as a `Caller`. */
export const merchantWithKey = async (
  h: AccessHarness,
  key: Readonly<Record<string, unknown>> = { permissions: ['payment.account.read'] },
  name = 'Acme',
) => {
  const { merchant } = rightOf(await h.access.admin.createMerchant({ name }));
  const { api_key } = rightOf(await h.access.admin.issueApiKey(merchant.account_id, key));
  const caller: Caller = rightOf(
    await h.access.auth.authenticate({ token: api_key.token, ip: '203.0.113.10' }),
  );
  return {
    merchantId: merchant.merchant_id,
    accountId: merchant.account_id,
    keyId: api_key.key_id,
    token: api_key.token,
    caller,
  };
};

/** A caller holding `permissions` on an account, as authentication would answer. */
export const callerOf = (
  merchant: { readonly merchantId: string; readonly accountId: string },
  permissions: readonly string[],
): Caller => ({
  merchant_id: merchant.merchantId,
  account_id: merchant.accountId,
  key_id: 'key_test',
  permissions,
  env: 'sandbox',
});
