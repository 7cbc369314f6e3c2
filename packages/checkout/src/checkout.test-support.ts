/**
 * The pages as the server wires them: an engine over the memory store with a test clock and
 * counting ids, the HTTP app (merchant, admin and checkout JSON calls) with the pages mounted at
 * `/checkout`, and helpers that do what an operator and a merchant do, through HTTP only.
 */
import type { IdGenerator } from '@payrail/core';
import {
  type AdjustableClock,
  adjustableClock,
  createEngine,
  type Engine,
  permissions,
} from '@payrail/engine';
import { createApp, type PayrailApp } from '@payrail/http';
import { createMemoryStore } from '@payrail/store-memory';
import { checkoutPages } from './checkout-pages.js';

/** 2027-01-15T08:00:00Z. */
export const testNow = 1_800_000_000;
export const operatorToken = 'operator-token-for-checkout-tests';

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

export interface HarnessOptions {
  /** The base of checkout_url; default the one tests request through `app.request`. */
  readonly checkoutBaseUrl?: string;
  readonly pollIntervalMs?: number;
}

export interface Seller {
  readonly token: string;
  readonly webhookId: string;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read answers by path, as a merchant reads JSON.
type Json = any;

export interface CheckoutHarness {
  readonly app: PayrailApp;
  readonly engine: Engine;
  readonly clock: AdjustableClock;
  /** What the pages logged as unexpected failures. */
  readonly errors: unknown[];
  /** A JSON call; answers `data`, throwing on an error answer. */
  call(method: string, path: string, token?: string, body?: unknown): Promise<Json>;
  /** A sandbox merchant with every permission and an acquiring webhook. */
  merchant(): Promise<Seller>;
  /** A checkout-mode order (unless the fields say otherwise); answers `data.order`. */
  order(seller: Seller, fields?: Record<string, unknown>): Promise<Json>;
  /** The sandbox provider reports a chain payment for the order; answers `data`. */
  pay(orderId: string, payment: Record<string, unknown>): Promise<Json>;
}

export const checkoutHarness = (options: HarnessOptions = {}): CheckoutHarness => {
  const clock = adjustableClock({ now: () => testNow });
  const errors: unknown[] = [];
  const engine = createEngine({
    store: createMemoryStore(),
    clock,
    ids: countingIds(),
    settings: {
      environment: 'sandbox',
      checkoutBaseUrl: options.checkoutBaseUrl ?? 'http://localhost/checkout',
      allowInsecureWebhooks: false,
      keySecret: new Uint8Array(32).fill(5),
    },
  });
  const app = createApp({ engine, adminToken: operatorToken, rateLimit: { requestsPerSecond: 0 } });
  app.route(
    '/checkout',
    checkoutPages({
      order: (orderId) => engine.checkout.order(orderId),
      now: () => clock.now(),
      ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
      logError: (error) => errors.push(error),
    }),
  );

  const call = async (method: string, path: string, token?: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: {
        'Content-Type': 'application/json',
        ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await res.json()) as { code: number; message: string; data: Json };
    if (answer.code !== 0) throw new Error(`${method} ${path}: ${answer.message}`);
    return answer.data;
  };

  const merchant = async (): Promise<Seller> => {
    const { merchant: created } = await call('POST', '/admin/merchants', operatorToken, {
      name: 'Acme',
    });
    const { api_key } = await call(
      'POST',
      `/admin/accounts/${created.account_id}/api-keys`,
      operatorToken,
      { permissions: [...permissions] },
    );
    const token = api_key.token as string;
    const { webhook } = await call('POST', '/payment/webhooks', token, {
      url: 'https://merchant.example/hooks',
      events: ['acquiring.*'],
    });
    return { token, webhookId: webhook.webhook_id as string };
  };

  const order = async (seller: Seller, fields: Record<string, unknown> = {}) => {
    const { order: created } = await call('POST', '/payment/acquiring/orders', seller.token, {
      out_trade_no: 'ORDER-1001',
      order_currency: 'USD',
      order_amount: '25.00',
      expire_seconds: 900,
      underpay_tolerance: '0',
      notify_webhook_id: seller.webhookId,
      allowed_pay_currencies: ['TRON_USDT', 'ETH_USDT', 'ETH_USDC', 'BASE_USDC'],
      ...fields,
    });
    return created;
  };

  const pay = (orderId: string, payment: Record<string, unknown>) =>
    call('POST', `/admin/sandbox/acquiring/orders/${orderId}/payments`, operatorToken, payment);

  return {
    app,
    engine,
    clock,
    errors,
    call,
    merchant,
    order,
    pay,
  };
};
