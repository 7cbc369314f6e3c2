/**
 * The dispatcher's own mechanics on the memory store: the background loop, stopping with an
 * attempt in flight, the SSRF guard at delivery time, a lapsed claim, a failing store, and the
 * signature's timestamp.
 */
import type { Store, StoreTransaction } from '@payrail/core';
import { bootstrapOperator, manualLoopScheduler as manualTime } from '@payrail/engine';
import { createMemoryStore } from '@payrail/store-memory';
import { countingStore, memoryOracle } from '@payrail/store-memory/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createDispatcher, type DispatcherOptions, type ObservedAttempt } from './dispatcher.js';
import {
  dataOf,
  dispatcherBed,
  expectSigned,
  type ReceivedRequest,
  type Receiver,
  type Responder,
  startReceiver,
  t0,
  testKeySecret,
} from './dispatcher.test-support.js';
import { httpTransport } from './http-transport.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const receiverOf = async (responder?: Responder): Promise<Receiver> => {
  const receiver = await startReceiver(responder);
  cleanups.push(() => receiver.close());
  return receiver;
};

const setUp = async (store: Store = createMemoryStore()) => {
  const memory = store as ReturnType<typeof createMemoryStore>;
  const oracle = memoryOracle(memory);
  const bed = await dispatcherBed(store, { outbox: () => oracle.outbox() });
  cleanups.push(() => bed.dispatcher.stop(0));
  const m = await bed.newMerchant();
  /** An approved payout: one `payout.review.approved` to `url`. */
  const approved = async (url: string) => {
    const payoutId = await bed.createPayout(m, url);
    dataOf(await bed.engine.admin.reviewPayout(bootstrapOperator, payoutId, { action: 'approve' }));
    return payoutId;
  };
  const dispatcher = (overrides: Partial<DispatcherOptions> = {}) => {
    const created = createDispatcher({
      store,
      clock: bed.clock,
      ids: bed.ids,
      callbacks: bed.engine.callbacks,
      keySecret: testKeySecret,
      allowInsecure: true,
      worker: 'unit',
      ...overrides,
    });
    cleanups.push(() => created.stop(0));
    return created;
  };
  return { bed, m, approved, dispatcher };
};

const until = async (check: () => boolean | Promise<boolean>, ms = 5000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('the dispatcher loop', () => {
  it('delivers in the background every interval, and stops', async () => {
    const receiver = await receiverOf();
    const { bed, approved, dispatcher } = await setUp();
    const loop = dispatcher();
    loop.start({ intervalMs: 20 });
    loop.start({ intervalMs: 20 });
    await approved(receiver.url('/a'));
    await until(() => receiver.requests.length === 1);
    await approved(receiver.url('/b'));
    await until(() => receiver.requests.length === 2);
    await loop.stop();
    await approved(receiver.url('/c'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver.requests.map((r) => r.path)).toEqual(['/a', '/b']);
    expect(await loop.runOnce()).toBe(0);
    expect((await bed.outbox()).map((x) => x.status)).toEqual([
      'delivered',
      'delivered',
      'pending',
    ]);
  });

  it('stopping cuts an attempt still in flight after the grace, and it is retried later', async () => {
    const receiver = await receiverOf((request) => (request.nth === 1 ? 'hang' : { status: 200 }));
    const { bed, m, approved, dispatcher } = await setUp();
    await approved(receiver.url('/slow'));
    const loop = dispatcher();
    loop.start({ intervalMs: 10 });
    await until(() => receiver.requests.length === 1);
    const started = Date.now();
    await loop.stop(50);
    expect(Date.now() - started).toBeLessThan(2000);
    const [delivery] = await bed.deliveriesOf(m.accountId);
    expect(delivery?.status).toBe('pending');
    expect(delivery?.attempts[0]).toMatchObject({
      status_code: null,
      error: 'aborted: the dispatcher stopped',
    });
    expect((await bed.outbox())[0]).toMatchObject({ status: 'pending', attempts: 1 });
    bed.clock.advance(5);
    await dispatcher({ worker: 'next-process' }).runOnce();
    expect(receiver.requests).toHaveLength(2);
  });

  it('logs a failing pass once while it keeps failing, then its recovery', async () => {
    const memory = createMemoryStore();
    let broken = false;
    const flaky: Store = {
      transaction: (work) =>
        broken ? Promise.reject(new Error('connection lost')) : memory.transaction(work),
      claimEnvironment: (environment) => memory.claimEnvironment(environment),
      close: () => memory.close(),
    };
    const { dispatcher } = await setUp(memory);
    const lines: string[] = [];
    const loop = dispatcher({ store: flaky, log: (line) => lines.push(line) });
    broken = true;
    loop.start({ intervalMs: 5 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines).toEqual(['webhook dispatcher failed: Error: connection lost']);
    broken = false;
    await until(() => lines.length === 2);
    expect(lines[1]).toBe('webhook dispatcher recovered');
  });
});

describe('the dispatcher sleeps until there is work (ADR 0030)', () => {
  it('makes no unit of work for 30 s while idle, and a committed enqueue wakes it at once', async () => {
    const receiver = await receiverOf();
    const memory = createMemoryStore();
    const { approved, dispatcher } = await setUp(memory);
    const { store, counted } = countingStore(memory);
    const time = manualTime();
    const loop = dispatcher({ store });
    loop.start({ scheduler: time.scheduler });
    await time.advance(0);
    // A pass (one claim) and a plan (the next due time), then the safety net's sleep.
    expect(counted.transactions).toBe(2);
    expect(time.nextWakeIn()).toBe(60_000);
    await time.advance(30_000);
    expect(counted.transactions).toBe(2);
    await approved(receiver.url('/a'));
    await time.advance(0);
    await until(() => receiver.requests.length === 1);
    await loop.stop();
  });

  it('a failed attempt is sent again when its retry falls due, with no pass in between', async () => {
    const receiver = await receiverOf((request) =>
      request.nth === 1 ? { status: 500 } : { status: 200 },
    );
    const memory = createMemoryStore();
    const { bed, approved, dispatcher } = await setUp(memory);
    const { store, counted } = countingStore(memory);
    const time = manualTime();
    const loop = dispatcher({ store });
    await approved(receiver.url('/retry'));
    loop.start({ scheduler: time.scheduler });
    await until(() => receiver.requests.length === 1);
    await time.advance(0);
    await until(async () => (await bed.outbox())[0]?.attempts === 1);
    await time.advance(0);
    // The retry schedule's first pause is 5 s: the loop sleeps until that second.
    const wake = time.nextWakeIn() ?? 0;
    expect(wake).toBeGreaterThan(4_000);
    expect(wake).toBeLessThanOrEqual(5_005);
    const before = counted.transactions;
    await time.advance(wake - 1);
    expect(counted.transactions).toBe(before);
    bed.clock.advance(5);
    await time.advance(1);
    await until(() => receiver.requests.length === 2);
    await loop.stop();
  });
});

describe('each attempt', () => {
  it('is refused at delivery time when the target is not allowed, and retried on the schedule', async () => {
    const receiver = await receiverOf();
    const { bed, m, approved, dispatcher } = await setUp();
    await approved(receiver.url('/internal'));
    const strict = dispatcher({ allowInsecure: false });
    await strict.runOnce();
    expect(receiver.requests).toEqual([]);
    const [delivery] = await bed.deliveriesOf(m.accountId);
    expect(delivery).toMatchObject({ status: 'pending' });
    expect(delivery?.attempts).toEqual([
      {
        attempt: 1,
        at: t0,
        status_code: null,
        latency_ms: 0,
        error: 'target refused: scheme http not allowed',
        response_body: '',
      },
    ]);
    expect((await bed.outbox())[0]).toMatchObject({ available_at: t0 + 5, attempts: 1 });
  });

  it("is signed with the wall clock's time, not the test clock's, so receivers accept it", async () => {
    const receiver = await receiverOf();
    const { bed, m, approved } = await setUp();
    bed.clock.advance(86_400 * 30);
    await approved(receiver.url('/cb'));
    await bed.dispatcher.runOnce();
    const [request] = receiver.requests;
    const stamp = Number(request?.headers['webhook-timestamp']);
    expect(Math.abs(stamp - Date.now() / 1000)).toBeLessThan(60);
    if (request) expectSigned(request, m.notifySecret);
  });

  it('logs no secret and no signature anywhere in the delivery record', async () => {
    const receiver = await receiverOf(() => ({ status: 500, body: 'nope' }));
    const { bed, m, approved } = await setUp();
    await approved(receiver.url('/cb'));
    await bed.dispatcher.runOnce();
    const stored = JSON.stringify(await bed.deliveriesOf(m.accountId));
    expect(stored).not.toContain(m.notifySecret);
    expect(stored).not.toContain(receiver.requests[0]?.headers['webhook-signature']);
  });

  it('keeps the first 1024 characters of the answer in the log', async () => {
    const receiver = await receiverOf(() => ({ status: 400, body: 'e'.repeat(5000) }));
    const { bed, m, approved } = await setUp();
    await approved(receiver.url('/cb'));
    await bed.dispatcher.runOnce();
    const [delivery] = await bed.deliveriesOf(m.accountId);
    expect(delivery?.attempts[0]?.response_body).toBe('e'.repeat(1024));
  });

  it('is not sent when the stored secret does not open (another key secret), and goes once it does', async () => {
    const receiver = await receiverOf();
    const { bed, m, approved, dispatcher } = await setUp();
    await approved(receiver.url('/cb'));
    const otherKey = dispatcher({ keySecret: new Uint8Array(32).fill(9), worker: 'other-key' });
    await expect(otherKey.runOnce()).rejects.toThrow(
      'a stored secret could not be opened: it was sealed under another key secret, or altered',
    );
    expect(receiver.requests).toEqual([]);
    expect((await bed.outbox())[0]).toMatchObject({ status: 'pending', attempts: 0 });
    // Its claim lapses (60 s) and a dispatcher with the engine's key secret sends it.
    bed.clock.advance(61);
    await dispatcher({ worker: 'right-key' }).runOnce();
    expect(receiver.requests).toHaveLength(1);
    expectSigned(receiver.requests[0] as ReceivedRequest, m.notifySecret);
  });

  it('of a deleted webhook is not sent, and says so', async () => {
    const receiver = await receiverOf();
    const { bed, m } = await setUp();
    const hook = await bed.createWebhook(m, receiver.url('/hooks'));
    const orderId = await bed.createOrder(m, hook.webhookId);
    await bed.pay(orderId, 'processing');
    dataOf(await bed.engine.webhooks.remove(m.caller, hook.webhookId));
    await bed.dispatcher.runOnce();
    expect(receiver.requests).toEqual([]);
    const outbox = await bed.outbox();
    expect(outbox.every((x) => x.status === 'failed')).toBe(true);
    for (const delivery of await bed.deliveriesOf(m.accountId)) {
      expect(delivery.attempts.map((a) => a.error)).toEqual(['not sent: webhook deleted']);
    }
  });

  it('settles only what its worker still holds: after a lapsed lease the new holder decides', async () => {
    const receiver = await receiverOf();
    const { bed, m, approved, dispatcher } = await setUp();
    await approved(receiver.url('/cb'));
    const http = httpTransport({ allowInsecure: true });
    // While the first worker's attempt is in flight, its lease lapses and another worker claims.
    const slow = dispatcher({
      worker: 'slow',
      leaseSeconds: 60,
      transport: async (request) => {
        bed.clock.advance(61);
        const stolen = await bed.store.transaction((tx: StoreTransaction) =>
          tx.outbox.claim({ worker: 'other', now: bed.clock.now(), limit: 10, leaseSeconds: 60 }),
        );
        expect(stolen).toHaveLength(1);
        return http(request);
      },
    });
    await slow.runOnce();
    const [message] = await bed.outbox();
    expect(message).toMatchObject({ status: 'pending', attempts: 0 });
    const [delivery] = await bed.deliveriesOf(m.accountId);
    expect(delivery?.status).toBe('pending');
    expect(delivery?.attempts).toHaveLength(1);
    expect(
      await bed.store.transaction((tx) => tx.outbox.complete(message?.outbox_id ?? '', 'other')),
    ).toBe(true);
  });
});

describe('what the dispatcher tells an observer (docs/observability.md)', () => {
  it('tells each settled attempt: retried, then delivered, with the POST’s seconds', async () => {
    const receiver = await receiverOf((request) =>
      request.nth === 1 ? { status: 503 } : { status: 200 },
    );
    const { bed, approved, dispatcher } = await setUp();
    await approved(receiver.url('/cb'));
    const told: ObservedAttempt[] = [];
    const worker = dispatcher({ onAttempt: (attempt) => told.push(attempt) });
    expect(await worker.runOnce()).toBe(1);
    bed.clock.advance(5);
    expect(await worker.runOnce()).toBe(1);
    expect(told.map(({ destination, outcome }) => [destination, outcome])).toEqual([
      ['notify_url', 'retry'],
      ['notify_url', 'delivered'],
    ]);
    for (const { seconds } of told) {
      expect(seconds).toBeGreaterThanOrEqual(0);
      expect(seconds).toBeLessThan(15);
    }
  });
});
