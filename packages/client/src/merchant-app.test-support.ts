/**
 * payrail's HTTP app over a real engine on the memory store, in the test's process: the client's
 * tests call it through `fetch` as they would a server (a socket adds nothing the client sees).
 * The sandbox catalogue is seeded; `merchant()` makes a merchant with a key of every permission
 * and 1000.00 USD, through the admin API.
 */
import { adjustableClock, createEngine, permissions, seedSandboxCatalogue } from '@payrail/engine';
import { type AppDeps, createApp } from '@payrail/http';
import { createMemoryStore } from '@payrail/store-memory';

const operatorToken = 'operator-token-for-the-client-tests';

export type AppOptions = Partial<Omit<AppDeps, 'engine' | 'adminToken'>>;

export const merchantApp = async (options: AppOptions = {}) => {
  const store = createMemoryStore();
  const clock = adjustableClock();
  let count = 0;
  const ids = {
    next: (prefix: string) => {
      count += 1;
      return `${prefix}_${count}`;
    },
  };
  const engine = createEngine({
    store,
    clock,
    ids,
    settings: {
      environment: 'sandbox',
      checkoutBaseUrl: 'https://pay.example/checkout',
      allowInsecureWebhooks: false,
      keySecret: new Uint8Array(32).fill(7),
    },
    acquiringProviders: [],
  });
  await seedSandboxCatalogue(store, ids, clock);
  const app = createApp({
    engine,
    adminToken: operatorToken,
    rateLimit: { requestsPerSecond: 0 },
    ...options,
  });
  const fetch = async (request: Request): Promise<Response> => app.fetch(request);

  /** A call with `token`, the admin API's or a key's; answers `data`, throws on a refusal. */
  const as = async (token: string, method: string, path: string, body?: unknown) => {
    const answer = await app.request(path, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const envelope = await answer.json();
    if (envelope.code !== 0) throw new Error(`${method} ${path}: ${JSON.stringify(envelope)}`);
    return envelope.data;
  };
  const admin = (method: string, path: string, body?: unknown) =>
    as(operatorToken, method, path, body);

  const merchant = async (name = 'Acme') => {
    const { merchant: created } = await admin('POST', '/admin/merchants', { name });
    const accountId: string = created.account_id;
    const { api_key } = await admin('POST', `/admin/accounts/${accountId}/api-keys`, {
      permissions,
    });
    await admin('POST', `/admin/accounts/${accountId}/credit`, {
      currency: 'USD',
      amount: '1000.00',
    });
    const token: string = api_key.token;
    // Orders notify a webhook: one subscribed to acquiring events.
    const { webhook } = await as(token, 'POST', '/payment/webhooks', {
      url: 'https://merchant.example/hooks',
      events: ['acquiring.*'],
    });
    return { accountId, token, webhookId: webhook.webhook_id as string };
  };

  return { fetch, admin, merchant, baseUrl: 'http://payrail.test' };
};

/** A quick payout's body, by the sandbox catalogue (method 1, WALLETA); `n` varies it. */
export const quickPayout = (n: number) =>
  ({
    reference: `INV-${n}`,
    currency: 'USD',
    amount: '10.00',
    method_id: 1,
    notify_url: 'https://merchant.example/payouts',
    beneficiary: { name: 'Jane Doe', fields: { payee_id: `jane${n}` } },
    beneficiary_account: {
      network_code: 'WALLETA',
      fields: { walleta_email: `jane${n}@example.com` },
    },
  }) as const;

/** An acquiring order's body, notifying `webhookId`. */
export const order = (outTradeNo: string, webhookId: string) =>
  ({
    out_trade_no: outTradeNo,
    order_currency: 'USD',
    order_amount: '10.00',
    expire_seconds: 600,
    underpay_tolerance: '0',
    notify_webhook_id: webhookId,
  }) as const;
