/**
 * Every route's happy path through HTTP on the real engine, walked as an operator
 * and two merchants would: the sandbox catalogue, a merchant and keys, funding, a payout from draft
 * to completed, a cancelled one, beneficiaries, webhooks, an order paid through the checkout
 * calls, a closed one, and a four-eyes crypto batch. The last test checks that every route of
 * the table answered a success at least once. On every store of stores.test-support.ts.
 */
import {
  generateSandboxUpstreamSecret,
  sandboxAcquiringProvider,
  signSandboxUpstream,
} from '@payrail/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  type EngineApp,
  engineApp,
  operatorToken,
  quickPayout,
  testNow,
} from './engine-app.test-support.js';
import { routes } from './routes/route-table.js';
import { storesUnderTest } from './stores.test-support.js';

/** The sandbox provider's signing secret: its chain watcher signs every report. */
const upstreamSecret = generateSandboxUpstreamSecret();

describe.each(storesUnderTest)('every endpoint, happy path (real engine, $name)', (under) => {
  const succeeded = new Set<string>();
  const patterns = routes.map((route) => ({
    key: `${route.method.toUpperCase()} ${route.path}`,
    method: route.method.toUpperCase(),
    regex: new RegExp(`^${route.path.replace(/\{[a-z_]+\}/g, '[^/]+')}$`),
  }));

  let h: EngineApp;
  let send: (method: string, path: string, token: string, body?: unknown) => Promise<Answer>;
  let a: Awaited<ReturnType<EngineApp['merchant']>>;
  let approver: { keyId: string; token: string };

  /** Calls and records the route as succeeded; answers `data`, failing on an error. */
  const ok = async (method: string, path: string, token: string, body?: unknown) => {
    const answer = await send(method, path, token, body);
    expect(answer.body, `${method} ${path}`).toMatchObject({ code: 0, message: 'success' });
    expect(answer.status).toBe(200);
    return answer.body.data;
  };
  const op = (method: string, path: string, body?: unknown) =>
    ok(method, path, operatorToken, body);
  const merchant = (method: string, path: string, body?: unknown) =>
    ok(method, path, a.token, body);

  let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;

  beforeAll(async () => {
    store = await under.open();
    h = engineApp({
      store,
      acquiringProviders: [
        sandboxAcquiringProvider({ allowedSources: ['127.0.0.1/32'], secret: upstreamSecret }),
      ],
    });
    h.observe((method, path, answer) => {
      const bare = path.split('?')[0] ?? '';
      const route = patterns.find((p) => p.method === method && p.regex.test(bare));
      if (answer.status === 200 && route) succeeded.add(route.key);
    });
    send = (method, path, token, body) =>
      h.call(method, path, token === '' ? {} : { Authorization: `Bearer ${token}` }, body);
  });

  afterAll(async () => {
    await store.close?.();
  });

  it('configures the sandbox catalogue through the admin API', async () => {
    await h.seedCatalogue();
    const methods = await op('GET', '/admin/payout-methods');
    expect(methods.items.map((m: { method_id: number }) => m.method_id)).toEqual([1, 2]);
    const networks = await op('GET', '/admin/payout-networks');
    expect(networks.items.map((n: { code: string }) => n.code).sort()).toEqual([
      'EVM',
      'TRON',
      'WALLETA',
      'WALLETB',
    ]);
    const { items: routeList } = await op('GET', '/admin/routes');
    expect(routeList).toHaveLength(3);
    await op('PATCH', '/admin/payout-methods/1', { name: 'Wallet payout (sandbox)' });
    await op('PATCH', '/admin/payout-networks/WALLETA', { name: 'Wallet A' });
    const usd = routeList.find((r: { currency: string }) => r.currency === 'USD');
    await op('PATCH', `/admin/routes/${usd.route_id}`, { max_amount: '200000.00' });
    // The operator's edit shows in the list.
    expect((await op('GET', '/admin/payout-methods')).items[0]).toMatchObject({
      name: 'Wallet payout (sandbox)',
    });
  });

  it('creates a merchant, manages its keys and account, funds it', async () => {
    const created = await op('POST', '/admin/merchants', { name: 'Acme' });
    expect(created.merchant).toMatchObject({ merchant_id: 'mch_1', account_id: 'acc_1' });
    expect(created.merchant.notify_secret).toMatch(/^whsec_/);
    const { api_key } = await op('POST', '/admin/accounts/acc_1/api-keys', {
      permissions: [
        'payment.account.read',
        'payment.wallet.read',
        'payment.ledger.read',
        'payment.payout.create',
        'payment.payout.submit',
        'payment.payout.read',
        'payment.payout.update',
        'payment.payout.cancel',
        'payment.payout.beneficiary.read',
        'payment.payout.beneficiary.write',
        'payment.payout.beneficiary_account.read',
        'payment.payout.beneficiary_account.write',
        'payment.acquiring.create',
        'payment.acquiring.read',
        'payment.acquiring.close',
        'payment.acquiring.refund',
        'payment.webhook.read',
        'payment.webhook.write',
      ],
    });
    expect(api_key).toMatchObject({ key_id: 'key_1', expires_at: testNow + 30 * 24 * 3600 });
    a = { merchantId: 'mch_1', accountId: 'acc_1', keyId: api_key.key_id, token: api_key.token };
    const spare = await op('POST', '/admin/accounts/acc_1/api-keys', {
      permissions: ['payment.account.read'],
    });
    const rotated = await op('POST', `/admin/api-keys/${spare.api_key.key_id}/rotate`);
    expect(rotated.api_key.token).not.toBe(spare.api_key.token);
    await op('PATCH', `/admin/api-keys/${spare.api_key.key_id}`, { status: 'disabled' });
    await op('DELETE', `/admin/api-keys/${spare.api_key.key_id}`);
    const keys = await op('GET', '/admin/accounts/acc_1/api-keys');
    expect(JSON.stringify(keys)).not.toContain(api_key.token);
    expect(
      (await op('PATCH', '/admin/accounts/acc_1', { default_pay_tokens: ['TRON_USDT'] })).account,
    ).toMatchObject({ default_pay_tokens: ['TRON_USDT'] });
    const secret = await op('POST', '/admin/accounts/acc_1/notify-secret/rotate');
    expect(secret.account.notify_secret).toMatch(/^whsec_/);
    expect(secret.account.notify_secret).not.toBe(created.merchant.notify_secret);
    await op('POST', '/admin/accounts/acc_1/credit', { currency: 'USD', amount: '1000.00' });
    await op('POST', '/admin/accounts/acc_1/credit', { currency: 'USDT', amount: '500.000000' });
    approver = await h.issueKey('acc_1', {
      permissions: ['payment.payout.submit', 'payment.payout.read'],
    });
  });

  it('reads the account, balances, deposits, withdrawals and the ledger', async () => {
    expect((await merchant('GET', '/payment/account')).account).toMatchObject({
      account_id: 'acc_1',
      status: 'active',
    });
    expect((await merchant('GET', '/payment/accounts')).items).toHaveLength(1);
    expect(JSON.stringify(await merchant('GET', '/payment/balances?currency=USD'))).toContain(
      '1000.00',
    );
    expect((await merchant('GET', '/payment/deposits')).total).toBe(2);
    expect((await merchant('GET', '/payment/withdrawals')).total).toBe(0);
    expect((await merchant('GET', '/payment/ledger?sort_order=asc')).total).toBeGreaterThan(0);
  });

  it('looks up payout methods and networks', async () => {
    expect(JSON.stringify(await merchant('GET', '/payment/payout-methods?currency=USD'))).toContain(
      '"method_id":1',
    );
    expect(
      JSON.stringify(await merchant('GET', '/payment/payout-networks?include_schema=true')),
    ).toContain('walleta_email');
    expect(
      JSON.stringify(await merchant('GET', '/payment/payout-networks/WALLETB/schema')),
    ).toContain('walletb_account');
  });

  it('takes a payout from draft to completed, and cancels another', async () => {
    const { payout } = await merchant('POST', '/payment/quickpayout', {
      ...quickPayout('R1'),
      submit: false,
    });
    expect(payout).toMatchObject({
      status: 'draft',
      review_status: 'draft',
      execution_status: 'init',
    });
    expect(
      (await merchant('PATCH', `/payment/payouts/${payout.payout_id}`, { amount: '30.00' })).payout
        .amount,
    ).toBe('30.00');
    expect(
      (await merchant('POST', `/payment/payouts/${payout.payout_id}/submit`)).payout.status,
    ).toBe('pending_review');
    expect(
      (await op('POST', `/admin/payouts/${payout.payout_id}/review`, { action: 'approve' })).payout
        .status,
    ).toBe('approved');
    await op('POST', `/admin/sandbox/payouts/${payout.payout_id}/execution`, {
      outcome: 'completed',
    });
    expect((await merchant('GET', `/payment/payouts/${payout.payout_id}`)).payout).toMatchObject({
      status: 'completed',
      review_status: 'approved',
      execution_status: 'completed',
    });
    const callbacks = await merchant('GET', `/payment/payouts/${payout.payout_id}/deliveries`);
    expect(callbacks).toEqual({ items: [], total: 0, limit: 20, offset: 0 });
    const other = (await merchant('POST', '/payment/quickpayout', quickPayout('R2'))).payout;
    expect(
      (await merchant('POST', `/payment/payouts/${other.payout_id}/cancel`)).payout,
    ).toMatchObject({
      status: 'cancelled',
      review_status: 'pending_review',
      execution_status: 'cancelled',
    });
    expect((await merchant('GET', '/payment/payouts?status=completed')).items).toHaveLength(1);
    // 1000.00 - (30.00 + 0.50 + 1 % of 30.00)
    expect(JSON.stringify(await merchant('GET', '/payment/balances?currency=USD'))).toContain(
      '969.20',
    );
  });

  it('manages beneficiaries and their accounts', async () => {
    expect((await merchant('GET', '/payment/beneficiaries')).total).toBe(2);
    const created = await merchant('POST', '/payment/beneficiaries', {
      method_id: 1,
      name: 'John Roe',
      fields: { payee_id: 'john01' },
    });
    const id = created.beneficiary.beneficiary_id;
    expect((await merchant('GET', `/payment/beneficiaries/${id}`)).beneficiary.name).toBe(
      'John Roe',
    );
    const account = await merchant('POST', '/payment/beneficiary-accounts', {
      beneficiary_id: id,
      network_code: 'WALLETB',
      fields: { walletb_account: '$john' },
    });
    const accountId = account.beneficiary_account.beneficiary_account_id;
    expect(
      (await merchant('GET', `/payment/beneficiary-accounts/${accountId}`)).beneficiary_account
        .status,
    ).toBe('active');
    expect((await merchant('GET', '/payment/beneficiary-accounts')).total).toBe(3);
    expect(
      (
        await merchant('PATCH', `/payment/beneficiary-accounts/${accountId}`, {
          status: 'suspended',
        })
      ).beneficiary_account.status,
    ).toBe('suspended');
    expect(
      (await merchant('PATCH', `/payment/beneficiaries/${id}`, { status: 'disabled' })).beneficiary
        .status,
    ).toBe('disabled');
  });

  let webhookId = '';
  it('manages webhooks', async () => {
    const { webhook } = await merchant('POST', '/payment/webhooks', {
      url: 'https://acme.example/hooks',
      events: ['acquiring.*'],
    });
    expect(webhook.secret).toMatch(/^whsec_/);
    webhookId = webhook.webhook_id;
    const spare = (
      await merchant('POST', '/payment/webhooks', {
        url: 'https://acme.example/spare',
        events: ['payout.*'],
      })
    ).webhook;
    expect((await merchant('GET', `/payment/webhooks/${webhookId}`)).webhook).not.toHaveProperty(
      'secret',
    );
    expect((await merchant('GET', '/payment/webhooks')).total).toBe(2);
    expect(
      (await merchant('PATCH', `/payment/webhooks/${spare.webhook_id}`, { status: 'inactive' }))
        .webhook.status,
    ).toBe('inactive');
    const rotated = await merchant('POST', `/payment/webhooks/${spare.webhook_id}/rotate-secret`);
    expect(rotated.webhook.secret).not.toBe(spare.secret);
    await merchant('DELETE', `/payment/webhooks/${spare.webhook_id}`);
    expect((await merchant('GET', '/payment/webhooks')).total).toBe(1);
  });

  it('takes an order through the checkout calls to completed, and closes another', async () => {
    const orderBody = (outTradeNo: string) => ({
      out_trade_no: outTradeNo,
      order_currency: 'USD',
      order_amount: '10.00',
      expire_seconds: 600,
      underpay_tolerance: '0',
      notify_webhook_id: webhookId,
    });
    const { order } = await merchant('POST', '/payment/acquiring/orders', orderBody('O1'));
    expect(order).toMatchObject({ status: 'pending', allowed_pay_currencies: ['TRON_USDT'] });
    expect(order.checkout_url).toBe(`https://pay.example/checkout/${order.order_id}`);
    await ok('GET', `/checkout/api/orders/${order.order_id}`, '');
    await ok('POST', `/checkout/api/orders/${order.order_id}/select`, '', {
      network: 'TRON',
      currency: 'USDT',
    });
    await op('POST', `/admin/sandbox/acquiring/orders/${order.order_id}/payments`, {
      token_id: 'TRON_USDT',
      amount: '10.000000',
      status: 'confirmed',
      tx_hash: '0xabc',
    });
    expect(
      (await merchant('GET', `/payment/acquiring/orders/${order.order_id}`)).order.status,
    ).toBe('completed');
    expect(
      JSON.stringify(await merchant('GET', `/payment/acquiring/orders/${order.order_id}/payments`)),
    ).toContain('TRON_USDT');
    const second = (await merchant('POST', '/payment/acquiring/orders', orderBody('O2'))).order;
    expect(
      (
        await merchant('POST', `/payment/acquiring/orders/${second.order_id}/close`, {
          reason: 'customer left',
        })
      ).order.status,
    ).toBe('closed');
    expect((await merchant('GET', '/payment/acquiring/orders?status=completed')).total).toBe(1);
  });

  it('refunds part of a paid order through review and execution, and resolves one paid late', async () => {
    const orderBody = (outTradeNo: string) => ({
      out_trade_no: outTradeNo,
      order_currency: 'USD',
      order_amount: '10.00',
      expire_seconds: 600,
      underpay_tolerance: '0',
      notify_webhook_id: webhookId,
      mode: 'direct',
      network: 'TRON',
      currency: 'USDT',
    });
    const paid = (await merchant('POST', '/payment/acquiring/orders', orderBody('R1'))).order;
    await op('POST', `/admin/sandbox/acquiring/orders/${paid.order_id}/payments`, {
      token_id: 'TRON_USDT',
      amount: '10.000000',
      status: 'confirmed',
    });
    const { refund } = await merchant(
      'POST',
      `/payment/acquiring/orders/${paid.order_id}/refunds`,
      { refund_type: 'partial', amount: '4', address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' },
    );
    expect(refund).toMatchObject({ status: 'requested', amount: '4.000000' });
    await op('POST', `/admin/acquiring/refunds/${refund.refund_id}/review`, { action: 'approve' });
    await op('POST', `/admin/sandbox/acquiring/refunds/${refund.refund_id}/execution`, {
      outcome: 'completed',
    });
    expect(
      (await merchant('GET', `/payment/acquiring/refunds/${refund.refund_id}`)).refund.status,
    ).toBe('completed');
    expect(
      (await merchant('GET', `/payment/acquiring/orders/${paid.order_id}/refunds`)).items,
    ).toHaveLength(1);

    const late = (await merchant('POST', '/payment/acquiring/orders', orderBody('R2'))).order;
    await op('POST', '/admin/sandbox/clock/advance', { seconds: 601 });
    await op('POST', `/admin/sandbox/acquiring/orders/${late.order_id}/payments`, {
      token_id: 'TRON_USDT',
      amount: '10.000000',
      status: 'confirmed',
    });
    expect((await op('GET', `/admin/acquiring/orders/${late.order_id}`)).payments).toHaveLength(1);
    const resolved = await op('POST', `/admin/acquiring/orders/${late.order_id}/resolve`, {
      action: 'accept',
      reason: 'paid late',
    });
    expect(resolved.order).toMatchObject({ status: 'completed', resolution: { action: 'accept' } });
  });

  it('redelivers a delivery', async () => {
    // What the outbox dispatcher (another package) does: claim the webhook's message, fail it
    // after its last attempt, and record the delivery.
    await h.store.transaction(async (tx) => {
      const claimed = await tx.outbox.claim({
        worker: 'test',
        now: testNow,
        limit: 100,
        leaseSeconds: 60,
      });
      const message = claimed.find(
        (m) => m.destination.kind === 'webhook' && m.destination.webhookId === webhookId,
      );
      if (message === undefined) throw new Error('no outbox message for the webhook');
      await tx.outbox.fail(message.outbox_id, 'test');
      await tx.webhookDeliveries.insert({
        delivery_id: 'dlv_1',
        account_id: 'acc_1',
        event_id: message.event_id,
        event_type: message.event_type,
        business_type: message.business_type,
        business_id: message.business_id,
        webhook_id: webhookId,
        url: 'https://acme.example/hooks',
        status: 'failed',
        attempts: [],
        outbox_id: message.outbox_id,
        created_at: testNow,
        updated_at: testNow,
      });
    });
    expect((await merchant('GET', `/payment/webhooks/${webhookId}/deliveries`)).total).toBe(1);
    expect(
      (await merchant('POST', '/payment/webhook-deliveries/dlv_1/redeliver')).delivery,
    ).toMatchObject({
      delivery_id: 'dlv_1',
      status: 'pending',
    });
  });

  it('runs a crypto batch with four-eyes approval', async () => {
    const item = (n: number, address: string) => ({
      order_no: `B${n}`,
      amount: '5',
      beneficiary_account: { address },
    });
    const { batch } = await merchant('POST', '/payment/crypto-payouts/batches', {
      currency: 'USDT',
      method_id: 2,
      items: [item(1, 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8')],
      submit: false,
    });
    await merchant('POST', `/payment/crypto-payouts/batches/${batch.batch_id}/items`, {
      items: [item(2, '0x52908400098527886E0F7030069857D2E4169EE7')],
    });
    expect(
      (await merchant('GET', `/payment/crypto-payouts/batches/${batch.batch_id}`)).batch.item_count,
    ).toBe(2);
    expect(
      (await merchant('GET', `/payment/crypto-payouts/batches/${batch.batch_id}/items`)).total,
    ).toBe(2);
    const creatorApproves = await send(
      'POST',
      `/payment/crypto-payouts/batches/${batch.batch_id}/approve`,
      a.token,
      { version: 1 },
    );
    expect(creatorApproves.body.message).toBe(
      'batch must be approved by a key other than its creator',
    );
    const { batch: read } = await merchant(
      'GET',
      `/payment/crypto-payouts/batches/${batch.batch_id}`,
    );
    expect(read.version).toBe(1);
    await ok('POST', `/payment/crypto-payouts/batches/${batch.batch_id}/approve`, approver.token, {
      version: read.version,
    });
    const { batch: submitted } = await ok(
      'POST',
      `/payment/crypto-payouts/batches/${batch.batch_id}/submit`,
      approver.token,
    );
    expect(submitted.status).toBe('submitted');
    expect((await merchant('GET', '/payment/payouts?reference=B1')).total).toBe(1);
  });

  it('receives a chain payment for a direct order from the sandbox provider', async () => {
    const { order, payment_address } = await merchant('POST', '/payment/acquiring/orders', {
      out_trade_no: 'O-UP',
      order_currency: 'USD',
      order_amount: '10.00',
      allowed_pay_currencies: ['TRON_USDT'],
      expire_seconds: 600,
      underpay_tolerance: '0',
      notify_webhook_id: webhookId,
      mode: 'direct',
      network: 'TRON',
      currency: 'USDT',
    });
    const report = {
      events: [
        {
          network: 'TRON',
          address: payment_address.address,
          token_id: 'TRON_USDT',
          tx_hash: 'up-1',
          amount: '10',
          status: 'confirmed',
        },
      ],
    };
    const received = (
      await h.call(
        'POST',
        '/upstream/acquiring/sandbox',
        signSandboxUpstream(upstreamSecret, JSON.stringify(report)),
        report,
      )
    ).body.data;
    expect(received.events).toEqual([
      expect.objectContaining({ order_id: order.order_id, order_status: 'completed' }),
    ]);
  });

  it('manages named operators, and reads the audit trail as an operator and as a merchant', async () => {
    const { operator } = await op('POST', '/admin/operators', { name: 'alice', role: 'reviewer' });
    expect(operator).toMatchObject({ name: 'alice', role: 'reviewer', status: 'active' });
    expect(operator.token).toMatch(new RegExp(`^${operator.operator_id}\\.`));
    const listed = await op('GET', '/admin/operators');
    expect(listed.items).toEqual([
      expect.objectContaining({ operator_id: operator.operator_id, name: 'alice' }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(operator.token);
    // The operator's own credential opens /admin; every role reads.
    expect((await ok('GET', '/admin/operators', operator.token)).total).toBe(1);
    expect(
      (await op('PATCH', `/admin/operators/${operator.operator_id}`, { role: 'viewer' })).operator,
    ).toMatchObject({ operator_id: operator.operator_id, role: 'viewer' });
    const rotated = await op('POST', `/admin/operators/${operator.operator_id}/rotate`);
    expect(rotated.operator.token).not.toBe(operator.token);
    expect((await ok('GET', '/admin/operators', rotated.operator.token)).total).toBe(1);

    const trail = await op('GET', `/admin/audit?object_id=${operator.operator_id}`);
    expect(trail.items.map((r: { action: string }) => r.action).sort()).toEqual([
      'operator.create',
      'operator.rotate',
      'operator.update',
    ]);
    for (const record of trail.items) {
      expect(record).toMatchObject({
        actor_type: 'operator',
        actor_id: 'bootstrap',
        object_type: 'operator',
        object_id: operator.operator_id,
        request_id: expect.any(String),
      });
    }
    const own = await merchant('GET', '/payment/audit?action=payout.create');
    expect(own.total).toBeGreaterThan(0);
    for (const record of own.items) {
      expect(record).toMatchObject({
        actor_type: 'api_key',
        actor_id: a.keyId,
        action: 'payout.create',
        object_type: 'payout',
        account_id: 'acc_1',
      });
    }
  });

  it('moves the sandbox clock', async () => {
    const before = (await op('POST', '/admin/sandbox/clock/advance', { seconds: 0 })).clock.now;
    expect(before).toBeGreaterThanOrEqual(testNow);
    expect((await op('POST', '/admin/sandbox/clock/advance', { seconds: 3600 })).clock.now).toBe(
      before + 3600,
    );
  });

  it('reads a statement, as JSON and as CSV, balances at a second, and the settlement report', async () => {
    const period = `currency=USD&start_at=0&end_at=${testNow + 1}`;
    const { statement } = await merchant('GET', `/payment/statements?${period}`);
    expect(statement.available.opening).toBe('0.00');
    const csvPath = `/payment/statements.csv?${period}`;
    const res = await h.app.request(csvPath, { headers: { Authorization: `Bearer ${a.token}` } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/\r\nclosing,\d+,[^,]+,USD,held,,,0\.00,,,,\r\n$/);
    succeeded.add(`GET ${csvPath.split('?')[0]}`);
    const { items } = await merchant('GET', `/payment/balances?currency=USD&at=${testNow}`);
    expect(items[0].available).toBe(statement.available.closing);
    const date = new Date(testNow * 1000).toISOString().slice(0, 10);
    const { report } = await op('GET', `/admin/reports/settlement?date=${date}`);
    expect(report.platform_totals.length).toBeGreaterThan(0);
  });

  it('has answered a success on every route', () => {
    const missing = patterns.map((p) => p.key).filter((key) => !succeeded.has(key));
    expect(missing).toEqual([]);
  });
});
