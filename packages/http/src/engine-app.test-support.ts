/**
 * The app over a real engine on the memory store: a test clock, counting ids, and helpers that
 * do what an operator and a merchant would do, through HTTP only (the admin API seeds the
 * sandbox catalogue, creates merchants and issues keys). Every answer is checked against the
 * served `/openapi.json` (`checkAnswer`, ADR 0023).
 */
import {
  type AcquiringProvider,
  type IdGenerator,
  type OutboundUrlGuardPort,
  type PayoutExecutor,
  type Store,
  sandboxNetworkSchemas,
} from '@payrail/core';
import { adjustableClock, createEngine, permissions } from '@payrail/engine';
import { createMemoryStore } from '@payrail/store-memory';
import { expect } from 'vitest';
import { checkAnswer } from './answer-conformance.test-support.js';
import { type AppDeps, createApp } from './create-app.js';

export const testNow = 1_800_000_000;
export const operatorToken = 'operator-token-for-tests';

const countingIds = (): IdGenerator => {
  const counts = new Map<string, number>();
  return {
    next: (prefix) => {
      const n = (counts.get(prefix) ?? 0) + 1;
      counts.set(prefix, n);
      return `${prefix}_${n}`;
    },
  };
};

export interface Answer {
  readonly status: number;
  readonly body: {
    readonly code: number;
    readonly message: string;
    // biome-ignore lint/suspicious/noExplicitAny: tests read answers by path, as a merchant reads JSON.
    readonly data: any;
  };
  readonly headers: Headers;
}

export interface HarnessOptions extends Partial<Omit<AppDeps, 'engine' | 'adminToken'>> {
  readonly keySecret?: Uint8Array;
  readonly environment?: 'sandbox' | 'live';
  /** Default a fresh memory store. */
  readonly store?: Store;
  /** Providers of `POST /upstream/acquiring/{provider}`; default none. */
  readonly acquiringProviders?: readonly AcquiringProvider[];
  /** Receives approved payouts (the `payout.execute` timer); default none, as in the sandbox. */
  readonly payoutExecutor?: PayoutExecutor;
  /** The create-time SSRF check of notify_url and webhook urls; default none (lexical only). */
  readonly outboundUrlGuard?: OutboundUrlGuardPort;
}

export const engineApp = (options: HarnessOptions = {}) => {
  const store = options.store ?? createMemoryStore();
  const clock = adjustableClock({ now: () => testNow });
  const engine = createEngine({
    store,
    clock,
    ids: countingIds(),
    settings: {
      environment: options.environment ?? 'sandbox',
      checkoutBaseUrl: 'https://pay.example/checkout',
      allowInsecureWebhooks: false,
      keySecret: options.keySecret ?? new Uint8Array(32).fill(9),
    },
    acquiringProviders: options.acquiringProviders ?? [],
    ...(options.payoutExecutor === undefined ? {} : { payoutExecutor: options.payoutExecutor }),
    ...(options.outboundUrlGuard === undefined
      ? {}
      : { outboundUrlGuard: options.outboundUrlGuard }),
  });
  const {
    keySecret: _secret,
    environment: _environment,
    store: _store,
    acquiringProviders: _providers,
    payoutExecutor: _executor,
    outboundUrlGuard: _guard,
    ...appOptions
  } = options;
  const app = createApp({
    engine,
    adminToken: operatorToken,
    rateLimit: { requestsPerSecond: 0 },
    // Suites send many refused credentials from one address (app.request's 127.0.0.1).
    addressLimit: { failedAuthentications: 0, requestsPerSecond: 0 },
    ...appOptions,
  });

  const observers: ((method: string, path: string, answer: Answer) => void)[] = [];
  /** Sees every answer, the operator's included. */
  const observe = (observer: (method: string, path: string, answer: Answer) => void) => {
    observers.push(observer);
  };

  let documentText: Promise<string> | undefined;
  const servedDocument = (): Promise<string> => {
    documentText ??= Promise.resolve(app.request('/openapi.json')).then((res) => res.text());
    return documentText;
  };

  const call = async (
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
    bindings?: object,
  ): Promise<Answer> => {
    const res = await app.request(
      path,
      {
        method,
        headers: { ...headers, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      },
      bindings,
    );
    const answer: Answer = {
      status: res.status,
      body: (await res.json()) as Answer['body'],
      headers: res.headers,
    };
    // Every answer is held to the document the app serves: schema, closed objects, status.
    checkAnswer(await servedDocument(), method, path, answer);
    for (const observer of observers) observer(method, path, answer);
    return answer;
  };

  /** The operator's call; answers `data`, failing the test on an error. */
  const admin = async (method: string, path: string, body?: unknown) => {
    const answer = await call(method, path, { Authorization: `Bearer ${operatorToken}` }, body);
    expect(answer.body, `${method} ${path}`).toMatchObject({ code: 0 });
    return answer.body.data;
  };

  /** A merchant and one key; all permissions unless told. */
  const merchant = async (
    name: string,
    key: Record<string, unknown> = { permissions: [...permissions] },
  ) => {
    const { merchant: created } = await admin('POST', '/admin/merchants', { name });
    const { api_key } = await admin('POST', `/admin/accounts/${created.account_id}/api-keys`, key);
    return {
      merchantId: created.merchant_id as string,
      accountId: created.account_id as string,
      keyId: api_key.key_id as string,
      token: api_key.token as string,
    };
  };

  /** Another key of an existing account. */
  const issueKey = async (accountId: string, key: Record<string, unknown>) => {
    const { api_key } = await admin('POST', `/admin/accounts/${accountId}/api-keys`, key);
    return { keyId: api_key.key_id as string, token: api_key.token as string };
  };

  /** The sandbox catalogue of docs/spec/decisions.md §8, made through the admin API. */
  const seedCatalogue = async () => {
    for (const schema of sandboxNetworkSchemas) {
      await admin('POST', '/admin/payout-networks', {
        code: schema.code,
        fields: schema.fields,
      });
    }
    await admin('POST', '/admin/payout-methods', {
      method_id: 1,
      name: 'Wallet payout',
      currency_type: 'fiat',
      currencies: ['USD'],
      network_codes: ['WALLETA', 'WALLETB'],
    });
    await admin('POST', '/admin/payout-methods', {
      method_id: 2,
      name: 'Stablecoin payout',
      currency_type: 'crypto',
      currencies: ['USDT', 'USDC'],
      network_codes: ['EVM', 'TRON'],
    });
    await admin('POST', '/admin/routes', {
      currency: 'USD',
      method_id: 1,
      min_amount: '1.00',
      max_amount: '100000.00',
      fixed_fee: '0.50',
      percent_fee: '1.0',
      channel_account_id: 'sandbox_usd',
    });
    for (const currency of ['USDT', 'USDC']) {
      await admin('POST', '/admin/routes', {
        currency,
        method_id: 2,
        min_amount: '1.000000',
        max_amount: '1000000.000000',
        fixed_fee: '1.000000',
        channel_account_id: `sandbox_${currency.toLowerCase()}`,
      });
    }
  };

  const as = (token: string) => ({
    get: (path: string, bindings?: object) =>
      call('GET', path, { Authorization: `Bearer ${token}` }, undefined, bindings),
    post: (path: string, body?: unknown) =>
      call('POST', path, { Authorization: `Bearer ${token}` }, body),
    patch: (path: string, body?: unknown) =>
      call('PATCH', path, { Authorization: `Bearer ${token}` }, body),
    delete: (path: string) => call('DELETE', path, { Authorization: `Bearer ${token}` }),
  });

  return { app, engine, store, clock, call, observe, admin, merchant, issueKey, seedCatalogue, as };
};

export type EngineApp = ReturnType<typeof engineApp>;

/** The stores every engine suite runs on: the memory store and PostgreSQL (embedded PGlite). */
export interface StoreUnderTest {
  readonly name: string;
  open(): Promise<Store & { close?(): Promise<void> }>;
}

/** What a merchant notices of a refusal. */
/** The `data` of an answer that must be a success; the whole body in the message when it is not. */
export const okData = (answer: Answer) => {
  expect(answer.body, JSON.stringify(answer.body)).toMatchObject({ code: 0 });
  return answer.body.data;
};

/**
 * How a provider report that contradicts what payrail recorded is answered (a payment id another
 * order saw first, another tx_hash for a known id, a transfer another id holds).
 */
export const invalidUpstreamPayload = {
  status: 400,
  code: 51,
  message: 'invalid upstream merchant deposit payload',
  data: null,
} as const;

export const refusalOf = (answer: Answer) => ({
  status: answer.status,
  code: answer.body.code,
  message: answer.body.message,
  data: answer.body.data,
});

export const quickPayout = (reference: string) => ({
  client_request_id: `cr-${reference}`,
  currency: 'USD',
  amount: '25.00',
  method_id: 1,
  reference,
  notify_url: 'https://merchant.example/payouts/notify',
  beneficiary: { name: 'Jane Doe', fields: { payee_id: `payee${reference}` } },
  beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'jane@example.com' } },
});

/**
 * An acquiring order body in direct mode on TRON_USDT, so the answer carries its deposit address
 * at once: what the upstream, payment-id and non-text suites pay into.
 */
export const directTronOrder = (outTradeNo: string, webhookId: string, orderAmount = '30.00') => ({
  out_trade_no: outTradeNo,
  order_currency: 'USD',
  order_amount: orderAmount,
  allowed_pay_currencies: ['TRON_USDT'],
  expire_seconds: 600,
  underpay_tolerance: '0',
  notify_webhook_id: webhookId,
  mode: 'direct',
  network: 'TRON',
  currency: 'USDT',
});
