/**
 * What the HTTP layer adds, on the real engine (memory store): unreadable bodies, the size limit,
 * unknown routes, the rate limit, unexpected failures; and a sample of the interface's messages
 * reached through HTTP with their status and code (memory store and PostgreSQL).
 */
import { StoreUnavailable } from '@payrail/core';
import { adjustableClock, createEngine } from '@payrail/engine';
import { createMemoryStore } from '@payrail/store-memory';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, type InternalErrorLog } from './create-app.js';
import {
  type EngineApp,
  engineApp,
  quickPayout,
  refusalOf,
  testNow,
} from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

const refusal = (status: number, code: number, message: string) => ({
  status,
  code,
  message,
  data: null,
});

describe('what the HTTP layer adds (real engine)', () => {
  it('answers `request required` for an empty, broken or non-object body', async () => {
    const h = engineApp();
    const a = await h.merchant('Acme');
    for (const body of ['', '{"currency":', 'null', '[]', '"text"']) {
      const res = await h.app.request('/payment/quickpayout', {
        method: 'POST',
        headers: { Authorization: `Bearer ${a.token}`, 'Content-Type': 'application/json' },
        body,
      });
      expect({ status: res.status, body: await res.json() }, body).toEqual({
        status: 400,
        body: { code: 51, message: 'request required', data: null },
      });
    }
  });

  it('refuses a body over the limit with `Validation Failed`', async () => {
    const h = engineApp({ bodyLimitBytes: 4096 });
    const a = await h.merchant('Acme');
    const big = { ...quickPayout('R1'), beneficiary: { name: 'x'.repeat(5000), fields: {} } };
    expect(refusalOf(await h.as(a.token).post('/payment/quickpayout', big))).toEqual(
      refusal(400, 51, 'Validation Failed'),
    );
    expect((await h.as(a.token).get('/payment/payouts')).body.data.total).toBe(0);
  });

  it('answers `route not found` for an unknown path or method', async () => {
    const h = engineApp();
    const a = await h.merchant('Acme');
    expect(refusalOf(await h.as(a.token).get('/payment/payout'))).toEqual(
      refusal(404, 65, 'route not found'),
    );
    expect(refusalOf(await h.as(a.token).delete('/payment/payouts/po_1'))).toEqual(
      refusal(404, 65, 'route not found'),
    );
  });

  it('limits each key to its rate, with Retry-After', async () => {
    let ms = 0;
    const h = engineApp({ rateLimit: { requestsPerSecond: 1, burst: 2, now: () => ms } });
    const a = await h.merchant('Acme');
    expect((await h.as(a.token).get('/payment/account')).status).toBe(200);
    expect((await h.as(a.token).get('/payment/account')).status).toBe(200);
    const limited = await h.as(a.token).get('/payment/account');
    expect(refusalOf(limited)).toEqual(refusal(429, 54, 'rate limit exceeded'));
    expect(limited.headers.get('Retry-After')).toBe('1');
    ms += 1000;
    expect((await h.as(a.token).get('/payment/account')).status).toBe(200);
  });

  it('answers `internal error` and hides the failure when the store breaks', async () => {
    const store = createMemoryStore();
    let broken = false;
    let unreachable = false;
    const failing = new Proxy(store, {
      get: (target, name, receiver) =>
        name === 'transaction' && (broken || unreachable)
          ? () =>
              Promise.reject(
                unreachable
                  ? new StoreUnavailable(
                      'the database cannot be reached: connect ECONNREFUSED 10.0.0.7:5432',
                    )
                  : new Error('connection lost: UPDATE payouts SET secret'),
              )
          : Reflect.get(target, name, receiver),
    });
    const logged: InternalErrorLog[] = [];
    const engine = createEngine({
      store: failing,
      clock: adjustableClock({ now: () => testNow }),
      ids: { next: (prefix) => `${prefix}_${Math.random().toString(16).slice(2)}` },
      settings: {
        environment: 'sandbox',
        checkoutBaseUrl: 'https://pay.example/checkout',
        allowInsecureWebhooks: false,
        keySecret: new Uint8Array(32).fill(3),
      },
    });
    const app = createApp({ engine, adminToken: 'op', logInternalError: (e) => logged.push(e) });
    const created = await app.request('/admin/merchants', {
      method: 'POST',
      headers: { Authorization: 'Bearer op' },
      body: JSON.stringify({ name: 'Acme' }),
    });
    const { account_id } = (
      (await created.json()) as { data: { merchant: { account_id: string } } }
    ).data.merchant;
    const issued = await app.request(`/admin/accounts/${account_id}/api-keys`, {
      method: 'POST',
      headers: { Authorization: 'Bearer op' },
      body: JSON.stringify({ permissions: ['payment.account.read'] }),
    });
    const { token } = ((await issued.json()) as { data: { api_key: { token: string } } }).data
      .api_key;
    broken = true;
    const res = await app.request('/payment/account', {
      headers: { Authorization: `Bearer ${token}` },
    });
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toEqual({ code: 50, message: 'internal error', data: null });
    expect(text).not.toMatch(/UPDATE|connection|secret/);
    expect(logged.map((entry) => entry.path)).toEqual(['/payment/account']);
    expect(JSON.stringify(logged) + String(logged[0]?.error)).not.toContain(token);

    // A store that cannot reach its database (a failover, ADR 0051): 503 with Retry-After,
    // still hiding the failure, still logged.
    unreachable = true;
    const unavailable = await app.request('/payment/account', {
      headers: { Authorization: `Bearer ${token}` },
    });
    const unavailableText = await unavailable.text();
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get('Retry-After')).toBe('1');
    expect(JSON.parse(unavailableText)).toEqual({
      code: 50,
      message: 'service unavailable',
      data: null,
    });
    expect(unavailableText).not.toMatch(/ECONNREFUSED|10\.0\.0\.7/);
    expect(logged.map((entry) => entry.path)).toEqual(['/payment/account', '/payment/account']);
  });
});

describe.each(storesUnderTest)(
  "the interface's messages through HTTP (real engine, $name, a sample)",
  (under) => {
    let h: EngineApp;
    let token: string;
    let webhookId: string;
    let payoutId: string;
    let draftId: string;

    beforeAll(async () => {
      h = engineApp({ store: await under.open() });
      await h.seedCatalogue();
      token = (await h.merchant('Acme')).token;
      const as = h.as(token);
      webhookId = (
        await as.post('/payment/webhooks', {
          url: 'https://acme.example/wh',
          events: ['acquiring.*'],
        })
      ).body.data.webhook.webhook_id;
      payoutId = (await as.post('/payment/quickpayout', quickPayout('TAKEN'))).body.data.payout
        .payout_id;
      draftId = (await as.post('/payment/quickpayout', { ...quickPayout('DRAFT'), submit: false }))
        .body.data.payout.payout_id;
    });

    const order = (overrides: Record<string, unknown>) => ({
      out_trade_no: `O-${Math.random()}`,
      order_currency: 'USD',
      order_amount: '10.00',
      expire_seconds: 600,
      underpay_tolerance: '0',
      notify_webhook_id: webhookId,
      ...overrides,
    });

    type Case = readonly [
      string,
      () => Promise<ReturnType<typeof refusalOf>>,
      number,
      number,
      string,
    ];
    const cases: readonly Case[] = [
      [
        'currency required',
        async () =>
          refusalOf(
            await h.as(token).post('/payment/quickpayout', { ...quickPayout('A1'), currency: '' }),
          ),
        400,
        51,
        'currency required',
      ],
      [
        'amount required',
        async () =>
          refusalOf(
            await h
              .as(token)
              .post('/payment/quickpayout', { ...quickPayout('A2'), amount: undefined }),
          ),
        400,
        51,
        'amount required',
      ],
      [
        'reference already exists',
        async () =>
          refusalOf(
            await h.as(token).post('/payment/quickpayout', {
              ...quickPayout('TAKEN'),
              client_request_id: 'other',
            }),
          ),
        400,
        53,
        'reference already exists',
      ],
      [
        'invalid notify_url',
        async () =>
          refusalOf(
            await h
              .as(token)
              .post('/payment/quickpayout', { ...quickPayout('A3'), notify_url: 'http://x' }),
          ),
        400,
        51,
        'invalid notify_url',
      ],
      [
        'fee_bearer',
        async () =>
          refusalOf(
            await h
              .as(token)
              .post('/payment/quickpayout', { ...quickPayout('A4'), fee_bearer: 'nobody' }),
          ),
        400,
        51,
        'fee_bearer must be merchant or user',
      ],
      [
        'pair',
        async () =>
          refusalOf(
            await h.as(token).post('/payment/quickpayout', {
              ...quickPayout('A5'),
              beneficiary_account: undefined,
            }),
          ),
        400,
        51,
        'beneficiary and beneficiary_account must be provided together',
      ],
      [
        'payee_id',
        async () =>
          refusalOf(
            await h.as(token).post('/payment/quickpayout', {
              ...quickPayout('A6'),
              beneficiary: { name: 'J', fields: { payee_id: 'a!' } },
            }),
          ),
        400,
        51,
        'fields.payee_id invalid: expect ^[a-zA-Z0-9]{3,60}$',
      ],
      [
        'walletb prefix',
        async () =>
          refusalOf(
            await h.as(token).post('/payment/quickpayout', {
              ...quickPayout('A7'),
              beneficiary_account: { network_code: 'WALLETB', fields: { walletb_account: 'jane' } },
            }),
          ),
        400,
        51,
        'walletb_account must start with $',
      ],
      [
        'route not configured',
        async () =>
          refusalOf(
            await h
              .as(token)
              .post('/payment/quickpayout', { ...quickPayout('A8'), amount: '0.50' }),
          ),
        400,
        53,
        'payout route not configured',
      ],
      [
        'payout not editable',
        async () =>
          refusalOf(await h.as(token).patch(`/payment/payouts/${payoutId}`, { amount: '1.00' })),
        400,
        53,
        'payout not editable',
      ],
      [
        'no changes',
        async () =>
          refusalOf(await h.as(token).patch(`/payment/payouts/${draftId}`, { amount: '25.00' })),
        400,
        53,
        'no changes',
      ],
      [
        'invalid status filter',
        async () => refusalOf(await h.as(token).get('/payment/payouts?status=paid')),
        400,
        51,
        'invalid status',
      ],
      [
        'invalid review_status',
        async () => refusalOf(await h.as(token).get('/payment/payouts?review_status=x')),
        400,
        51,
        'invalid review_status',
      ],
      [
        'invalid execution_status',
        async () => refusalOf(await h.as(token).get('/payment/payouts?execution_status=x')),
        400,
        51,
        'invalid execution_status',
      ],
      [
        'invalid limit',
        async () => refusalOf(await h.as(token).get('/payment/payouts?limit=101')),
        400,
        51,
        'invalid limit',
      ],
      [
        'order_currency',
        async () =>
          refusalOf(
            await h.as(token).post('/payment/acquiring/orders', order({ order_currency: 'EUR' })),
          ),
        400,
        51,
        'order_currency only supports USD',
      ],
      [
        'expire_seconds',
        async () =>
          refusalOf(
            await h.as(token).post('/payment/acquiring/orders', order({ expire_seconds: 59 })),
          ),
        400,
        51,
        'expire_seconds must be between 60 and 10800',
      ],
      [
        'bare pay currency',
        async () =>
          refusalOf(
            await h
              .as(token)
              .post('/payment/acquiring/orders', order({ allowed_pay_currencies: ['USDT'] })),
          ),
        400,
        51,
        'invalid pay currency: USDT',
      ],
      [
        'notify_webhook_id',
        async () =>
          refusalOf(
            await h
              .as(token)
              .post('/payment/acquiring/orders', order({ notify_webhook_id: 'wh_999' })),
          ),
        400,
        53,
        'notify_webhook_id invalid or inactive',
      ],
      [
        'mode',
        async () =>
          refusalOf(await h.as(token).post('/payment/acquiring/orders', order({ mode: 'push' }))),
        400,
        51,
        'mode must be checkout or direct',
      ],
      [
        'network/currency',
        async () =>
          refusalOf(
            await h.as(token).post('/payment/acquiring/orders', order({ network: 'TRON' })),
          ),
        400,
        51,
        'network/currency required',
      ],
      [
        'order not found',
        async () => refusalOf(await h.as(token).get('/payment/acquiring/orders/ord_999')),
        404,
        65,
        'order not found',
      ],
      [
        'items length',
        async () =>
          refusalOf(
            await h.as(token).post('/payment/crypto-payouts/batches', {
              currency: 'USDT',
              method_id: 2,
              items: [],
            }),
          ),
        400,
        51,
        'items length must be between 1 and 500',
      ],
      [
        'only crypto',
        async () =>
          refusalOf(
            await h.as(token).post('/payment/crypto-payouts/batches', {
              currency: 'USD',
              method_id: 2,
              items: [],
            }),
          ),
        400,
        53,
        'only crypto currency supported',
      ],
      [
        'invalid EVM address',
        async () =>
          refusalOf(
            await h.as(token).post('/payment/crypto-payouts/batches', {
              currency: 'USDT',
              method_id: 2,
              items: [{ order_no: 'X', amount: '5', beneficiary_account: { address: '0x123' } }],
            }),
          ),
        400,
        51,
        'invalid EVM receiving address',
      ],
      [
        'batch not found',
        async () => refusalOf(await h.as(token).get('/payment/crypto-payouts/batches/bat_999')),
        404,
        65,
        'batch not found',
      ],
      [
        'webhook url',
        async () =>
          refusalOf(
            await h
              .as(token)
              .post('/payment/webhooks', { url: 'ftp://x', events: ['acquiring.*'] }),
          ),
        400,
        51,
        'invalid webhook url',
      ],
    ];

    it.each(cases)('%s', async (_, run, status, code, message) => {
      expect(await run()).toEqual(refusal(status, code, message));
    });
  },
);
