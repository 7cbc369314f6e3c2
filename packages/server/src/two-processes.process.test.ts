/**
 * Two server processes on one PostgreSQL schema, on different ports, started at the same
 * moment on an empty schema, and raced against each other through HTTP: idempotent creates,
 * a unique reference, executions competing for one balance, and the outbox drained by both.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresStore } from '@payrail/store-postgres';
import { postgresOracle } from '@payrail/store-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allPages,
  attempt,
  databaseUrl,
  dropSchema,
  freshSchema,
  loadEnv,
  postgresSkipped,
  type Receiver,
  sqlQuery,
  startReceiver,
  until,
} from './process-load.test-support.js';
import {
  adminToken,
  ok,
  type ServerProcess,
  startServerProcess,
} from './server-process.test-support.js';

const skipped = await postgresSkipped('the two-process test on PostgreSQL');

describe.skipIf(skipped)('two server processes on one PostgreSQL schema', () => {
  const schema = freshSchema('payrail_two');
  let dataDir = '';
  let receiver: Receiver;
  let servers: ServerProcess[] = [];
  /** The two base URLs; request i goes to `urls[i % 2]`. */
  let urls: string[] = [];
  let key = '';
  /** Every payout the tests created (and its merchant's key): the outbox test follows them. */
  const payoutKeys = new Map<string, string>();
  /** Every webhook the tests created (all of the first merchant). */
  const webhookIds: string[] = [];

  const payoutBody = (clientRequestId: string, reference: string, amount = '10.00') => ({
    client_request_id: clientRequestId,
    currency: 'USD',
    amount,
    method_id: 1,
    reference,
    notify_url: receiver.url('/payouts'),
    beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
    beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'jane@example.com' } },
  });

  const merchantWithKey = async (name: string) => {
    const { merchant } = await ok(urls[0] ?? '', 'POST', '/admin/merchants', adminToken, { name });
    const accountId = merchant.account_id as string;
    const { api_key } = await ok(
      urls[1] ?? '',
      'POST',
      `/admin/accounts/${accountId}/api-keys`,
      adminToken,
      {
        permissions: [
          'payment.payout.create',
          'payment.payout.submit',
          'payment.payout.read',
          'payment.acquiring.create',
          'payment.acquiring.read',
          'payment.wallet.read',
          'payment.webhook.read',
          'payment.webhook.write',
        ],
      },
    );
    return { accountId, key: api_key.token as string };
  };

  /** `count` calls at once, spread over both processes; each must be answered. */
  const race = async (
    count: number,
    call: (url: string, i: number) => ReturnType<typeof attempt>,
  ) => {
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) => call(urls[i % 2] ?? '', i)),
    );
    return answers.map((answer, i) => {
      if (answer === undefined) throw new Error(`call ${i} went unanswered`);
      return answer;
    });
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payrail-two-'));
    receiver = await startReceiver(() => Math.floor(Math.random() * 20));
    const env = {
      ...loadEnv(adminToken),
      DATABASE_URL: databaseUrl,
      PAYRAIL_DATABASE_SCHEMA: schema,
      PAYRAIL_KEY_SECRET: randomBytes(32).toString('base64url'),
    };
    // Both at once on an empty schema: the second must neither fail nor migrate or seed twice.
    servers = await Promise.all(
      ['a', 'b'].map((name) =>
        startServerProcess({ ...env, PAYRAIL_DATA_DIR: join(dataDir, name) }),
      ),
    );
    urls = servers.map((server) => server.url);
    ({ key } = await merchantWithKey('Twin Co'));
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop('SIGKILL')));
    await receiver?.close();
    await rm(dataDir, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('both start at once on an empty schema: migrated once, the sandbox catalogue seeded once', async () => {
    expect(urls[0]).not.toBe(urls[1]);
    const migrations = await sqlQuery<{ id: string }>(
      `SELECT id FROM "${schema}".payrail_migrations ORDER BY id`,
    );
    expect(migrations.length).toBeGreaterThanOrEqual(6);
    expect(new Set(migrations.map((row) => row.id)).size).toBe(migrations.length);
    for (const url of urls) {
      const routes = await ok(url, 'GET', '/admin/routes?limit=100', adminToken);
      expect(routes.items.map((route: { currency: string }) => route.currency).sort()).toEqual([
        'USD',
        'USDC',
        'USDT',
      ]);
      const networks = await ok(url, 'GET', '/admin/payout-networks', adminToken);
      const codes = networks.items.map((network: { code: string }) => network.code);
      expect(new Set(codes).size).toBe(codes.length);
    }
  });

  it('40 repeats of one client_request_id across both: one payout, 40 answers with its id', async () => {
    const body = payoutBody('twin-request', 'TWIN-REQUEST');
    const answers = await race(40, (url) =>
      attempt(url, 'POST', '/payment/quickpayout', key, body),
    );
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 200, code: 0, message: 'success' });
    }
    const ids = new Set(answers.map((answer) => answer.data.payout.payout_id as string));
    expect(ids.size).toBe(1);
    const listed = await ok(
      urls[1] ?? '',
      'GET',
      '/payment/payouts?client_request_id=twin-request',
      key,
    );
    expect(listed.total).toBe(1);
    expect(listed.items[0].payout_id).toBe([...ids][0]);
    for (const id of ids) payoutKeys.set(id, key);
  });

  it('40 creates of one reference across both: one payout, 39 `reference already exists`', async () => {
    const answers = await race(40, (url, i) =>
      attempt(url, 'POST', '/payment/quickpayout', key, payoutBody(`twin-ref-${i}`, 'TWIN-REF')),
    );
    const created = answers.filter((answer) => answer.code === 0);
    expect(created).toHaveLength(1);
    const refused = answers.filter((answer) => answer.code !== 0);
    expect(refused).toHaveLength(39);
    for (const answer of refused) {
      expect(answer).toEqual({
        status: 400,
        code: 53,
        message: 'reference already exists',
        data: null,
      });
    }
    const listed = await ok(urls[0] ?? '', 'GET', '/payment/payouts?reference=TWIN-REF', key);
    expect(listed.total).toBe(1);
    expect(listed.items[0].payout_id).toBe(created[0]?.data.payout.payout_id);
    payoutKeys.set(listed.items[0].payout_id, key);
  });

  it('40 orders of one out_trade_no across both: one order, 39 `out_trade_no already exists`', async () => {
    const { webhook } = await ok(urls[1] ?? '', 'POST', '/payment/webhooks', key, {
      url: receiver.url('/hooks-unused'),
      events: ['acquiring.*'],
    });
    webhookIds.push(webhook.webhook_id);
    const answers = await race(40, (url) =>
      attempt(url, 'POST', '/payment/acquiring/orders', key, {
        out_trade_no: 'TWIN-TRADE',
        order_currency: 'USD',
        order_amount: '5.00',
        expire_seconds: 600,
        underpay_tolerance: '0',
        notify_webhook_id: webhook.webhook_id,
      }),
    );
    const created = answers.filter((answer) => answer.code === 0);
    expect(created).toHaveLength(1);
    for (const answer of answers.filter((answer) => answer.code !== 0)) {
      expect(answer).toEqual({
        status: 400,
        code: 53,
        message: 'out_trade_no already exists',
        data: null,
      });
    }
    const listed = await ok(
      urls[0] ?? '',
      'GET',
      '/payment/acquiring/orders?out_trade_no=TWIN-TRADE',
      key,
    );
    expect(listed.total).toBe(1);
    expect(listed.items[0].order_id).toBe(created[0]?.data.order.order_id);
  });

  it('a balance for 10 payouts, 30 executing at once across both: 10 completed, 20 insufficient balance, 0.00 left', async () => {
    const tight = await merchantWithKey('Tight Co');
    // 10 x (10.00 + 0.50 fixed + 1 % of 10.00) = 106.00
    await ok(urls[0] ?? '', 'POST', `/admin/accounts/${tight.accountId}/credit`, adminToken, {
      currency: 'USD',
      amount: '106.00',
    });
    const created = await race(30, (url, i) =>
      attempt(
        url,
        'POST',
        '/payment/quickpayout',
        tight.key,
        payoutBody(`tight-${i}`, `TIGHT-${i}`),
      ),
    );
    for (const answer of created) expect(answer).toMatchObject({ status: 200, code: 0 });
    const ids = created.map((answer) => answer.data.payout.payout_id as string);
    for (const id of ids) payoutKeys.set(id, tight.key);
    const approved = await race(30, (url, i) =>
      attempt(url, 'POST', `/admin/payouts/${ids[i]}/review`, adminToken, { action: 'approve' }),
    );
    for (const answer of approved) {
      expect(answer).toMatchObject({
        status: 200,
        code: 0,
        data: { payout: { status: 'approved' } },
      });
    }

    const executed = await race(30, (url, i) =>
      attempt(url, 'POST', `/admin/sandbox/payouts/${ids[i]}/execution`, adminToken, {
        outcome: 'completed',
      }),
    );
    for (const answer of executed) expect(answer).toMatchObject({ status: 200, code: 0 });
    const payouts = await Promise.all(
      ids.map(
        async (id, i) =>
          (await ok(urls[i % 2] ?? '', 'GET', `/payment/payouts/${id}`, tight.key)).payout,
      ),
    );
    const completed = payouts.filter((payout) => payout.status === 'completed');
    const failed = payouts.filter((payout) => payout.status === 'failed');
    expect(completed).toHaveLength(10);
    expect(failed).toHaveLength(20);
    for (const payout of failed) {
      expect(payout).toMatchObject({
        execution_status: 'failed',
        execution_fail_reason: 'insufficient balance',
      });
    }
    // What each execution answered is what the payout now reads.
    expect(executed.map((answer) => answer.data.payout.status)).toEqual(
      payouts.map((payout) => payout.status),
    );
    for (const url of urls) {
      const balances = await ok(url, 'GET', '/payment/balances?currency=USD', tight.key);
      expect(balances.items).toEqual([
        { currency: 'USD', available: '0.00', held: '0.00', total: '0.00' },
      ]);
    }
  });

  it('the outbox drained by both sends each event once', async () => {
    const { webhook } = await ok(urls[0] ?? '', 'POST', '/payment/webhooks', key, {
      url: receiver.url('/hooks'),
      events: ['acquiring.*'],
    });
    webhookIds.push(webhook.webhook_id);
    const orders = await race(10, (url, i) =>
      attempt(url, 'POST', '/payment/acquiring/orders', key, {
        out_trade_no: `TWIN-ORDER-${i}`,
        order_currency: 'USD',
        order_amount: '5.00',
        mode: 'direct',
        network: 'TRON',
        currency: 'USDT',
        expire_seconds: 600,
        underpay_tolerance: '0',
        notify_webhook_id: webhook.webhook_id,
      }),
    );
    const orderIds = orders.map((answer) => answer.data.order.order_id as string);
    const paid = await race(10, (url, i) =>
      attempt(url, 'POST', `/admin/sandbox/acquiring/orders/${orderIds[i]}/payments`, adminToken, {
        token_id: 'TRON_USDT',
        amount: '5.000000',
        status: 'confirmed',
        tx_hash: `0xtwin${i}`,
      }),
    );
    for (const answer of paid) expect(answer).toMatchObject({ status: 200, code: 0 });

    // The outbox itself, read through the store's oracle (raw SQL): every message delivered.
    const store = await createPostgresStore({ connectionString: databaseUrl, schema });
    let outbox: Awaited<ReturnType<ReturnType<typeof postgresOracle>['outbox']>> = [];
    try {
      await until('the outbox drained', async () => {
        outbox = await postgresOracle(store).outbox();
        return outbox.every((message) => message.status === 'delivered');
      });
    } finally {
      await store.close();
    }
    const events = new Set(outbox.map((message) => message.event_id));
    // At least an approval and an execution event for each of the 32 payouts, one per order.
    expect(events.size).toBeGreaterThanOrEqual(32 * 2 + 10);
    const counts = receiver.counts();
    expect([...events].filter((id) => counts.get(id) !== 1)).toEqual([]);
    expect(receiver.received).toHaveLength(events.size);

    // The delivery logs, as a merchant reads them, tell the same.
    const base = urls[1] ?? '';
    const logged: { event_id: string; status: string }[] = [];
    for (const id of webhookIds) {
      logged.push(
        ...(await allPages<{ event_id: string; status: string }>((offset) =>
          ok(base, 'GET', `/payment/webhooks/${id}/deliveries?limit=100&offset=${offset}`, key),
        )),
      );
    }
    for (const [id, owner] of payoutKeys) {
      logged.push(
        ...(await allPages<{ event_id: string; status: string }>((offset) =>
          ok(base, 'GET', `/payment/payouts/${id}/deliveries?limit=100&offset=${offset}`, owner),
        )),
      );
    }
    expect(logged.map((delivery) => delivery.event_id).sort()).toEqual([...events].sort());
    expect(logged.filter((delivery) => delivery.status !== 'succeeded')).toEqual([]);
    for (const server of servers) expect(server.output()).not.toContain('dispatcher failed');
  });
});
