/**
 * The dispatcher's behaviour on a store, run by each store's test file (memory, PGlite, the
 * PostgreSQL server): a lifecycle's every event arrives signed and in order; a failing receiver
 * gets the same event again on the schedule; verification answers end as docs/spec/decisions.md §2 says; two
 * dispatchers on one database never send an attempt twice.
 */
import type { OutboxMessage, Store } from '@payrail/core';
import { bootstrapOperator, createEngine, type Engine } from '@payrail/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { createDispatcher, type Dispatcher } from './dispatcher.js';
import {
  closedPort,
  type DispatcherBed,
  dataOf,
  dispatcherBed,
  expectSigned,
  type Json,
  type Merchant,
  type ReceivedRequest,
  type Receiver,
  startReceiver,
  t0,
  testKeySecret,
} from './dispatcher.test-support.js';
import { maxDeliveryAttempts, retryDelaysSeconds } from './retry-schedule.js';

export interface StoreUnderTest {
  readonly store: Store;
  /** Every outbox row in enqueue order, read by the store's oracle (not through the port). */
  readonly outbox: () => Promise<readonly OutboxMessage[]>;
  /** Another store on the same database (its own connections): a second process. */
  readonly another: () => Promise<Store>;
  close(): Promise<void>;
}

export interface SuiteOptions {
  readonly name: string;
  readonly open: () => Promise<StoreUnderTest>;
}

const idOf = (request: ReceivedRequest): string => request.headers['webhook-id'] ?? '';

/** For each business object, its messages' event ids in enqueue order. */
const queuesOf = (outbox: readonly OutboxMessage[]): Map<string, string[]> => {
  const queues = new Map<string, string[]>();
  for (const message of outbox) {
    const key = `${JSON.stringify(message.destination)}|${message.business_id}`;
    queues.set(key, [...(queues.get(key) ?? []), message.event_id]);
  }
  return queues;
};

/** Each object's events arrived in the order they were enqueued (repeats collapsed). */
const expectInOrder = (outbox: readonly OutboxMessage[], requests: readonly ReceivedRequest[]) => {
  const arrivals = requests.map(idOf);
  for (const ids of queuesOf(outbox).values()) {
    const seen = arrivals.filter((id) => ids.includes(id));
    const collapsed = seen.filter((id, i) => i === 0 || seen[i - 1] !== id);
    expect(collapsed).toEqual(ids);
  }
};

export const runDispatcherSuite = ({ name, open }: SuiteOptions) => {
  describe(`the webhook dispatcher on ${name}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    const receiverOf = async (...args: Parameters<typeof startReceiver>): Promise<Receiver> => {
      const receiver = await startReceiver(...args);
      cleanups.push(() => receiver.close());
      return receiver;
    };

    const bedOf = async (timeoutMs?: number) => {
      const under = await open();
      cleanups.push(() => under.close());
      const bed = await dispatcherBed(under.store, {
        outbox: under.outbox,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
      });
      cleanups.push(() => bed.dispatcher.stop(0));
      return { bed, under };
    };

    /** A payout without verification, approved by the operator: one `payout.review.approved`. */
    const approvedPayout = async (bed: DispatcherBed, m: Merchant, notifyUrl: string) => {
      const payoutId = await bed.createPayout(m, notifyUrl);
      dataOf(
        await bed.engine.admin.reviewPayout(bootstrapOperator, payoutId, { action: 'approve' }),
      );
      return payoutId;
    };

    /** Moves the clock through the schedule's delays, checking nothing arrives early. */
    const advanceToAttempt = async (
      bed: DispatcherBed,
      receiver: Receiver,
      webhookId: string,
      attempt: number,
    ) => {
      const delay = retryDelaysSeconds[attempt - 2] ?? 0;
      const before = receiver.of(webhookId).length;
      await bed.advance(delay - 1);
      expect(receiver.of(webhookId), `attempt ${attempt} came early`).toHaveLength(before);
      await bed.advance(1);
    };

    it('delivers every payout and acquiring event of a lifecycle, each signed, in order', async () => {
      const receiver = await receiverOf((request) => {
        const body = JSON.parse(request.body) as Json;
        if (body.type === 'payout.verification') {
          return {
            status: 200,
            body: JSON.stringify({ verified: body.reference !== 'ref-reject' }),
          };
        }
        return { status: 204 };
      });
      const { bed } = await bedOf();
      const m = await bed.newMerchant({ verification_enabled: true });
      const hook = await bed.createWebhook(m, receiver.url('/hooks'));
      const payoutUrl = receiver.url('/payouts');
      const completed = await bed.createPayout(m, payoutUrl, 'ref-complete');
      const rejected = await bed.createPayout(m, payoutUrl, 'ref-reject');
      const failed = await bed.createPayout(m, payoutUrl, 'ref-fail');

      await bed.dispatcher.runOnce();
      expect((await bed.payout(m, completed)).status).toBe('approved');
      expect((await bed.payout(m, rejected)).status).toBe('rejected');
      expect((await bed.payout(m, failed)).status).toBe('approved');

      const execute = async (payoutId: string, body: Record<string, unknown>) =>
        dataOf(await bed.engine.admin.sandboxExecution(bootstrapOperator, payoutId, body));
      await execute(completed, { outcome: 'processing' });
      await execute(completed, { outcome: 'completed' });
      await execute(failed, { outcome: 'failed', reason: 'wallet closed' });
      const orderId = await bed.createOrder(m, hook.webhookId);
      const paymentId = await bed.pay(orderId, 'processing');
      await bed.pay(orderId, 'confirming', paymentId);
      await bed.pay(orderId, 'confirmed', paymentId);
      await bed.dispatcher.runOnce();

      const outbox = await bed.outbox();
      expect(new Set(outbox.map((message) => message.event_type))).toEqual(
        new Set([
          'payout.verify.request',
          'payout.review.approved',
          'payout.review.rejected',
          'payout.execution.processing',
          'payout.execution.completed',
          'payout.execution.failed',
          'acquiring.order.updated',
          'acquiring.payment.updated',
        ]),
      );
      expect(outbox.map((message) => [message.status, message.attempts])).toEqual(
        outbox.map(() => ['delivered', 1]),
      );
      expect(receiver.requests).toHaveLength(outbox.length);
      for (const message of outbox) {
        const [request, ...more] = receiver.of(message.event_id);
        expect(more, message.event_type).toEqual([]);
        if (request === undefined) throw new Error(`${message.event_type} never arrived`);
        const toWebhook = message.destination.kind === 'webhook';
        expect(request.method).toBe('POST');
        expect(request.path).toBe(toWebhook ? '/hooks' : '/payouts');
        const payload = expectSigned(request, toWebhook ? hook.secret : m.notifySecret);
        expect(payload).toEqual(message.payload);
        expect(request.body).toBe(JSON.stringify(message.payload));
      }
      expectInOrder(outbox, receiver.requests);
      // The verification request is bare; result events come in their envelope.
      const verify = outbox.find((message) => message.event_type === 'payout.verify.request');
      expect(verify?.payload).toMatchObject({ type: 'payout.verification' });
      expect(verify?.payload).not.toHaveProperty('event_id');
      const approved = outbox.find((message) => message.event_type === 'payout.review.approved');
      expect(approved?.payload).toMatchObject({
        event_id: approved?.event_id,
        event_type: 'payout.review.approved',
        version: 'v1',
      });

      const deliveries = await bed.deliveriesOf(m.accountId);
      expect(deliveries).toHaveLength(outbox.length);
      for (const delivery of deliveries) {
        expect(delivery.status).toBe('succeeded');
        expect(delivery.attempts).toEqual([
          {
            attempt: 1,
            at: t0,
            status_code: delivery.event_type === 'payout.verify.request' ? 200 : 204,
            latency_ms: expect.any(Number),
            error: null,
            response_body: expect.any(String),
          },
        ]);
      }
      const listed = dataOf(await bed.engine.webhooks.deliveries(m.caller, hook.webhookId, {}));
      expect(listed.total).toBe(outbox.filter((x) => x.destination.kind === 'webhook').length);
    });

    it('sends a failed event again on the schedule, with the same webhook-id, until a 2xx', async () => {
      let failing: string | undefined;
      const receiver = await receiverOf((request) => {
        failing ??= idOf(request);
        return idOf(request) === failing && request.nth <= 3
          ? { status: 500, body: 'busy' }
          : { status: 200, body: 'thanks' };
      });
      const { bed } = await bedOf();
      const m = await bed.newMerchant();
      const payoutId = await approvedPayout(bed, m, receiver.url('/payouts'));
      await bed.dispatcher.runOnce();
      const [first] = receiver.requests;
      const eventId = first === undefined ? '' : idOf(first);
      // A later event of the same payout waits behind the failing one.
      dataOf(
        await bed.engine.admin.sandboxExecution(bootstrapOperator, payoutId, {
          outcome: 'processing',
        }),
      );
      for (let attempt = 2; attempt <= 4; attempt += 1) {
        await advanceToAttempt(bed, receiver, eventId, attempt);
        expect(receiver.of(eventId)).toHaveLength(attempt);
      }
      const arrivals = receiver.requests.map(idOf);
      expect(arrivals.slice(0, 4)).toEqual([eventId, eventId, eventId, eventId]);
      expect(arrivals).toHaveLength(5);
      const bodies = new Set(receiver.of(eventId).map((request) => request.body));
      expect(bodies.size).toBe(1);
      for (const request of receiver.requests) expectSigned(request, m.notifySecret);

      const outbox = await bed.outbox();
      expect(outbox.map((x) => [x.event_type, x.status, x.attempts])).toEqual([
        ['payout.review.approved', 'delivered', 4],
        ['payout.execution.processing', 'delivered', 1],
      ]);
      const [delivery] = await bed.deliveriesOf(m.accountId);
      expect(delivery).toMatchObject({
        event_id: eventId,
        event_type: 'payout.review.approved',
        webhook_id: null,
        url: receiver.url('/payouts'),
        status: 'succeeded',
        outbox_id: outbox[0]?.outbox_id,
      });
      expect(delivery?.attempts.map((a) => [a.attempt, a.at, a.status_code, a.error])).toEqual([
        [1, t0, 500, 'HTTP 500'],
        [2, t0 + 5, 500, 'HTTP 500'],
        [3, t0 + 305, 500, 'HTTP 500'],
        [4, t0 + 2105, 200, null],
      ]);
      expect(delivery?.attempts.map((a) => a.response_body)).toEqual([
        'busy',
        'busy',
        'busy',
        'thanks',
      ]);
    });

    it('a hanging receiver times out and a dropped connection fails; both get the event again', async () => {
      const receiver = await receiverOf((request) => {
        if (request.nth > 1) return { status: 200 };
        return request.path === '/hang' ? 'hang' : 'drop';
      });
      const { bed } = await bedOf(300);
      const m = await bed.newMerchant();
      await approvedPayout(bed, m, receiver.url('/hang'));
      await approvedPayout(bed, m, receiver.url('/drop'));
      await bed.dispatcher.runOnce();
      expect(receiver.requests).toHaveLength(2);
      await bed.advance(5);
      expect(receiver.requests).toHaveLength(4);
      const deliveries = await bed.deliveriesOf(m.accountId);
      const byPath = (path: string) => deliveries.find((d) => d.url === receiver.url(path));
      const hang = byPath('/hang');
      expect(hang?.status).toBe('succeeded');
      expect(hang?.attempts[0]).toMatchObject({
        status_code: null,
        error: 'timeout: no complete answer within 300 ms',
      });
      expect(hang?.attempts[0]?.latency_ms).toBeGreaterThanOrEqual(290);
      expect(hang?.attempts[1]).toMatchObject({ at: t0 + 5, status_code: 200, error: null });
      const drop = byPath('/drop');
      expect(drop?.status).toBe('succeeded');
      expect(drop?.attempts[0]).toMatchObject({ status_code: null });
      expect(drop?.attempts[0]?.error).toMatch(/^connection failed: /);
      for (const d of deliveries) expect(receiver.of(d.event_id)).toHaveLength(2);
    });

    it('a refused connection is tried again; the receiver started later gets the event', async () => {
      const port = await closedPort();
      const { bed } = await bedOf();
      const m = await bed.newMerchant();
      await approvedPayout(bed, m, `http://127.0.0.1:${port}/payouts`);
      expect(await bed.dispatcher.runOnce()).toBe(1);
      const receiver = await receiverOf(undefined, port);
      await bed.advance(5);
      const [delivery] = await bed.deliveriesOf(m.accountId);
      expect(delivery?.attempts.map((a) => [a.at, a.status_code, a.error])).toEqual([
        [t0, null, 'connection failed: ECONNREFUSED'],
        [t0 + 5, 200, null],
      ]);
      expect(receiver.requests.map(idOf)).toEqual([delivery?.event_id]);
      expectSigned(receiver.requests[0] as ReceivedRequest, m.notifySecret);
    });

    it('after the eighth failure the delivery is failed, the next event goes, and redelivery resends it', async () => {
      let doomed: string | undefined;
      let recovered = false;
      const receiver = await receiverOf((request) => {
        doomed ??= idOf(request);
        return idOf(request) === doomed && !recovered ? { status: 503 } : { status: 200 };
      });
      const { bed } = await bedOf();
      const m = await bed.newMerchant();
      const hook = await bed.createWebhook(m, receiver.url('/hooks'));
      const orderId = await bed.createOrder(m, hook.webhookId);
      await bed.pay(orderId, 'processing');
      await bed.dispatcher.runOnce();
      const eventId = doomed ?? '';
      for (let attempt = 2; attempt <= maxDeliveryAttempts; attempt += 1) {
        await advanceToAttempt(bed, receiver, eventId, attempt);
        expect(receiver.of(eventId)).toHaveLength(attempt);
      }
      const outbox = await bed.outbox();
      expect(outbox.length).toBeGreaterThan(1);
      expect(outbox.map((x) => [x.status, x.attempts])).toEqual([
        ['failed', 8],
        ...outbox.slice(1).map(() => ['delivered', 1]),
      ]);
      // The object's next event was released by the failure, not before.
      expect(receiver.requests.map(idOf).indexOf(outbox[1]?.event_id ?? '')).toBe(8);
      const deliveries = await bed.deliveriesOf(m.accountId);
      const failed = deliveries.find((d) => d.event_id === eventId);
      expect(failed?.status).toBe('failed');
      expect(failed?.attempts.map((a) => a.at - t0)).toEqual([
        0, 5, 305, 2105, 9305, 27305, 63305, 99305,
      ]);

      recovered = true;
      const redelivered = dataOf(
        await bed.engine.webhooks.redeliver(m.caller, failed?.delivery_id ?? ''),
      ) as Json;
      expect(redelivered.delivery.status).toBe('pending');
      await bed.dispatcher.runOnce();
      const requests = receiver.of(eventId);
      expect(requests).toHaveLength(9);
      expect(new Set(requests.map((r) => r.body)).size).toBe(1);
      for (const request of requests) expectSigned(request, hook.secret);
      const after = (await bed.deliveriesOf(m.accountId)).find((d) => d.event_id === eventId);
      expect(after?.status).toBe('succeeded');
      expect(after?.attempts).toHaveLength(9);
      expect(after?.attempts[8]).toMatchObject({ attempt: 9, status_code: 200, error: null });
    });

    it('a webhook made inactive before its event went out gets nothing, visibly, until redelivered', async () => {
      const receiver = await receiverOf();
      const { bed } = await bedOf();
      const m = await bed.newMerchant();
      const hook = await bed.createWebhook(m, receiver.url('/hooks'));
      const orderId = await bed.createOrder(m, hook.webhookId);
      await bed.pay(orderId, 'processing');
      dataOf(await bed.engine.webhooks.update(m.caller, hook.webhookId, { status: 'inactive' }));
      await bed.dispatcher.runOnce();
      expect(receiver.requests).toEqual([]);
      const deliveries = await bed.deliveriesOf(m.accountId);
      expect(deliveries.length).toBeGreaterThan(0);
      for (const delivery of deliveries) {
        expect(delivery.status).toBe('failed');
        expect(delivery.attempts).toEqual([
          {
            attempt: 1,
            at: t0,
            status_code: null,
            latency_ms: 0,
            error: 'not sent: webhook inactive',
            response_body: '',
          },
        ]);
      }
      dataOf(await bed.engine.webhooks.update(m.caller, hook.webhookId, { status: 'active' }));
      const first = deliveries[0];
      dataOf(await bed.engine.webhooks.redeliver(m.caller, first?.delivery_id ?? ''));
      await bed.dispatcher.runOnce();
      expect(receiver.requests.map(idOf)).toEqual([first?.event_id]);
      expectSigned(receiver.requests[0] as ReceivedRequest, hook.secret);
    });

    describe('issue 19, secrets at rest (ADR 0041)', () => {
      const sealed = /^enc:v1:[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/;

      /** An order's events to the webhook and a payout callback to `/payouts`, delivered. */
      const deliverBoth = async (
        bed: DispatcherBed,
        m: Merchant,
        webhookId: string,
        receiver: Receiver,
      ) => {
        const orderId = await bed.createOrder(m, webhookId);
        await bed.pay(orderId, 'processing');
        await approvedPayout(bed, m, receiver.url('/payouts'));
        await bed.dispatcher.runOnce();
      };

      it('the stored webhook secret and notify_secret are sealed, and deliveries verify with the clear ones', async () => {
        const receiver = await receiverOf();
        const { bed, under } = await bedOf();
        const m = await bed.newMerchant();
        const hook = await bed.createWebhook(m, receiver.url('/hooks'));
        const stored = await under.store.transaction(async (tx) => ({
          webhook: await tx.webhooks.get(hook.webhookId),
          account: await tx.accounts.get(m.accountId),
        }));
        const raw = JSON.stringify(stored);
        expect(raw).not.toContain(hook.secret);
        expect(raw).not.toContain(m.notifySecret);
        expect(raw).not.toContain(hook.secret.slice('whsec_'.length));
        expect(raw).not.toContain(m.notifySecret.slice('whsec_'.length));
        expect(stored.webhook?.secret).toMatch(sealed);
        expect(stored.account?.notify_secret).toMatch(sealed);

        await deliverBoth(bed, m, hook.webhookId, receiver);
        expect(receiver.requests.map((request) => request.path).sort()).toEqual([
          '/hooks',
          '/hooks',
          '/payouts',
        ]);
        for (const request of receiver.requests) {
          expectSigned(request, request.path === '/hooks' ? hook.secret : m.notifySecret);
        }
      });

      it('secrets stored in clear before sealing (an older payrail) still sign', async () => {
        const receiver = await receiverOf();
        const { bed, under } = await bedOf();
        const m = await bed.newMerchant();
        const hook = await bed.createWebhook(m, receiver.url('/hooks'));
        const clear = { webhook: `whsec_${'A'.repeat(32)}`, notify: `whsec_${'B'.repeat(32)}` };
        await under.store.transaction(async (tx) => {
          const webhook = await tx.webhooks.get(hook.webhookId);
          const account = await tx.accounts.get(m.accountId);
          if (webhook === undefined || account === undefined) throw new Error('not stored');
          await tx.webhooks.update({ ...webhook, secret: clear.webhook });
          await tx.accounts.update({ ...account, notify_secret: clear.notify });
        });
        await deliverBoth(bed, m, hook.webhookId, receiver);
        expect(receiver.requests).toHaveLength(3);
        for (const request of receiver.requests) {
          expectSigned(request, request.path === '/hooks' ? clear.webhook : clear.notify);
        }
      });
    });

    describe('verification requests (docs/spec/decisions.md §2)', () => {
      const verifying = async (timeoutMs?: number) => {
        const { bed } = await bedOf(timeoutMs);
        const m = await bed.newMerchant({ verification_enabled: true });
        return { bed, m };
      };

      it('{verified:true} approves, {verified:false} rejects, and the result event follows', async () => {
        const receiver = await receiverOf((request) => {
          const body = JSON.parse(request.body) as Json;
          if (body.type !== 'payout.verification') return { status: 200 };
          return { status: 200, body: JSON.stringify({ verified: body.reference === 'ref-yes' }) };
        });
        const { bed, m } = await verifying();
        const yes = await bed.createPayout(m, receiver.url('/cb'), 'ref-yes');
        const no = await bed.createPayout(m, receiver.url('/cb'), 'ref-no');
        await bed.dispatcher.runOnce();
        expect(await bed.payout(m, yes)).toMatchObject({
          status: 'approved',
          review_status: 'approved',
          execution_status: 'init',
        });
        expect(await bed.payout(m, no)).toMatchObject({
          status: 'rejected',
          review_status: 'rejected',
          execution_status: 'init',
        });
        const outbox = await bed.outbox();
        const typesOf = (payoutId: string) =>
          outbox.filter((x) => x.business_id === payoutId).map((x) => [x.event_type, x.status]);
        expect(typesOf(yes)).toEqual([
          ['payout.verify.request', 'delivered'],
          ['payout.review.approved', 'delivered'],
        ]);
        expect(typesOf(no)).toEqual([
          ['payout.verify.request', 'delivered'],
          ['payout.review.rejected', 'delivered'],
        ]);
        expect(receiver.requests).toHaveLength(4);
        expectInOrder(outbox, receiver.requests);
        for (const request of receiver.requests) expectSigned(request, m.notifySecret);
      });

      const garbage: readonly { status: number; body: string }[] = [
        { status: 200, body: 'not json' },
        { status: 200, body: '{"verified":"yes"}' },
        { status: 200, body: '{}' },
        { status: 200, body: '[true]' },
        { status: 200, body: '{"verified":null}' },
        { status: 500, body: '{"verified":true}' },
        { status: 302, body: '{"verified":true}' },
        { status: 200, body: '' },
      ];

      it('undecided answers leave the payout waiting and are asked again; after the eighth it is returned', async () => {
        const receiver = await receiverOf((request) => {
          const body = JSON.parse(request.body) as Json;
          if (body.type !== 'payout.verification') return { status: 200 };
          return garbage[request.nth - 1] ?? { status: 200, body: '{"verified":true}' };
        });
        const { bed, m } = await verifying();
        const payoutId = await bed.createPayout(m, receiver.url('/cb'));
        await bed.dispatcher.runOnce();
        const eventId = idOf(receiver.requests[0] as ReceivedRequest);
        for (let attempt = 2; attempt <= maxDeliveryAttempts; attempt += 1) {
          expect(await bed.payout(m, payoutId), `after attempt ${attempt - 1}`).toMatchObject({
            status: 'pending_review',
            execution_status: 'init',
          });
          await advanceToAttempt(bed, receiver, eventId, attempt);
          expect(receiver.of(eventId)).toHaveLength(attempt);
        }
        expect(await bed.payout(m, payoutId)).toMatchObject({
          status: 'returned',
          review_status: 'returned',
          execution_status: 'init',
        });
        const outbox = await bed.outbox();
        expect(outbox.map((x) => [x.event_type, x.status, x.attempts])).toEqual([
          ['payout.verify.request', 'failed', 8],
          ['payout.review.returned', 'delivered', 1],
        ]);
        expect(receiver.requests.map(idOf)).toEqual([
          ...Array.from({ length: 8 }, () => eventId),
          outbox[1]?.event_id,
        ]);
        // The redirect was not followed.
        expect(receiver.requests.every((r) => r.path === '/cb')).toBe(true);
        const [delivery] = await bed.deliveriesOf(m.accountId);
        expect(delivery?.status).toBe('failed');
        expect(delivery?.attempts.map((a) => [a.status_code, a.error])).toEqual([
          [200, 'no verification decision in the answer'],
          [200, 'no verification decision in the answer'],
          [200, 'no verification decision in the answer'],
          [200, 'no verification decision in the answer'],
          [200, 'no verification decision in the answer'],
          [500, 'HTTP 500'],
          [302, 'HTTP 302: redirects are not followed'],
          [200, 'no verification decision in the answer'],
        ]);
      });

      it('an undecided answer followed by {verified:true} on a retry approves', async () => {
        const receiver = await receiverOf((request) => {
          const body = JSON.parse(request.body) as Json;
          if (body.type !== 'payout.verification') return { status: 200 };
          return request.nth < 3
            ? { status: 200, body: '{"verified":"maybe"}' }
            : { status: 200, body: '{"verified":true}' };
        });
        const { bed, m } = await verifying();
        const payoutId = await bed.createPayout(m, receiver.url('/cb'));
        await bed.dispatcher.runOnce();
        const eventId = idOf(receiver.requests[0] as ReceivedRequest);
        await advanceToAttempt(bed, receiver, eventId, 2);
        expect((await bed.payout(m, payoutId)).status).toBe('pending_review');
        await advanceToAttempt(bed, receiver, eventId, 3);
        expect((await bed.payout(m, payoutId)).status).toBe('approved');
        const [delivery] = (await bed.deliveriesOf(m.accountId)).filter(
          (d) => d.event_id === eventId,
        );
        expect(delivery?.status).toBe('succeeded');
        expect(delivery?.attempts).toHaveLength(3);
      });

      it('a receiver that never answers in time is asked eight times, then the payout is returned', async () => {
        const receiver = await receiverOf((request) => {
          const body = JSON.parse(request.body) as Json;
          return body.type === 'payout.verification' ? 'hang' : { status: 200 };
        });
        const { bed, m } = await verifying(200);
        const payoutId = await bed.createPayout(m, receiver.url('/cb'));
        await bed.dispatcher.runOnce();
        const eventId = idOf(receiver.requests[0] as ReceivedRequest);
        for (let attempt = 2; attempt <= maxDeliveryAttempts; attempt += 1) {
          expect((await bed.payout(m, payoutId)).status).toBe('pending_review');
          await advanceToAttempt(bed, receiver, eventId, attempt);
        }
        expect(receiver.of(eventId)).toHaveLength(8);
        expect((await bed.payout(m, payoutId)).status).toBe('returned');
        const [delivery] = await bed.deliveriesOf(m.accountId);
        expect(delivery?.status).toBe('failed');
        expect(new Set(delivery?.attempts.map((a) => a.error))).toEqual(
          new Set(['timeout: no complete answer within 200 ms']),
        );
      });

      it('an operator who decides first ends the requests: an undecided answer is not asked again', async () => {
        const receiver = await receiverOf((request) => {
          const body = JSON.parse(request.body) as Json;
          return body.type === 'payout.verification' ? { status: 500 } : { status: 200 };
        });
        const { bed, m } = await verifying();
        const payoutId = await bed.createPayout(m, receiver.url('/cb'));
        await bed.dispatcher.runOnce();
        dataOf(
          await bed.engine.admin.reviewPayout(bootstrapOperator, payoutId, { action: 'approve' }),
        );
        await bed.advance(5);
        const outbox = await bed.outbox();
        expect(outbox.map((x) => [x.event_type, x.status, x.attempts])).toEqual([
          ['payout.verify.request', 'failed', 2],
          ['payout.review.approved', 'delivered', 1],
        ]);
        expect((await bed.payout(m, payoutId)).status).toBe('approved');
        // The ended round's request was not sent again (issue 19, M2).
        expect(
          receiver.requests.filter((r) => r.body.includes('payout.verification')),
        ).toHaveLength(1);
        const [delivery] = await bed.deliveriesOf(m.accountId);
        expect(delivery?.attempts[1]?.error).toBe(
          'not sent: verification round 1 of the payout has ended',
        );
      });

      it('issue 19, M2: a yes about 100.00 in round 1 never approves the 900.00 of round 2', async () => {
        // The verifier says yes only to 100.00, and its first answer is lost (500).
        const receiver = await receiverOf((request) => {
          const body = JSON.parse(request.body) as Json;
          if (body.type !== 'payout.verification') return { status: 200 };
          if (body.amount !== '100.00') return { status: 200, body: '{"verified":false}' };
          return request.nth === 1 ? { status: 500 } : { status: 200, body: '{"verified":true}' };
        });
        const { bed, m } = await verifying();
        const payoutId = await bed.createPayout(m, receiver.url('/cb'));
        await bed.dispatcher.runOnce();
        // While round 1 is retried: the operator returns it, the merchant makes it 900.00 and
        // submits it again.
        dataOf(
          await bed.engine.admin.reviewPayout(bootstrapOperator, payoutId, {
            action: 'return',
            reason: 'x',
          }),
        );
        dataOf(await bed.engine.payouts.update(m.caller, payoutId, { amount: '900.00' }));
        dataOf(await bed.engine.payouts.submit(m.caller, payoutId));
        await bed.advance(5);
        await bed.advance(60);
        const asked = receiver.requests
          .map((r) => JSON.parse(r.body) as Json)
          .filter((body) => body.type === 'payout.verification')
          .map((body) => [body.amount, body.verification_round]);
        // Round 1 was asked once (its retry was not sent); round 2 was asked and refused.
        expect(asked).toEqual([
          ['100.00', 1],
          ['900.00', 2],
        ]);
        expect(await bed.payout(m, payoutId)).toMatchObject({
          amount: '900.00',
          status: 'rejected',
          review_status: 'rejected',
        });
      });
    });

    it('two dispatchers on one database never send an attempt twice', async () => {
      // Each event fails once (500), then succeeds: exactly two arrivals per webhook-id.
      const receiver = await receiverOf((request) =>
        request.nth === 1 ? { status: 500 } : { status: 200 },
      );
      const { bed, under } = await bedOf();
      const second = await under.another();
      cleanups.push(() => second.close());
      const m = await bed.newMerchant();
      const hook = await bed.createWebhook(m, receiver.url('/hooks'));
      for (let n = 0; n < 6; n += 1) {
        const orderId = await bed.createOrder(m, hook.webhookId);
        const paymentId = await bed.pay(orderId, 'processing');
        await bed.pay(orderId, 'confirmed', paymentId);
      }
      for (let n = 0; n < 4; n += 1) {
        const payoutId = await approvedPayout(bed, m, receiver.url('/payouts'));
        dataOf(
          await bed.engine.admin.sandboxExecution(bootstrapOperator, payoutId, {
            outcome: 'completed',
          }),
        );
      }
      const engineOn = (store: Store): Engine => createEngine({ ...bedDeps(bed), store });
      const dispatcherOn = (store: Store, worker: string): Dispatcher =>
        createDispatcher({
          store,
          clock: bed.clock,
          ids: bed.ids,
          callbacks: engineOn(store).callbacks,
          keySecret: testKeySecret,
          allowInsecure: true,
          worker,
          batchSize: 3,
        });
      const one = dispatcherOn(under.store, 'process-1');
      const two = dispatcherOn(second, 'process-2');
      const made = { one: 0, two: 0 };
      for (let pass = 0; pass < 40; pass += 1) {
        const [a, b] = await Promise.all([one.runOnce(), two.runOnce()]);
        made.one += a;
        made.two += b;
        const pending = (await bed.outbox()).filter((x) => x.status === 'pending');
        if (pending.length === 0) break;
        bed.clock.advance(5);
      }
      const outbox = await bed.outbox();
      expect(outbox.length).toBeGreaterThan(20);
      expect(outbox.filter((x) => x.status !== 'delivered')).toEqual([]);
      expect(made.one).toBeGreaterThan(0);
      expect(made.two).toBeGreaterThan(0);
      expect(made.one + made.two).toBe(2 * outbox.length);
      expect(receiver.requests).toHaveLength(2 * outbox.length);
      for (const message of outbox) {
        expect(receiver.of(message.event_id), message.event_type).toHaveLength(2);
        expect(message.attempts).toBe(2);
      }
      expectInOrder(outbox, receiver.requests);
      const deliveries = await bed.deliveriesOf(m.accountId);
      expect(deliveries).toHaveLength(outbox.length);
      for (const delivery of deliveries) {
        expect(delivery.attempts.map((a) => [a.attempt, a.status_code])).toEqual([
          [1, 500],
          [2, 200],
        ]);
      }
    });
  });
};

/** What a second engine on another store of the same database needs from the bed's. */
const bedDeps = (bed: DispatcherBed) => ({
  clock: bed.clock,
  ids: bed.ids,
  settings: {
    environment: 'sandbox' as const,
    checkoutBaseUrl: 'https://pay.example.com/checkout',
    allowInsecureWebhooks: true,
    keySecret: testKeySecret,
  },
});
