/**
 * Fixtures of the acquiring tests: a memory store with a merchant account, its notify webhook and
 * the crypto payout catalogue written straight into the store, a test clock and counting ids.
 */
import {
  type AccountRecord,
  type PayoutMethodRecord,
  type PayoutRouteRecord,
  type PayrailError,
  payTokenIds,
  type WebhookRecord,
} from '@payrail/core';
import { createMemoryStore } from '@payrail/store-memory';
import { type MemoryOracle, memoryOracle } from '@payrail/store-memory/testing';
import * as E from 'fp-ts/lib/Either.js';
import { permissions } from '../access/access-control.policy.js';
import type { Outcome } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import type { AdjustableClock, EngineDeps, EngineSettings } from '../engine.deps.js';

/** 2026-11-22T00:00:00Z. */
export const t0 = 1_795_305_600;

const testClock = (start = t0): AdjustableClock => {
  let now = start;
  return {
    now: () => now,
    advance: (seconds) => {
      now += seconds;
    },
  };
};

const countingIds = () => {
  let n = 0;
  return { next: (prefix: string) => `${prefix}_${++n}` };
};

const settings: EngineSettings = {
  environment: 'sandbox',
  checkoutBaseUrl: 'https://pay.example.com/checkout/',
  allowInsecureWebhooks: false,
  keySecret: new TextEncoder().encode('a test key secret of 32 bytes ok'),
};

export interface TestBed {
  readonly deps: EngineDeps & { readonly clock: AdjustableClock };
  readonly oracle: MemoryOracle;
}

export const testBed = (overrides: Partial<EngineSettings> = {}): TestBed => {
  const store = createMemoryStore();
  return {
    deps: {
      store,
      clock: testClock(),
      ids: countingIds(),
      settings: { ...settings, ...overrides },
    },
    oracle: memoryOracle(store),
  };
};

export const caller = (overrides: Partial<Caller> = {}): Caller => ({
  merchant_id: 'mch_a',
  account_id: 'acc_a',
  key_id: 'key_a1',
  permissions,
  env: 'sandbox',
  ...overrides,
});

export const otherMerchant = caller({
  merchant_id: 'mch_b',
  account_id: 'acc_b',
  key_id: 'key_b1',
});

const meta = { version: 1, created_at: t0 - 86_400, updated_at: t0 - 86_400 } as const;

export const accountRecord = (overrides: Partial<AccountRecord> = {}): AccountRecord => ({
  ...meta,
  account_id: 'acc_a',
  merchant_id: 'mch_a',
  status: 'active',
  currencies: ['USD', 'USDT', 'USDC'],
  verification_enabled: false,
  auto_approve: false,
  products: { payout: true, acquiring: true },
  enabled_pay_tokens: [...payTokenIds],
  default_pay_tokens: ['TRON_USDT', 'ETH_USDC'],
  notify_secret: 'whsec_test',
  ...overrides,
});

export const webhookRecord = (overrides: Partial<WebhookRecord> = {}): WebhookRecord => ({
  ...meta,
  webhook_id: 'wh_a',
  account_id: 'acc_a',
  url: 'https://merchant.example.com/hooks',
  events: ['acquiring.*'],
  status: 'active',
  secret: 'whsec_hook',
  ...overrides,
});

const cryptoMethod: PayoutMethodRecord = {
  ...meta,
  method_id: 7,
  name: 'Crypto',
  currency_type: 'crypto',
  currencies: ['USDT', 'USDC'],
  network_codes: ['EVM', 'TRON'],
  channel_ids: [],
  status: 'active',
};

const fiatMethod: PayoutMethodRecord = {
  ...cryptoMethod,
  method_id: 3,
  name: 'Wallets',
  currency_type: 'fiat',
  currencies: ['USD'],
  network_codes: ['WALLETA'],
};

export const cryptoRoute = (overrides: Partial<PayoutRouteRecord> = {}): PayoutRouteRecord => ({
  ...meta,
  route_id: 'rt_usdt',
  account_id: null,
  currency: 'USDT',
  method_id: 7,
  channel_id: null,
  min_amount: '1.000000',
  max_amount: '10000.000000',
  fixed_fee: '1.000000',
  percent_fee: '0.5',
  channel_account_id: 'chacc_1',
  required_beneficiary_fields: [],
  status: 'active',
  ...overrides,
});

/** Two merchants, each with an acquiring webhook, and the crypto payout catalogue. */
export const seed = async (bed: TestBed): Promise<void> => {
  await bed.deps.store.transaction(async (tx) => {
    await tx.accounts.insert(accountRecord());
    await tx.accounts.insert(accountRecord({ account_id: 'acc_b', merchant_id: 'mch_b' }));
    await tx.webhooks.insert(webhookRecord());
    await tx.webhooks.insert(webhookRecord({ webhook_id: 'wh_b', account_id: 'acc_b' }));
    await tx.payoutMethods.insert(cryptoMethod);
    await tx.payoutMethods.insert(fiatMethod);
    await tx.payoutRoutes.insert(cryptoRoute());
  });
};

/** The answer's data; fails the test with the error's message otherwise. */
export const dataOf = <T>(outcome: Outcome<T>): T => {
  if (E.isLeft(outcome)) throw new Error(`expected success, got ${outcome.left.message}`);
  return outcome.right;
};

/** What a merchant sees of a refusal: status, code and message. */
export const refusalOf = (outcome: Outcome<unknown>) => {
  if (E.isRight(outcome))
    throw new Error(`expected a refusal, got ${JSON.stringify(outcome.right)}`);
  const error: PayrailError = outcome.left;
  return { status: error.httpStatus, code: error.code, message: error.message };
};

export const refusal = (status: number, code: number, message: string) => ({
  status,
  code,
  message,
});
