/**
 * Webhooks survive a crash: the real server process, on the embedded PostgreSQL, is killed with
 * SIGKILL while events wait in the outbox and attempts are in flight (the receiver does not
 * answer). Started again on the same data directory it delivers every event, each signed with
 * the Standard Webhooks scheme and each object's in order; none is lost.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { permissions } from '@payrail/engine';
import { createEmbeddedPostgresStore } from '@payrail/store-postgres';
import { postgresOracle } from '@payrail/store-postgres/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedDatabaseIn } from './config.js';
import {
  adminToken,
  killEmbeddedDatabase,
  ok,
  type ServerProcess,
  startServerProcess,
} from './server-process.test-support.js';

interface Received {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** Whether it was answered 200 (after the restart) rather than left hanging. */
  readonly answered: boolean;
}

/** A receiver on 127.0.0.1 that leaves requests hanging until `answering` is set. */
const startReceiver = async () => {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const state = { answering: false };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers[name] = value;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ path: req.url ?? '', headers, body, answered: state.answering });
      if (state.answering) res.writeHead(200).end('{"ok":true}');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    received,
    state,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
};

const until = async (what: string, check: () => boolean | Promise<boolean>, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

let dataDir = '';
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const running: ServerProcess[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'payrail-webhooks-'));
  receiver = await startReceiver();
});
afterAll(async () => {
  await Promise.all(running.map((server) => server.stop('SIGKILL')));
  await receiver.close();
  await rm(dataDir, { recursive: true, force: true });
});

const start = async () => {
  const server = await startServerProcess(
    {
      PORT: '0',
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_ADMIN_TOKEN: adminToken,
      PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1',
    },
    60_000,
  );
  running.push(server);
  return server;
};

describe('webhook delivery across a crash', () => {
  it('delivers every event after SIGKILL and a restart on the same data directory', async () => {
    const first = await start();
    const url = first.url;
    const { merchant } = await ok(url, 'POST', '/admin/merchants', adminToken, { name: 'Acme' });
    const accountId = merchant.account_id as string;
    const notifySecret = merchant.notify_secret as string;
    const { api_key } = await ok(url, 'POST', `/admin/accounts/${accountId}/api-keys`, adminToken, {
      permissions,
    });
    const key = api_key.token as string;
    await ok(url, 'POST', `/admin/accounts/${accountId}/credit`, adminToken, {
      currency: 'USD',
      amount: '1000.00',
    });
    const { webhook } = await ok(url, 'POST', '/payment/webhooks', key, {
      url: receiver.url('/hooks'),
      events: ['acquiring.*'],
    });

    for (let n = 1; n <= 3; n += 1) {
      const { payout } = await ok(url, 'POST', '/payment/quickpayout', key, {
        client_request_id: `crash-${n}`,
        currency: 'USD',
        amount: '10.00',
        method_id: 1,
        reference: `CRASH-${n}`,
        notify_url: receiver.url('/payouts'),
        beneficiary: { name: 'Jane Doe', fields: { payee_id: `jane0${n}` } },
        beneficiary_account: {
          network_code: 'WALLETA',
          fields: { walleta_email: `jane${n}@example.com` },
        },
      });
      const payoutId = payout.payout_id as string;
      await ok(url, 'POST', `/admin/payouts/${payoutId}/review`, adminToken, { action: 'approve' });
      await ok(url, 'POST', `/admin/sandbox/payouts/${payoutId}/execution`, adminToken, {
        outcome: 'completed',
      });
    }
    for (let n = 1; n <= 2; n += 1) {
      const { order } = await ok(url, 'POST', '/payment/acquiring/orders', key, {
        out_trade_no: `CRASH-ORDER-${n}`,
        order_currency: 'USD',
        order_amount: '10.00',
        mode: 'direct',
        network: 'TRON',
        currency: 'USDT',
        expire_seconds: 600,
        underpay_tolerance: '0',
        notify_webhook_id: webhook.webhook_id,
      });
      const path = `/admin/sandbox/acquiring/orders/${order.order_id}/payments`;
      const { payment } = await ok(url, 'POST', path, adminToken, {
        token_id: 'TRON_USDT',
        amount: '10.000000',
        status: 'processing',
      });
      await ok(url, 'POST', path, adminToken, {
        token_id: 'TRON_USDT',
        amount: '10.000000',
        status: 'confirmed',
        payment_id: payment.payment_id,
      });
    }

    // Attempts are in flight (the receiver holds them) when the process dies.
    await until('an attempt in flight', () => receiver.received.length > 0);
    const killed = await first.stop('SIGKILL');
    killEmbeddedDatabase(dataDir);
    expect(killed.signal).toBe('SIGKILL');

    // What the outbox held at the crash, read from the data directory itself.
    const store = await createEmbeddedPostgresStore({ dataDir: embeddedDatabaseIn(dataDir) });
    const outbox = await postgresOracle(store).outbox();
    await store.close();
    expect(outbox.length).toBeGreaterThanOrEqual(15);
    expect(outbox.filter((message) => message.status === 'delivered')).toEqual([]);
    const eventIds = outbox.map((message) => message.event_id);

    receiver.state.answering = true;
    const second = await start();
    // The crashed process's claims lapse after their lease (60 s of the engine's clock): the
    // sandbox clock moves past it, and the advance runs the dispatcher.
    await ok(second.url, 'POST', '/admin/sandbox/clock/advance', adminToken, { seconds: 120 });
    const answered = () => receiver.received.filter((r) => r.answered);
    await until('every event', () =>
      eventIds.every((id) => answered().some((r) => r.headers['webhook-id'] === id)),
    );

    const arrivals = answered();
    for (const message of outbox) {
      const requests = arrivals.filter((r) => r.headers['webhook-id'] === message.event_id);
      // At least once; a repeat is the same event (the receiver deduplicates by webhook-id).
      expect(requests.length).toBeGreaterThanOrEqual(1);
      for (const request of requests) {
        const secret = message.destination.kind === 'webhook' ? webhook.secret : notifySecret;
        expect(new Webhook(secret).verify(request.body, request.headers)).toEqual(message.payload);
      }
    }
    // Each object's events arrived in the order they were written.
    const queues = new Map<string, string[]>();
    for (const message of outbox) {
      const queue = `${JSON.stringify(message.destination)}|${message.business_id}`;
      queues.set(queue, [...(queues.get(queue) ?? []), message.event_id]);
    }
    const order = arrivals.map((r) => r.headers['webhook-id'] ?? '');
    for (const ids of queues.values()) {
      const firsts = order.filter((id, i) => ids.includes(id) && order.indexOf(id) === i);
      expect(firsts).toEqual(ids);
    }

    // The delivery log of the webhook ends with every event succeeded.
    const hookEvents = outbox.filter((message) => message.destination.kind === 'webhook');
    const path = `/payment/webhooks/${webhook.webhook_id}/deliveries?limit=100`;
    await until('the delivery log', async () => {
      const deliveries = await ok(second.url, 'GET', path, key);
      return (
        deliveries.total === hookEvents.length &&
        deliveries.items.every((d: { status: string }) => d.status === 'succeeded')
      );
    });
    const exit = await second.stop('SIGTERM');
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(second.output()).not.toContain(notifySecret);
    expect(second.output()).not.toContain(webhook.secret);
  });
});
