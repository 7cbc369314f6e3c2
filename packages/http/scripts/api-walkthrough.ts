/**
 * The answers docs/api.md describes, taken from the real engine: an operator and a merchant walk
 * every route of the table once or more through `app.request()` on the memory store, with a
 * fixed clock and counting ids, and every success's `data` is kept under its route's
 * operationId. The document's response tables are built from these answers, so a field is
 * documented only if the engine really answers it.
 */
import { apiKeyPermissions, money, sandboxNetworkSchemas, withdrawalJournal } from '@payrail/core';
import { adjustableClock, createEngine } from '@payrail/engine';
import {
  generateSandboxUpstreamSecret,
  sandboxAcquiringProvider,
  signSandboxUpstream,
} from '@payrail/sandbox';
import { createMemoryStore } from '@payrail/store-memory';
import { createApp } from '../src/create-app.js';
import type { Route } from '../src/routes/route.js';
import { routes } from '../src/routes/route-table.js';

const walkthroughNow = 1_800_000_000;
const operatorToken = 'walkthrough-operator-token';
/** Where the sandbox chain watcher calls from (PAYRAIL_UPSTREAM_SANDBOX_SOURCES' default). */
const watcherAddress = '127.0.0.1';
/** What it signs its reports with (PAYRAIL_UPSTREAM_SANDBOX_SECRET). */
const watcherSecret = generateSandboxUpstreamSecret();

// biome-ignore lint/suspicious/noExplicitAny: the walk reads answers by path, as a client reads JSON.
type Answered = any;

/** Each route's successful answers (`data`), by operationId, in the order they were given. */
export type Observations = ReadonlyMap<string, readonly unknown[]>;

const routeOf = (method: string, path: string): Route | undefined => {
  const bare = path.split('?')[0] ?? '';
  return routes.find(
    (route) =>
      route.method.toUpperCase() === method &&
      new RegExp(`^${route.path.replace(/\{[a-z_]+\}/g, '[^/]+')}$`).test(bare),
  );
};

export const walkThroughApi = async (): Promise<Observations> => {
  const counts = new Map<string, number>();
  const store = createMemoryStore();
  const engine = createEngine({
    store,
    clock: adjustableClock({ now: () => walkthroughNow }),
    ids: {
      next: (prefix) => {
        const n = (counts.get(prefix) ?? 0) + 1;
        counts.set(prefix, n);
        return `${prefix}_${n}`;
      },
    },
    settings: {
      environment: 'sandbox',
      checkoutBaseUrl: 'https://payrail.example/checkout',
      allowInsecureWebhooks: false,
      keySecret: new Uint8Array(32).fill(7),
    },
    acquiringProviders: [
      sandboxAcquiringProvider({ allowedSources: [`${watcherAddress}/32`], secret: watcherSecret }),
    ],
  });
  const app = createApp({ engine, adminToken: operatorToken, rateLimit: { requestsPerSecond: 0 } });
  const observed = new Map<string, unknown[]>();

  const send = async (
    token: string,
    method: string,
    path: string,
    body?: unknown,
    remoteAddress?: string,
  ): Promise<Answered> => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const res = await app.request(
      path,
      {
        method,
        headers: {
          ...(token === '' ? {} : { Authorization: `Bearer ${token}` }),
          // The chain watcher signs what it reports; nobody else calls upstream.
          ...(path.startsWith('/upstream/') ? signSandboxUpstream(watcherSecret, text ?? '') : {}),
          'Content-Type': 'application/json',
        },
        ...(text === undefined ? {} : { body: text }),
      },
      remoteAddress === undefined ? undefined : { incoming: { socket: { remoteAddress } } },
    );
    const answer = (await res.json()) as { code: number; message: string; data: unknown };
    if (res.status !== 200 || answer.code !== 0) {
      throw new Error(`walkthrough: ${method} ${path} answered ${res.status} ${answer.message}`);
    }
    const route = routeOf(method, path);
    if (route === undefined) throw new Error(`walkthrough: no route for ${method} ${path}`);
    observed.set(route.operationId, [...(observed.get(route.operationId) ?? []), answer.data]);
    return answer.data;
  };
  const op = (method: string, path: string, body?: unknown) =>
    send(operatorToken, method, path, body);

  // The operator configures the payout catalogue (what the server seeds in the sandbox).
  for (const schema of sandboxNetworkSchemas) {
    await op('POST', '/admin/payout-networks', { code: schema.code, fields: schema.fields });
  }
  await op('POST', '/admin/payout-methods', {
    method_id: 1,
    name: 'Wallet payout',
    currency_type: 'fiat',
    currencies: ['USD'],
    network_codes: ['WALLETA', 'WALLETB'],
  });
  await op('POST', '/admin/payout-methods', {
    method_id: 2,
    name: 'Stablecoin payout',
    currency_type: 'crypto',
    currencies: ['USDT', 'USDC'],
    network_codes: ['EVM', 'TRON'],
  });
  const usdRoute = await op('POST', '/admin/routes', {
    currency: 'USD',
    method_id: 1,
    min_amount: '1.00',
    max_amount: '100000.00',
    fixed_fee: '0.50',
    percent_fee: '1.0',
    channel_account_id: 'sandbox_usd',
  });
  for (const currency of ['USDT', 'USDC']) {
    await op('POST', '/admin/routes', {
      currency,
      method_id: 2,
      min_amount: '1.000000',
      max_amount: '1000000.000000',
      fixed_fee: '1.000000',
      channel_account_id: `sandbox_${currency.toLowerCase()}`,
    });
  }
  await op('GET', '/admin/payout-methods');
  await op('GET', '/admin/payout-networks');
  await op('GET', '/admin/routes');
  await op('PATCH', '/admin/payout-methods/1', { name: 'Wallet payout (sandbox)' });
  await op('PATCH', '/admin/payout-networks/WALLETA', { name: 'Wallet A' });
  await op('PATCH', `/admin/routes/${usdRoute.route.route_id}`, { max_amount: '200000.00' });

  // A merchant, its keys and its account.
  const { merchant } = await op('POST', '/admin/merchants', { name: 'Acme' });
  const accountId: string = merchant.account_id;
  const { api_key } = await op('POST', `/admin/accounts/${accountId}/api-keys`, {
    name: 'backend',
    permissions: [...apiKeyPermissions],
  });
  const token: string = api_key.token;
  const spare = await op('POST', `/admin/accounts/${accountId}/api-keys`, {
    name: 'reporting',
    permissions: ['payment.ledger.read'],
    ip_whitelist: ['203.0.113.0/24'],
    expires_in_seconds: 7 * 24 * 3600,
  });
  await op('POST', `/admin/api-keys/${spare.api_key.key_id}/rotate`);
  await op('PATCH', `/admin/api-keys/${spare.api_key.key_id}`, { status: 'disabled' });
  await op('GET', `/admin/accounts/${accountId}/api-keys`);
  await op('DELETE', `/admin/api-keys/${spare.api_key.key_id}`);
  const approver = await op('POST', `/admin/accounts/${accountId}/api-keys`, {
    name: 'approver',
    permissions: ['payment.payout.submit', 'payment.payout.read'],
  });
  await op('PATCH', `/admin/accounts/${accountId}`, { default_pay_tokens: ['TRON_USDT'] });
  await op('POST', `/admin/accounts/${accountId}/notify-secret/rotate`);
  await op('POST', `/admin/accounts/${accountId}/credit`, { currency: 'USD', amount: '1000.00' });
  await op('POST', `/admin/accounts/${accountId}/credit`, {
    currency: 'USDT',
    amount: '500.000000',
  });
  // A treasury withdrawal, as the treasury side records it (no endpoint creates one): the
  // record and its `withdrawal` journal in one unit of work, so the ledger shows it.
  await store.transaction(async (tx) => {
    await tx.withdrawals.insert({
      record_id: 'wd_1',
      account_id: accountId,
      currency: 'USDT',
      network: 'TRON',
      amount: '100.000000',
      status: 'completed',
      tx_hash: '0x5f2a',
      created_at: walkthroughNow,
      updated_at: walkthroughNow,
    });
    await tx.ledger.post(
      withdrawalJournal({ accountId, businessId: 'wd_1' }, money('USDT', '100')),
      walkthroughNow,
    );
  });

  const merchantCall = (method: string, path: string, body?: unknown) =>
    send(token, method, path, body);

  // Setup lookups.
  await merchantCall('GET', '/payment/payout-methods?currency=USD');
  await merchantCall('GET', '/payment/payout-networks?include_schema=true');
  await merchantCall('GET', '/payment/payout-networks/WALLETA/schema');

  // Payouts: one from draft to completed, one cancelled, one failed in execution.
  const payoutBody = (reference: string) => ({
    client_request_id: `req-${reference}`,
    currency: 'USD',
    amount: '25.00',
    method_id: 1,
    reference,
    notify_url: 'https://acme.example/payouts/notify',
    beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01', country: 'US' } },
    beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'jane@example.com' } },
  });
  const draft = (
    await merchantCall('POST', '/payment/quickpayout', { ...payoutBody('INV-1001'), submit: false })
  ).payout;
  await merchantCall('PATCH', `/payment/payouts/${draft.payout_id}`, { amount: '30.00' });
  await merchantCall('POST', `/payment/payouts/${draft.payout_id}/submit`);
  await op('POST', `/admin/payouts/${draft.payout_id}/review`, { action: 'approve' });
  await op('POST', `/admin/sandbox/payouts/${draft.payout_id}/execution`, {
    outcome: 'completed',
  });
  await merchantCall('GET', `/payment/payouts/${draft.payout_id}`);
  const cancelled = (await merchantCall('POST', '/payment/quickpayout', payoutBody('INV-1002')))
    .payout;
  await merchantCall('POST', `/payment/payouts/${cancelled.payout_id}/cancel`);
  const failed = (await merchantCall('POST', '/payment/quickpayout', payoutBody('INV-1003')))
    .payout;
  await op('POST', `/admin/payouts/${failed.payout_id}/review`, { action: 'approve' });
  await op('POST', `/admin/sandbox/payouts/${failed.payout_id}/execution`, {
    outcome: 'processing',
  });
  await op('POST', `/admin/sandbox/payouts/${failed.payout_id}/execution`, {
    outcome: 'failed',
    reason: 'recipient wallet closed',
  });
  await merchantCall('GET', `/payment/payouts/${failed.payout_id}`);
  await merchantCall('GET', '/payment/payouts?limit=2');

  // Account reads, after money moved.
  await merchantCall('GET', '/payment/account');
  await merchantCall('GET', '/payment/accounts');
  await merchantCall('GET', '/payment/balances');
  await merchantCall('GET', '/payment/deposits');
  await merchantCall('GET', '/payment/withdrawals');
  await merchantCall('GET', '/payment/ledger?sort_order=asc&limit=5');

  // Beneficiaries and their accounts.
  await merchantCall('GET', '/payment/beneficiaries');
  const { beneficiary } = await merchantCall('POST', '/payment/beneficiaries', {
    method_id: 1,
    name: 'John Roe',
    fields: { payee_id: 'john01', email: 'john@example.com' },
  });
  await merchantCall('GET', `/payment/beneficiaries/${beneficiary.beneficiary_id}`);
  const { beneficiary_account } = await merchantCall('POST', '/payment/beneficiary-accounts', {
    beneficiary_id: beneficiary.beneficiary_id,
    network_code: 'WALLETB',
    display_name: 'John main',
    fields: { walletb_account: '$johnroe' },
  });
  await merchantCall(
    'GET',
    `/payment/beneficiary-accounts/${beneficiary_account.beneficiary_account_id}`,
  );
  await merchantCall('GET', '/payment/beneficiary-accounts');
  await merchantCall(
    'PATCH',
    `/payment/beneficiary-accounts/${beneficiary_account.beneficiary_account_id}`,
    { status: 'suspended' },
  );
  await merchantCall('PATCH', `/payment/beneficiaries/${beneficiary.beneficiary_id}`, {
    status: 'disabled',
  });

  // Webhooks.
  const { webhook } = await merchantCall('POST', '/payment/webhooks', {
    url: 'https://acme.example/hooks/acquiring',
    events: ['acquiring.*'],
  });
  const other = (
    await merchantCall('POST', '/payment/webhooks', {
      url: 'https://acme.example/hooks/spare',
      events: ['acquiring.order.updated'],
    })
  ).webhook;
  await merchantCall('GET', `/payment/webhooks/${webhook.webhook_id}`);
  await merchantCall('GET', '/payment/webhooks');
  await merchantCall('PATCH', `/payment/webhooks/${other.webhook_id}`, { status: 'inactive' });
  await merchantCall('POST', `/payment/webhooks/${other.webhook_id}/rotate-secret`);
  await merchantCall('DELETE', `/payment/webhooks/${other.webhook_id}`);

  // Orders: a checkout order paid through the checkout calls, a direct one, a closed one.
  const orderBody = (outTradeNo: string) => ({
    out_trade_no: outTradeNo,
    order_currency: 'USD',
    order_amount: '10.00',
    expire_seconds: 900,
    underpay_tolerance: '0.10',
    notify_webhook_id: webhook.webhook_id,
  });
  const { order } = await merchantCall('POST', '/payment/acquiring/orders', orderBody('ORD-1'));
  await send('', 'GET', `/checkout/api/orders/${order.order_id}`);
  await send('', 'POST', `/checkout/api/orders/${order.order_id}/select`, {
    network: 'TRON',
    currency: 'USDT',
  });
  await send('', 'GET', `/checkout/api/orders/${order.order_id}`);
  await op('POST', `/admin/sandbox/acquiring/orders/${order.order_id}/payments`, {
    token_id: 'TRON_USDT',
    amount: '10.000000',
    status: 'confirmed',
    tx_hash: '0x9c1d',
  });
  await merchantCall('GET', `/payment/acquiring/orders/${order.order_id}`);
  await merchantCall('GET', `/payment/acquiring/orders/${order.order_id}/payments`);
  // A refund of part of it (ADR 0044): a reviewer approves, the executor sends it.
  const { refund } = await merchantCall(
    'POST',
    `/payment/acquiring/orders/${order.order_id}/refunds`,
    {
      refund_type: 'partial',
      amount: '4.000000',
      address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
      reason: 'one item out of stock',
    },
  );
  await op('POST', `/admin/acquiring/refunds/${refund.refund_id}/review`, { action: 'approve' });
  await op('POST', `/admin/sandbox/acquiring/refunds/${refund.refund_id}/execution`, {
    outcome: 'completed',
  });
  await merchantCall('GET', `/payment/acquiring/refunds/${refund.refund_id}`);
  await merchantCall('GET', `/payment/acquiring/orders/${order.order_id}/refunds`);
  const direct = await merchantCall('POST', '/payment/acquiring/orders', {
    ...orderBody('ORD-2'),
    mode: 'direct',
    network: 'ETH',
    currency: 'USDC',
    allowed_pay_currencies: ['ETH_USDC'],
  });
  // The sandbox chain watcher reports a payment to the direct order's address, first seen.
  await send(
    '',
    'POST',
    '/upstream/acquiring/sandbox',
    {
      events: [
        {
          network: 'ETH',
          address: direct.payment_address.address,
          token_id: 'ETH_USDC',
          tx_hash: '0x4b7e',
          amount: '10.000000',
          status: 'processing',
        },
      ],
    },
    watcherAddress,
  );
  const open = (await merchantCall('POST', '/payment/acquiring/orders', orderBody('ORD-3'))).order;
  await merchantCall('GET', `/payment/acquiring/orders/${open.order_id}`);
  await merchantCall('POST', `/payment/acquiring/orders/${open.order_id}/close`, {
    reason: 'customer cancelled',
  });
  await merchantCall('GET', '/payment/acquiring/orders?limit=2');
  // An order paid after it expired: an operator sees the late payment and accepts it as paid.
  const late = (await merchantCall('POST', '/payment/acquiring/orders', orderBody('ORD-4'))).order;
  await op('POST', '/admin/sandbox/clock/advance', { seconds: 901 });
  await op('POST', `/admin/sandbox/acquiring/orders/${late.order_id}/payments`, {
    token_id: 'TRON_USDT',
    amount: '10.000000',
    status: 'confirmed',
    tx_hash: '0x7f3a',
  });
  await op('GET', `/admin/acquiring/orders/${late.order_id}`);
  await op('POST', `/admin/acquiring/orders/${late.order_id}/resolve`, {
    action: 'accept',
    reason: 'paid 2 minutes late; goods shipped',
  });

  // A delivery of the acquiring webhook and a payout callback, as the webhook dispatcher
  // records them.
  await store.transaction(async (tx) => {
    const claimed = await tx.outbox.claim({
      worker: 'walkthrough',
      now: walkthroughNow,
      limit: 100,
      leaseSeconds: 60,
    });
    const message = claimed.find(
      (m) => m.destination.kind === 'webhook' && m.destination.webhookId === webhook.webhook_id,
    );
    if (message === undefined) throw new Error('walkthrough: no outbox row for the webhook');
    await tx.outbox.fail(message.outbox_id, 'walkthrough');
    await tx.webhookDeliveries.insert({
      delivery_id: 'dlv_1',
      account_id: accountId,
      event_id: message.event_id,
      event_type: message.event_type,
      business_type: message.business_type,
      business_id: message.business_id,
      webhook_id: webhook.webhook_id,
      url: webhook.url,
      status: 'failed',
      attempts: [
        {
          attempt: 1,
          at: walkthroughNow,
          status_code: 503,
          latency_ms: 120,
          error: null,
          response_body: 'Service Unavailable',
        },
      ],
      outbox_id: message.outbox_id,
      created_at: walkthroughNow,
      updated_at: walkthroughNow,
    });
    const callback = claimed.find(
      (m) => m.destination.kind === 'notify_url' && m.business_id === draft.payout_id,
    );
    if (callback === undefined) throw new Error('walkthrough: no callback for the payout');
    await tx.outbox.complete(callback.outbox_id, 'walkthrough');
    await tx.webhookDeliveries.insert({
      delivery_id: 'dlv_2',
      account_id: accountId,
      event_id: callback.event_id,
      event_type: callback.event_type,
      business_type: callback.business_type,
      business_id: callback.business_id,
      webhook_id: null,
      url: payoutBody('').notify_url,
      status: 'succeeded',
      attempts: [
        {
          attempt: 1,
          at: walkthroughNow,
          status_code: null,
          latency_ms: 15000,
          error: 'timeout: no complete answer within 15000 ms',
          response_body: '',
        },
        {
          attempt: 2,
          at: walkthroughNow + 5,
          status_code: 200,
          latency_ms: 48,
          error: null,
          response_body: 'OK',
        },
      ],
      outbox_id: callback.outbox_id,
      created_at: walkthroughNow,
      updated_at: walkthroughNow + 5,
    });
  });
  await merchantCall('GET', `/payment/webhooks/${webhook.webhook_id}/deliveries`);
  await merchantCall('GET', `/payment/payouts/${draft.payout_id}/deliveries`);
  await merchantCall('POST', '/payment/webhook-deliveries/dlv_1/redeliver');

  // A crypto batch, approved by a second key (four eyes).
  const item = (n: number, address: string) => ({
    order_no: `BATCH-${n}`,
    amount: '5.000000',
    beneficiary_account: { address },
  });
  const { batch } = await merchantCall('POST', '/payment/crypto-payouts/batches', {
    currency: 'USDT',
    method_id: 2,
    items: [item(1, 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8')],
    submit: false,
  });
  await merchantCall('POST', `/payment/crypto-payouts/batches/${batch.batch_id}/items`, {
    items: [item(2, '0x52908400098527886E0F7030069857D2E4169EE7')],
  });
  const { batch: read } = await merchantCall(
    'GET',
    `/payment/crypto-payouts/batches/${batch.batch_id}`,
  );
  await merchantCall('GET', `/payment/crypto-payouts/batches/${batch.batch_id}/items`);
  // The approver names the version it read: 1, the item added since creation included.
  await send(
    approver.api_key.token,
    'POST',
    `/payment/crypto-payouts/batches/${batch.batch_id}/approve`,
    { version: read.version },
  );
  await send(
    approver.api_key.token,
    'POST',
    `/payment/crypto-payouts/batches/${batch.batch_id}/submit`,
  );

  await op('POST', '/admin/sandbox/clock/advance', { seconds: 3600 });

  // Named operators (ADR 0039) and the audit trail (ADR 0040).
  const { operator } = await op('POST', '/admin/operators', { name: 'alice', role: 'reviewer' });
  await op('GET', '/admin/operators');
  await op('PATCH', `/admin/operators/${operator.operator_id}`, { role: 'viewer' });
  await op('POST', `/admin/operators/${operator.operator_id}/rotate`);
  await op('GET', `/admin/audit?object_id=${draft.payout_id}`);
  await merchantCall('GET', '/payment/audit?action=payout.create');

  // Statements (ADR 0045): the walk's first day in USD, as JSON (a page of its records) and as
  // CSV (streamed, kept as its text); the balances at the walk's first second; the day's report.
  const day = `currency=USD&start_at=${walkthroughNow}&end_at=${walkthroughNow + 86_400}`;
  await merchantCall('GET', `/payment/statements?${day}&limit=2`);
  const csvPath = `/payment/statements.csv?${day}`;
  const csv = await app.request(csvPath, { headers: { Authorization: `Bearer ${token}` } });
  const csvRoute = routeOf('GET', csvPath);
  if (csv.status !== 200 || csvRoute === undefined) {
    throw new Error(`walkthrough: GET ${csvPath} answered ${csv.status}`);
  }
  observed.set(csvRoute.operationId, [await csv.text()]);
  await merchantCall('GET', `/payment/balances?currency=USDT&at=${walkthroughNow}`);
  await op('GET', '/admin/reports/settlement?date=2027-01-15&limit=2');
  return observed;
};
