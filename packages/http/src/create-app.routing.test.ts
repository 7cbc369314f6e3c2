/**
 * Every route hands the right use case the right arguments, and every answer is the envelope.
 * The expectations are written out by hand, independently of the route table.
 */

import { payrailError } from '@payrail/core';
import { bootstrapOperator } from '@payrail/engine';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { createApp } from './create-app.js';
import { callerOf, fakeEngine, refusal, withOrigin } from './fake-engine.test-support.js';

const alice = callerOf('alice');

const adminToken = 'operator-secret';
const body = { any: 'thing', n: 1 };

type Expectation = readonly [
  method: string,
  path: string,
  useCase: string,
  args: readonly unknown[],
  withBody?: boolean,
];

const cases = (table: readonly Expectation[]) =>
  table.map(([method, path, useCase, args, withBody = false]) => ({
    method,
    path,
    useCase,
    args,
    withBody,
  }));

const merchant: readonly Expectation[] = [
  ['GET', '/payment/account', 'accounts.current', [alice]],
  ['GET', '/payment/accounts?status=active', 'accounts.list', [alice, { status: 'active' }]],
  ['GET', '/payment/balances?currency=USD', 'accounts.balances', [alice, { currency: 'USD' }]],
  [
    'GET',
    '/payment/deposits?limit=5&offset=10',
    'accounts.deposits',
    [alice, { limit: '5', offset: '10' }],
  ],
  ['GET', '/payment/withdrawals', 'accounts.withdrawals', [alice, {}]],
  ['GET', '/payment/ledger?sort_order=asc', 'accounts.ledger', [alice, { sort_order: 'asc' }]],
  [
    'GET',
    '/payment/statements?currency=USD&start_at=0&end_at=9',
    'statements.statement',
    [alice, { currency: 'USD', start_at: '0', end_at: '9' }],
  ],
  [
    'GET',
    '/payment/audit?action=payout.create',
    'accounts.audit',
    [alice, { action: 'payout.create' }],
  ],
  [
    'GET',
    '/payment/payout-methods?currency=USD',
    'payoutSetup.methods',
    [alice, { currency: 'USD' }],
  ],
  [
    'GET',
    '/payment/payout-networks?include_schema=true',
    'payoutSetup.networks',
    [alice, { include_schema: 'true' }],
  ],
  [
    'GET',
    '/payment/payout-networks/WALLETA/schema',
    'payoutSetup.networkSchema',
    [alice, 'WALLETA'],
  ],
  ['POST', '/payment/quickpayout', 'payouts.create', [alice, body], true],
  ['GET', '/payment/payouts?reference=r1', 'payouts.list', [alice, { reference: 'r1' }]],
  ['GET', '/payment/payouts/po_1', 'payouts.get', [alice, 'po_1']],
  ['PATCH', '/payment/payouts/po_1', 'payouts.update', [alice, 'po_1', body], true],
  ['POST', '/payment/payouts/po_1/submit', 'payouts.submit', [alice, 'po_1']],
  ['POST', '/payment/payouts/po_1/cancel', 'payouts.cancel', [alice, 'po_1']],
  [
    'GET',
    '/payment/payouts/po_1/deliveries?limit=5',
    'payouts.deliveries',
    [alice, 'po_1', { limit: '5' }],
  ],
  ['GET', '/payment/beneficiaries', 'beneficiaries.list', [alice, {}]],
  ['POST', '/payment/beneficiaries', 'beneficiaries.create', [alice, body], true],
  ['GET', '/payment/beneficiaries/ben_1', 'beneficiaries.get', [alice, 'ben_1']],
  ['PATCH', '/payment/beneficiaries/ben_1', 'beneficiaries.update', [alice, 'ben_1', body], true],
  ['GET', '/payment/beneficiary-accounts', 'beneficiaryAccounts.list', [alice, {}]],
  ['POST', '/payment/beneficiary-accounts', 'beneficiaryAccounts.create', [alice, body], true],
  ['GET', '/payment/beneficiary-accounts/bacc_1', 'beneficiaryAccounts.get', [alice, 'bacc_1']],
  [
    'PATCH',
    '/payment/beneficiary-accounts/bacc_1',
    'beneficiaryAccounts.update',
    [alice, 'bacc_1', body],
    true,
  ],
  ['POST', '/payment/acquiring/orders', 'acquiring.create', [alice, body], true],
  [
    'GET',
    '/payment/acquiring/orders?status=pending',
    'acquiring.list',
    [alice, { status: 'pending' }],
  ],
  ['GET', '/payment/acquiring/orders/ord_1', 'acquiring.get', [alice, 'ord_1']],
  ['GET', '/payment/acquiring/orders/ord_1/payments', 'acquiring.payments', [alice, 'ord_1']],
  [
    'POST',
    '/payment/acquiring/orders/ord_1/close',
    'acquiring.close',
    [alice, 'ord_1', body],
    true,
  ],
  [
    'POST',
    '/payment/acquiring/orders/ord_1/refunds',
    'acquiring.refund',
    [alice, 'ord_1', body],
    true,
  ],
  ['GET', '/payment/acquiring/orders/ord_1/refunds', 'acquiring.refunds', [alice, 'ord_1']],
  ['GET', '/payment/acquiring/refunds/rfd_1', 'acquiring.getRefund', [alice, 'rfd_1']],
  ['POST', '/payment/crypto-payouts/batches', 'batches.create', [alice, body], true],
  ['GET', '/payment/crypto-payouts/batches/bat_1', 'batches.get', [alice, 'bat_1']],
  [
    'POST',
    '/payment/crypto-payouts/batches/bat_1/items',
    'batches.addItems',
    [alice, 'bat_1', body],
    true,
  ],
  [
    'GET',
    '/payment/crypto-payouts/batches/bat_1/items?limit=2',
    'batches.items',
    [alice, 'bat_1', { limit: '2' }],
  ],
  [
    'POST',
    '/payment/crypto-payouts/batches/bat_1/approve',
    'batches.approve',
    [alice, 'bat_1', body],
    true,
  ],
  ['POST', '/payment/crypto-payouts/batches/bat_1/submit', 'batches.submit', [alice, 'bat_1']],
  ['POST', '/payment/webhooks', 'webhooks.create', [alice, body], true],
  ['GET', '/payment/webhooks', 'webhooks.list', [alice, {}]],
  ['GET', '/payment/webhooks/wh_1', 'webhooks.get', [alice, 'wh_1']],
  ['PATCH', '/payment/webhooks/wh_1', 'webhooks.update', [alice, 'wh_1', body], true],
  ['DELETE', '/payment/webhooks/wh_1', 'webhooks.remove', [alice, 'wh_1']],
  ['POST', '/payment/webhooks/wh_1/rotate-secret', 'webhooks.rotateSecret', [alice, 'wh_1']],
  [
    'GET',
    '/payment/webhooks/wh_1/deliveries?offset=3',
    'webhooks.deliveries',
    [alice, 'wh_1', { offset: '3' }],
  ],
  ['POST', '/payment/webhook-deliveries/dlv_1/redeliver', 'webhooks.redeliver', [alice, 'dlv_1']],
];

const admin: readonly Expectation[] = [
  ['POST', '/admin/operators', 'admin.createOperator', [body], true],
  ['GET', '/admin/operators?limit=5', 'admin.listOperators', [{ limit: '5' }]],
  ['PATCH', '/admin/operators/opr_1', 'admin.updateOperator', ['opr_1', body], true],
  ['POST', '/admin/operators/opr_1/rotate', 'admin.rotateOperator', ['opr_1']],
  ['GET', '/admin/audit?actor_id=opr_1', 'admin.audit', [{ actor_id: 'opr_1' }]],
  [
    'GET',
    '/admin/reports/settlement?date=2027-01-15',
    'admin.settlementReport',
    [{ date: '2027-01-15' }],
  ],
  ['POST', '/admin/merchants', 'admin.createMerchant', [body], true],
  ['PATCH', '/admin/accounts/acc_1', 'admin.updateAccount', ['acc_1', body], true],
  ['POST', '/admin/accounts/acc_1/api-keys', 'admin.issueApiKey', ['acc_1', body], true],
  ['GET', '/admin/accounts/acc_1/api-keys', 'admin.listApiKeys', ['acc_1']],
  ['POST', '/admin/api-keys/key_1/rotate', 'admin.rotateApiKey', ['key_1']],
  ['PATCH', '/admin/api-keys/key_1', 'admin.updateApiKey', ['key_1', body], true],
  ['DELETE', '/admin/api-keys/key_1', 'admin.deleteApiKey', ['key_1']],
  ['POST', '/admin/accounts/acc_1/notify-secret/rotate', 'admin.rotateNotifySecret', ['acc_1']],
  ['POST', '/admin/payouts/po_1/review', 'admin.reviewPayout', ['po_1', body], true],
  ['GET', '/admin/acquiring/orders/ord_1', 'admin.getOrder', ['ord_1']],
  ['POST', '/admin/acquiring/orders/ord_1/resolve', 'admin.resolveOrder', ['ord_1', body], true],
  ['POST', '/admin/acquiring/refunds/rfd_1/review', 'admin.reviewRefund', ['rfd_1', body], true],
  [
    'POST',
    '/admin/sandbox/acquiring/refunds/rfd_1/execution',
    'admin.sandboxRefundExecution',
    ['rfd_1', body],
    true,
  ],
  ['GET', '/admin/payout-methods?currency=USD', 'admin.listPayoutMethods', [{ currency: 'USD' }]],
  ['POST', '/admin/payout-methods', 'admin.createPayoutMethod', [body], true],
  ['PATCH', '/admin/payout-methods/7', 'admin.updatePayoutMethod', ['7', body], true],
  ['GET', '/admin/payout-networks', 'admin.listPayoutNetworks', [{}]],
  ['POST', '/admin/payout-networks', 'admin.createPayoutNetwork', [body], true],
  ['PATCH', '/admin/payout-networks/WALLETA', 'admin.updatePayoutNetwork', ['WALLETA', body], true],
  ['GET', '/admin/routes', 'admin.listRoutes', [{}]],
  ['POST', '/admin/routes', 'admin.createRoute', [body], true],
  ['PATCH', '/admin/routes/rt_1', 'admin.updateRoute', ['rt_1', body], true],
  ['POST', '/admin/accounts/acc_1/credit', 'admin.credit', ['acc_1', body], true],
  ['POST', '/admin/sandbox/payouts/po_1/execution', 'admin.sandboxExecution', ['po_1', body], true],
  [
    'POST',
    '/admin/sandbox/acquiring/orders/ord_1/payments',
    'admin.sandboxPayment',
    ['ord_1', body],
    true,
  ],
  ['POST', '/admin/sandbox/clock/advance', 'admin.advanceClock', [body], true],
];

/** Routes answering streamed text, not the envelope (ADR 0045). */
const text: readonly Expectation[] = [
  [
    'GET',
    '/payment/statements.csv?currency=USD&start_at=0&end_at=9',
    'statements.statementCsv',
    [alice, { currency: 'USD', start_at: '0', end_at: '9' }],
  ],
];

const checkout: readonly Expectation[] = [
  ['GET', '/checkout/api/orders/ord_1', 'checkout.order', ['ord_1']],
  ['POST', '/checkout/api/orders/ord_1/select', 'checkout.selectToken', ['ord_1', body], true],
];

const upstream: readonly Expectation[] = [
  [
    'POST',
    '/upstream/acquiring/sandbox',
    'upstream.receive',
    // The body as sent: the provider's signature covers those bytes, not a parse of them.
    [
      'sandbox',
      {
        ip: '127.0.0.1',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      },
    ],
    true,
  ],
];

const send = (
  app: ReturnType<typeof createApp>,
  method: string,
  path: string,
  headers: Record<string, string>,
  withBody = false,
) =>
  app.request(path, {
    method,
    headers: { ...headers, 'Content-Type': 'application/json' },
    ...(withBody ? { body: JSON.stringify(body) } : {}),
  });

describe('routing', () => {
  it.each(cases(merchant))(
    '$method $path -> $useCase',
    async ({ method, path, useCase, args, withBody }) => {
      const fake = fakeEngine();
      const app = createApp({ engine: fake.engine, adminToken });
      const res = await send(app, method, path, { Authorization: 'Bearer alice-token' }, withBody);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        code: 0,
        message: 'success',
        data: { use_case: useCase },
      });
      const [caller, ...rest] = args;
      expect(fake.calls).toEqual([{ useCase, args: [withOrigin(caller as object), ...rest] }]);
    },
  );

  it.each(cases(admin))(
    '$method $path -> $useCase (operator token)',
    async ({ method, path, useCase, args, withBody }) => {
      const fake = fakeEngine();
      const app = createApp({ engine: fake.engine, adminToken });
      const res = await send(
        app,
        method,
        path,
        { Authorization: `Bearer ${adminToken}` },
        withBody,
      );
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        code: 0,
        message: 'success',
        data: { use_case: useCase },
      });
      // The configured token is the bootstrap operator (ADR 0039), with the request's origin.
      expect(fake.calls).toEqual([{ useCase, args: [withOrigin(bootstrapOperator), ...args] }]);
      expect(fake.authentications).toEqual([]);
    },
  );

  it.each(cases(text))(
    '$method $path -> $useCase (streamed text; a refusal is the envelope)',
    async ({ method, path, useCase, args }) => {
      const fake = fakeEngine();
      async function* chunks() {
        yield 'line,amount\r\n';
        yield 'record,1.00\r\n';
      }
      fake.answer(useCase, async () =>
        E.right({ media_type: 'text/csv', filename: 'statement.csv', chunks: chunks() }),
      );
      const app = createApp({ engine: fake.engine, adminToken });
      const res = await send(app, method, path, { Authorization: 'Bearer alice-token' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="statement.csv"');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.text()).toBe('line,amount\r\nrecord,1.00\r\n');
      const [caller, ...rest] = args;
      expect(fake.calls).toEqual([{ useCase, args: [withOrigin(caller as object), ...rest] }]);

      fake.answer(useCase, refusal(payrailError('currency_required')));
      const refused = await send(app, method, path, { Authorization: 'Bearer alice-token' });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ code: 51, message: 'currency required', data: null });
    },
  );

  it('a failure once text has gone out is logged and cuts the body short, never an envelope', async () => {
    const fake = fakeEngine();
    async function* chunks() {
      yield 'line,amount\r\n';
      throw new Error('store gone');
    }
    fake.answer('statements.statementCsv', async () =>
      E.right({ media_type: 'text/csv', filename: 'statement.csv', chunks: chunks() }),
    );
    const logged: unknown[] = [];
    const app = createApp({
      engine: fake.engine,
      adminToken,
      logInternalError: ({ error }) => logged.push(error),
    });
    const res = await send(app, 'GET', '/payment/statements.csv', {
      Authorization: 'Bearer alice-token',
    });
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toBe('line,amount\r\n');
    await expect(reader?.read()).rejects.toThrow('store gone');
    expect(logged).toEqual([expect.objectContaining({ message: 'store gone' })]);
  });

  it.each(cases(checkout))(
    '$method $path -> $useCase (no credential)',
    async ({ method, path, useCase, args, withBody }) => {
      const fake = fakeEngine();
      const app = createApp({ engine: fake.engine, adminToken });
      const res = await send(app, method, path, {}, withBody);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        code: 0,
        message: 'success',
        data: { use_case: useCase },
      });
      expect(fake.calls).toEqual([{ useCase, args }]);
    },
  );

  it.each(cases(upstream))(
    '$method $path -> $useCase (no credential; the client address and the headers)',
    async ({ method, path, useCase, args, withBody }) => {
      const fake = fakeEngine();
      const app = createApp({ engine: fake.engine, adminToken });
      const res = await send(app, method, path, {}, withBody);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        code: 0,
        message: 'success',
        data: { use_case: useCase },
      });
      expect(fake.calls).toEqual([{ useCase, args }]);
      expect(fake.authentications).toEqual([]);
    },
  );

  it('registers exactly the routes listed here, plus /openapi.json', () => {
    const app = createApp({ engine: fakeEngine().engine, adminToken });
    const registered = app.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => `${route.method} ${route.path}`)
      .sort();
    const expected = [...merchant, ...text, ...admin, ...checkout, ...upstream]
      .map(([method, path]) => {
        const bare = path.split('?')[0] ?? '';
        return `${method} ${bare}`;
      })
      .concat('GET /openapi.json');
    // Ids in the expectations stand where the route has a parameter.
    const pattern = (route: string) => new RegExp(`^${route.replace(/:[a-z_]+/g, '[^/]+')}$`);
    expect(registered).toHaveLength(expected.length);
    for (const route of registered) {
      expect(
        expected.filter((e) => pattern(route).test(e)),
        route,
      ).toHaveLength(1);
    }
  });

  it('passes a path id percent-decoded, as the client meant it', async () => {
    const fake = fakeEngine();
    const app = createApp({ engine: fake.engine, adminToken });
    await app.request('/payment/payouts/po%201', { headers: { 'X-API-Key': 'alice-token' } });
    expect(fake.calls).toEqual([{ useCase: 'payouts.get', args: [withOrigin(alice), 'po 1'] }]);
  });

  it('passes the first value of a repeated query parameter', async () => {
    const fake = fakeEngine();
    const app = createApp({ engine: fake.engine, adminToken });
    await app.request('/payment/payouts?status=draft&status=approved', {
      headers: { 'X-API-Key': 'alice-token' },
    });
    expect(fake.calls[0]?.args[1]).toEqual({ status: 'draft' });
  });
});
