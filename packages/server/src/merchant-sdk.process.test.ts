/**
 * The merchant SDK (`@payrail/client`, docs/sdk.md) against the real server process, as
 * `pnpm start` runs it (embedded PostgreSQL, sandbox, insecure webhooks allowed): the README's
 * curl walkthrough with every merchant call made through the SDK and every operator act through
 * plain fetch, a create repeated under its client_request_id (and one whose first answer the
 * network lost, repeated by the client with the id it made: one payout), refusals read as
 * `PayrailError`, lists walked page by page, and real deliveries of the server to a receiver on
 * 127.0.0.1 verified with `verifyWebhook` (a tampered copy and another secret refused).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createPayrailClient,
  isPayrailError,
  type PayrailClient,
  type PayrailWebhookEvent,
  verifyWebhook,
  WebhookVerificationError,
} from '@payrail/client';
import { permissions } from '@payrail/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminToken,
  ok,
  type ServerProcess,
  startServerProcess,
} from './server-process.test-support.js';

interface Delivery {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  readonly body: Buffer;
}

/** A receiver on 127.0.0.1 that keeps every delivery's bytes and headers and answers 204. */
const startReceiver = async () => {
  const received: Delivery[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    received,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

const until = async (what: string, check: () => boolean, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const refusal = async (run: () => Promise<unknown>): Promise<unknown> => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('the call was not refused');
};

let dataDir = '';
let server: ServerProcess | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'payrail-sdk-'));
  receiver = await startReceiver();
  server = await startServerProcess({
    PORT: '0',
    PAYRAIL_DATA_DIR: dataDir,
    PAYRAIL_ADMIN_TOKEN: adminToken,
    PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1',
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the merchant SDK against the running server', () => {
  it('drives the README walkthrough and verifies real deliveries', async () => {
    const url = server?.url ?? '';
    // The operator: a merchant, a key with every permission, 100.00 USD (plain fetch).
    const { merchant } = await ok(url, 'POST', '/admin/merchants', adminToken, { name: 'Acme' });
    const accountId: string = merchant.account_id;
    const notifySecret: string = merchant.notify_secret;
    const { api_key } = await ok(url, 'POST', `/admin/accounts/${accountId}/api-keys`, adminToken, {
      permissions,
    });
    await ok(url, 'POST', `/admin/accounts/${accountId}/credit`, adminToken, {
      currency: 'USD',
      amount: '100.00',
    });
    const client: PayrailClient = createPayrailClient({ baseUrl: url, apiKey: api_key.token });

    // A payout to a WALLETA e-mail; its repeat under the same client_request_id is the same payout.
    const body = {
      client_request_id: 'readme-1',
      reference: 'INV-1001',
      currency: 'USD',
      amount: '25.00',
      method_id: 1,
      notify_url: receiver.url('/payouts'),
      beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
      beneficiary_account: {
        network_code: 'WALLETA',
        fields: { walleta_email: 'jane@example.com' },
      },
    } as const;
    const { payout } = await client.POST('/payment/quickpayout', { body });
    expect(payout.status).toBe('pending_review');
    const again = await client.POST('/payment/quickpayout', { body });
    expect(again.payout.payout_id).toBe(payout.payout_id);
    const reused = await refusal(() =>
      client.POST('/payment/quickpayout', { body: { ...body, amount: '26.00' } }),
    );
    expect(isPayrailError(reused, 'client_request_id_already_used')).toBe(true);
    expect(reused).toMatchObject({ status: 400, code: 53 });

    // Alice, a reviewer, approves; the sandbox completes it.
    const { operator } = await ok(url, 'POST', '/admin/operators', adminToken, {
      name: 'alice',
      role: 'reviewer',
    });
    const alice: string = operator.token;
    const payoutId = payout.payout_id;
    await ok(url, 'POST', `/admin/payouts/${payoutId}/review`, alice, { action: 'approve' });
    await ok(url, 'POST', `/admin/sandbox/payouts/${payoutId}/execution`, adminToken, {
      outcome: 'completed',
    });
    const read = await client.GET('/payment/payouts/{payout_id}', {
      params: { path: { payout_id: payoutId } },
    });
    expect(read.payout).toMatchObject({ status: 'completed', execution_status: 'completed' });
    const balances = await client.GET('/payment/balances', {
      params: { query: { currency: 'USD' } },
    });
    expect(balances.items[0]?.available).toBe('74.25');
    const audit = await ok(
      url,
      'GET',
      `/admin/audit?object_id=${payoutId}&action=payout.review`,
      adminToken,
    );
    expect(audit.items[0].actor_name).toBe('alice');

    // A webhook at the receiver, an order notifying it, paid as the sandbox chain would.
    const { webhook } = await client.POST('/payment/webhooks', {
      body: { url: receiver.url('/hooks'), events: ['acquiring.*'] },
    });
    const { order } = await client.POST('/payment/acquiring/orders', {
      body: {
        out_trade_no: 'ORDER-1001',
        order_currency: 'USD',
        order_amount: '10.00',
        expire_seconds: 600,
        underpay_tolerance: '0',
        notify_webhook_id: webhook.webhook_id,
      },
    });
    const orderPath = { params: { path: { order_id: order.order_id } } } as const;
    await ok(
      url,
      'POST',
      `/admin/sandbox/acquiring/orders/${order.order_id}/payments`,
      adminToken,
      {
        token_id: 'TRON_USDT',
        amount: '10.000000',
        status: 'confirmed',
        tx_hash: '0xfeed',
      },
    );
    expect((await client.GET('/payment/acquiring/orders/{order_id}', orderPath)).order.status).toBe(
      'completed',
    );

    // A partial refund: requested through the SDK (its client_refund_id made by the client),
    // approved by Alice, sent by the sandbox's executor.
    const { refund } = await client.POST('/payment/acquiring/orders/{order_id}/refunds', {
      ...orderPath,
      body: { refund_type: 'partial', amount: '4', address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' },
    });
    expect(refund.client_refund_id).toMatch(/^[0-9a-f-]{36}$/);
    await ok(url, 'POST', `/admin/acquiring/refunds/${refund.refund_id}/review`, alice, {
      action: 'approve',
    });
    await ok(
      url,
      'POST',
      `/admin/sandbox/acquiring/refunds/${refund.refund_id}/execution`,
      adminToken,
      { outcome: 'completed' },
    );
    const refunded = await client.GET('/payment/acquiring/orders/{order_id}', orderPath);
    expect(refunded.order.refunded_amount).toBe('4.000000');
    expect(refunded.refunds?.[0]?.status).toBe('completed');

    // The deliveries the server made, verified from their raw bytes and headers.
    const refundEvents = ['requested', 'approved', 'completed'].map((s) => `acquiring.refund.${s}`);
    const eventsAt = async (path: string, secret: string): Promise<PayrailWebhookEvent[]> => {
      const events: PayrailWebhookEvent[] = [];
      for (const delivery of receiver.received.filter((r) => r.path === path)) {
        const verified = await verifyWebhook(delivery.body, delivery.headers, secret);
        if (!('event_type' in verified)) throw new Error('a verification request');
        expect(verified.event_id).toBe(delivery.headers['webhook-id']);
        events.push(verified);
      }
      return events;
    };
    await until('the refund’s three events', () =>
      refundEvents.every((type) =>
        receiver.received.some((r) => r.path === '/hooks' && r.body.includes(`"${type}"`)),
      ),
    );
    const hookEvents = await eventsAt('/hooks', webhook.secret);
    expect(hookEvents.map((event) => event.event_type)).toEqual(
      expect.arrayContaining(['acquiring.order.updated', ...refundEvents]),
    );
    for (const event of hookEvents) {
      const [object, businessType] = event.event_type.startsWith('acquiring.refund.')
        ? [refund.refund_id, 'acquiring_refund']
        : [order.order_id, 'acquiring'];
      expect(event).toMatchObject({ business_id: object, business_type: businessType });
    }
    await until('the payout’s completion', () =>
      receiver.received.some(
        (r) => r.path === '/payouts' && r.body.includes('execution.completed'),
      ),
    );
    const payoutEvents = await eventsAt('/payouts', notifySecret);
    expect(payoutEvents.map((event) => event.event_type)).toEqual(
      expect.arrayContaining(['payout.review.approved', 'payout.execution.completed']),
    );

    // A tampered copy, and the right bytes under another secret, are refused.
    const delivered = receiver.received.find((r) => r.path === '/hooks');
    if (delivered === undefined) throw new Error('no delivery');
    const tampered = Buffer.from(delivered.body.toString('utf8').replace('"v1"', '"v2"'));
    const tamperedFailure = await refusal(() =>
      verifyWebhook(tampered, delivered.headers, webhook.secret),
    );
    expect(tamperedFailure).toBeInstanceOf(WebhookVerificationError);
    expect(tamperedFailure).toMatchObject({ failure: 'signature' });
    const otherSecret = await refusal(() =>
      verifyWebhook(delivered.body, delivered.headers, notifySecret),
    );
    expect(otherSecret).toMatchObject({ failure: 'signature' });

    // The bank bounces the payout: the 25.00 comes back, the 0.75 fee stays.
    await ok(url, 'POST', `/admin/sandbox/payouts/${payoutId}/execution`, adminToken, {
      outcome: 'returned',
      reason: 'account closed',
    });
    const after = await client.GET('/payment/balances', { params: { query: { currency: 'USD' } } });
    expect(after.items[0]?.available).toBe('99.25');

    // The statement up to now ties out, and its CSV downloads as text.
    const { clock } = await ok(url, 'POST', '/admin/sandbox/clock/advance', adminToken, {
      seconds: 1,
    });
    const period = { currency: 'USD', start_at: 0, end_at: clock.now } as const;
    const { statement } = await client.GET('/payment/statements', {
      params: { query: period },
    });
    expect(statement.available.closing).toBe('99.25');
    const csv = await client.GET('/payment/statements.csv', {
      params: { query: period },
      parseAs: 'text',
    });
    expect(csv.split('\n').length).toBeGreaterThan(3);

    // An order paid after it expired: Alice sees the late payment and accepts it.
    const late = await client.POST('/payment/acquiring/orders', {
      body: {
        out_trade_no: 'ORDER-1002',
        order_currency: 'USD',
        order_amount: '10.00',
        expire_seconds: 60,
        underpay_tolerance: '0',
        notify_webhook_id: webhook.webhook_id,
      },
    });
    const lateId = late.order.order_id;
    await ok(url, 'POST', '/admin/sandbox/clock/advance', adminToken, { seconds: 61 });
    await ok(url, 'POST', `/admin/sandbox/acquiring/orders/${lateId}/payments`, adminToken, {
      token_id: 'TRON_USDT',
      amount: '10.000000',
      status: 'confirmed',
      tx_hash: '0xbeef',
    });
    expect(
      (await ok(url, 'GET', `/admin/acquiring/orders/${lateId}`, alice)).payments[0].status,
    ).toBe('late');
    await ok(url, 'POST', `/admin/acquiring/orders/${lateId}/resolve`, alice, {
      action: 'accept',
      reason: 'paid a minute late; shipped',
    });
    const resolved = await client.GET('/payment/acquiring/orders/{order_id}', {
      params: { path: { order_id: lateId } },
    });
    expect(resolved.order.status).toBe('completed');

    // Lists, page by page: two more payouts, walked one at a time; the ledger two at a time.
    // One through a network that loses the server's first answer: the client made its
    // client_request_id and sent it again; the server answered the payout it had made.
    let lost = 0;
    const lossy = createPayrailClient({
      baseUrl: url,
      apiKey: api_key.token,
      retry: { baseDelayMs: 10 },
      fetch: async (request) => {
        const answer = await fetch(request);
        if (lost === 0 && request.method === 'POST') {
          lost += 1;
          throw new TypeError('fetch failed: the answer was lost');
        }
        return answer;
      },
    });
    const { client_request_id: _, ...unnamed } = body;
    const second = await lossy.POST('/payment/quickpayout', {
      body: { ...unnamed, reference: 'INV-1002' },
    });
    expect(lost).toBe(1);
    const named = await client.GET('/payment/payouts', {
      params: { query: { client_request_id: second.payout.client_request_id ?? '' } },
    });
    expect(named.items.map((item) => item.payout_id)).toEqual([second.payout.payout_id]);
    await client.POST('/payment/quickpayout', {
      body: { ...body, client_request_id: 'readme-3', reference: 'INV-1003' },
    });
    const walked: string[] = [];
    for await (const item of client.paginate('/payment/payouts', {
      params: { query: { limit: 1 } },
    })) {
      walked.push(item.reference);
    }
    const listed = await client.GET('/payment/payouts', { params: { query: { limit: 100 } } });
    expect(walked).toEqual(listed.items.map((item) => item.reference));
    expect([...walked].sort()).toEqual(['INV-1001', 'INV-1002', 'INV-1003']);
    const ledger = await client.GET('/payment/ledger', {
      params: { query: { currency: 'USD', limit: 1 } },
    });
    let records = 0;
    for await (const record of client.paginate('/payment/ledger', {
      params: { query: { currency: 'USD', limit: 2, sort_order: 'asc' } },
    })) {
      expect(record.currency).toBe('USD');
      records += 1;
    }
    expect(records).toBe(ledger.total);
    expect(records).toBeGreaterThan(2);

    // A refusal, typed.
    const missing = await refusal(() =>
      client.GET('/payment/payouts/{payout_id}', { params: { path: { payout_id: 'po_none' } } }),
    );
    expect(missing).toMatchObject({ status: 404, code: 65, message: 'payout not found' });
    expect(isPayrailError(missing, 'payout_not_found')).toBe(true);
  }, 180_000);
});
