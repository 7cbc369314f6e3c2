/**
 * What the dispatcher tests run on: a real HTTP receiver on 127.0.0.1 that records every request
 * and answers as a test says, and a sandbox engine with its dispatcher on any store, moved by the
 * test clock through `/admin/sandbox/clock/advance` as a merchant would move it.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { OutboxMessage, Store, WebhookDeliveryRecord } from '@payrail/core';
import {
  adjustableClock,
  bootstrapOperator,
  type Caller,
  createEngine,
  type Data,
  type Engine,
  type Outcome,
  permissions,
  randomIds,
  seedSandboxCatalogue,
} from '@payrail/engine';
import * as E from 'fp-ts/lib/Either.js';
import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import { createDispatcher, type Dispatcher } from './dispatcher.js';

/** 2027-01-15T08:00:00Z: the engine's (test) clock starts here. */
export const t0 = 1_800_000_000;

/** The bed engine's key secret; the dispatcher opens the stored secrets with it (ADR 0041). */
export const testKeySecret = new TextEncoder().encode('a test key secret of 32 bytes ok');

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The webhook-id's request count so far, this one included (1 for its first arrival). */
  readonly nth: number;
}

/** How the receiver answers: a status and body, never (hang), or by dropping the connection. */
export type Reply = { readonly status: number; readonly body?: string } | 'hang' | 'drop';

export type Responder = (request: ReceivedRequest) => Reply;

const ok: Responder = () => ({ status: 200, body: '{"ok":true}' });

export interface Receiver {
  readonly port: number;
  url(path: string): string;
  readonly requests: ReceivedRequest[];
  /** Requests of one webhook-id, in arrival order. */
  of(webhookId: string): ReceivedRequest[];
  respond(responder: Responder): void;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (`port` 0: any free port). */
export const startReceiver = async (responder: Responder = ok, port = 0): Promise<Receiver> => {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  let current = responder;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers[name] = value;
      }
      const id = headers['webhook-id'] ?? '';
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        nth: requests.filter((r) => r.headers['webhook-id'] === id).length + 1,
      };
      requests.push(request);
      const reply = current(request);
      if (reply === 'hang') return;
      if (reply === 'drop') {
        req.socket.destroy();
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.body ?? '');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: (path) => `http://127.0.0.1:${bound}${path}`,
    requests,
    of: (webhookId) => requests.filter((r) => r.headers['webhook-id'] === webhookId),
    respond: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
};

/** A port nothing listens on right now (connection refused), free to listen on later. */
export const closedPort = async (): Promise<number> => {
  const probe = await startReceiver();
  await probe.close();
  return probe.port;
};

/** The answer's data; fails the test with the error otherwise. */
export const dataOf = (outcome: Outcome<Data>): Data => {
  if (E.isLeft(outcome)) throw new Error(`expected success, got: ${outcome.left.message}`);
  return outcome.right;
};

// biome-ignore lint/suspicious/noExplicitAny: tests read answers by path, as a merchant reads JSON.
export type Json = any;

export interface BedOptions {
  /** Per attempt; tests of the timeout make it short. */
  readonly timeoutMs?: number;
  readonly worker?: string;
  /** Reads the store's outbox by an independent path (the store's oracle). */
  readonly outbox: () => Promise<readonly OutboxMessage[]>;
}

export interface Merchant {
  readonly caller: Caller;
  readonly accountId: string;
  readonly notifySecret: string;
}

/**
 * A sandbox engine and its dispatcher on `store`; `advance` moves the test clock through the
 * admin use case, which fires due timers and then runs the dispatcher (the server's wiring).
 */
export const dispatcherBed = async (store: Store, options: BedOptions) => {
  const clock = adjustableClock({ now: () => t0 });
  const ids = randomIds;
  let dispatcher: Dispatcher | undefined;
  const engine: Engine = createEngine({
    store,
    clock,
    ids,
    settings: {
      environment: 'sandbox',
      checkoutBaseUrl: 'https://pay.example.com/checkout',
      allowInsecureWebhooks: true,
      keySecret: testKeySecret,
    },
    afterClockAdvance: async () => {
      await dispatcher?.runOnce();
    },
  });
  dispatcher = createDispatcher({
    store,
    clock,
    ids,
    callbacks: engine.callbacks,
    keySecret: testKeySecret,
    allowInsecure: true,
    worker: options.worker ?? 'dispatcher-1',
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  await seedSandboxCatalogue(store, ids, clock);
  const active = dispatcher;

  const newMerchant = async (settings: Record<string, unknown> = {}): Promise<Merchant> => {
    const { merchant } = dataOf(
      await engine.admin.createMerchant(bootstrapOperator, { name: 'Acme' }),
    ) as Json;
    const accountId = merchant.account_id as string;
    if (Object.keys(settings).length > 0) {
      dataOf(await engine.admin.updateAccount(bootstrapOperator, accountId, settings));
    }
    dataOf(
      await engine.admin.credit(bootstrapOperator, accountId, {
        currency: 'USD',
        amount: '10000.00',
      }),
    );
    return {
      caller: {
        merchant_id: merchant.merchant_id,
        account_id: accountId,
        key_id: `key_${accountId}`,
        permissions,
        env: 'sandbox',
      },
      accountId,
      notifySecret: merchant.notify_secret,
    };
  };

  let payouts = 0;
  /** A USD quick payout to a WALLETA wallet; `reference` tells the receiver which one it is. */
  const createPayout = async (m: Merchant, notifyUrl: string, reference?: string) => {
    payouts += 1;
    const { payout } = dataOf(
      await engine.payouts.create(m.caller, {
        client_request_id: `req-${payouts}`,
        currency: 'USD',
        amount: '100.00',
        method_id: 1,
        reference: reference ?? `ref-${payouts}`,
        notify_url: notifyUrl,
        beneficiary: { name: 'Alice Example', fields: { payee_id: `alice${payouts}` } },
        beneficiary_account: {
          network_code: 'WALLETA',
          fields: { walleta_email: `alice${payouts}@example.com` },
        },
      }),
    ) as Json;
    return payout.payout_id as string;
  };

  const createWebhook = async (m: Merchant, url: string) => {
    const { webhook } = dataOf(
      await engine.webhooks.create(m.caller, { url, events: ['acquiring.*'] }),
    ) as Json;
    return { webhookId: webhook.webhook_id as string, secret: webhook.secret as string };
  };

  let orders = 0;
  /** A direct TRON/USDT order for 25.00 whose events go to `webhookId`. */
  const createOrder = async (m: Merchant, webhookId: string) => {
    orders += 1;
    const { order } = dataOf(
      await engine.acquiring.create(m.caller, {
        out_trade_no: `ORD-${orders}`,
        order_currency: 'USD',
        order_amount: '25.00',
        mode: 'direct',
        network: 'TRON',
        currency: 'USDT',
        expire_seconds: 1800,
        underpay_tolerance: '0',
        notify_webhook_id: webhookId,
      }),
    ) as Json;
    return order.order_id as string;
  };

  /** A sandbox chain payment of 25 USDT, or an update of `paymentId`; answers its id. */
  const pay = async (orderId: string, status: string, paymentId?: string): Promise<string> => {
    const { payment } = dataOf(
      await engine.admin.sandboxPayment(bootstrapOperator, orderId, {
        token_id: 'TRON_USDT',
        amount: '25.000000',
        status,
        ...(paymentId === undefined ? {} : { payment_id: paymentId }),
      }),
    ) as Json;
    return payment.payment_id as string;
  };

  const payout = async (m: Merchant, payoutId: string) =>
    (dataOf(await engine.payouts.get(m.caller, payoutId)) as Json).payout;

  const deliveriesOf = async (accountId: string): Promise<WebhookDeliveryRecord[]> =>
    store.transaction(async (tx) => {
      const page = await tx.webhookDeliveries.list({
        scope: accountId,
        sort: 'asc',
        limit: 500,
        offset: 0,
      });
      return [...page.items];
    });

  return {
    store,
    engine,
    dispatcher: active,
    clock,
    ids,
    newMerchant,
    createPayout,
    createWebhook,
    createOrder,
    pay,
    payout,
    deliveriesOf,
    outbox: options.outbox,
    /** `/admin/sandbox/clock/advance`: due timers fire, then the dispatcher runs once. */
    advance: async (seconds: number) => {
      dataOf(await engine.admin.advanceClock(bootstrapOperator, { seconds }));
    },
  };
};

export type DispatcherBed = Awaited<ReturnType<typeof dispatcherBed>>;

/** The request verifies with the Standard Webhooks library, and its id and body are `message`'s. */
export const expectSigned = (request: ReceivedRequest, secret: string): unknown => {
  const payload = new Webhook(secret).verify(request.body, { ...request.headers });
  expect(request.headers['content-type']).toBe('application/json');
  expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  expect(request.headers['webhook-timestamp']).toMatch(/^\d+$/);
  return payload;
};
