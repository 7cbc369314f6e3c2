/**
 * `EngineDeps.inspect`: committed machine decisions told as XState v5 inspection events, read
 * back the way `@statelyai/inspect`'s `convertXStateEvent` reads them.
 */
import type { Store } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import { caller, dataOf, seed, testBed } from './acquiring/acquiring.test-support.js';
import type { Engine } from './engine.api.js';
import type { EngineDeps } from './engine.deps.js';
import { createEngine } from './engine.wiring.js';
import type { EngineInspectionEvent, EngineInspector } from './inspection.observer.js';
import { bootstrapOperator } from './operators/operators.use-cases.js';
import {
  errorOf,
  merchantA,
  payoutHarness,
  payoutOf,
  walletaPayout,
} from './payouts/payouts.test-support.js';

/** What `@statelyai/inspect` (0.7.2, `convertXStateEvent`) reads of each event, and nothing more. */
const converted = (event: EngineInspectionEvent) => {
  const safe = (value: unknown): unknown =>
    JSON.parse(
      JSON.stringify(value, (_key, v: unknown) =>
        typeof v === 'function' ? { type: (v as { name: string }).name } : v,
      ) ?? 'null',
    );
  switch (event.type) {
    case '@xstate.actor': {
      const { actorRef } = event;
      const definition = actorRef.logic.config;
      return {
        type: event.type,
        name: actorRef.id === actorRef.sessionId ? definition.id : actorRef.id,
        definition: JSON.stringify(safe(definition)),
        rootId: event.rootId,
        parentId: actorRef._parent?.sessionId,
        sessionId: actorRef.sessionId,
        snapshot: actorRef.getSnapshot(),
      };
    }
    case '@xstate.event':
      return {
        type: event.type,
        event: event.event,
        sourceId: event.sourceRef?.sessionId,
        sessionId: event.actorRef.sessionId,
        rootId: event.rootId,
      };
    case '@xstate.snapshot':
      return {
        type: event.type,
        event: event.event,
        snapshot: safe(event.snapshot) as { value: unknown; context: unknown; status: string },
        sessionId: event.actorRef.sessionId,
        rootId: event.rootId,
      };
  }
};

/** `[type, sessionId, event type or machine id, snapshot value]` of each event, in order. */
const summary = (events: readonly EngineInspectionEvent[]) =>
  events.map((event) => {
    if (event.type === '@xstate.actor') {
      return [event.type, event.actorRef.sessionId, event.actorRef.logic.config.id];
    }
    return event.type === '@xstate.event'
      ? [event.type, event.actorRef.sessionId, event.event.type]
      : [event.type, event.actorRef.sessionId, event.event.type, event.snapshot.value];
  });

const capture = () => {
  const events: EngineInspectionEvent[] = [];
  const inspect: EngineInspector = (event) => {
    events.push(event);
  };
  return { events, inspect };
};

describe('inspecting a running engine', () => {
  it('tells a payout’s creation and approval, and nothing for a refused approval', async () => {
    const h = await payoutHarness();
    const { events, inspect } = capture();
    const engine = createEngine({ ...h.deps, inspect });
    await h.credit(merchantA, 'USD', '1000.00');

    payoutOf(await engine.payouts.create(merchantA, walletaPayout()));
    payoutOf(await engine.admin.reviewPayout(bootstrapOperator, 'po_1', { action: 'approve' }));
    expect(
      errorOf(await engine.admin.reviewPayout(bootstrapOperator, 'po_1', { action: 'approve' })),
    ).toEqual(['payout already approved', 400, 53]);
    // Reads and the timer's hand-off decide nothing.
    await engine.payouts.get(merchantA, 'po_1');
    await engine.workers.runDueTimers('test');

    expect(summary(events)).toEqual([
      ['@xstate.actor', 'po_1', 'payout'],
      ['@xstate.event', 'po_1', 'xstate.init'],
      ['@xstate.snapshot', 'po_1', 'xstate.init', { pendingReview: 'awaitingReview' }],
      ['@xstate.event', 'po_1', 'payout.review.approve'],
      ['@xstate.snapshot', 'po_1', 'payout.review.approve', { approved: 'init' }],
    ]);
    for (const event of events) {
      expect(event.actorRef.id).toBe('po_1');
      expect(event.rootId).toBe('po_1');
    }

    const [actor, init, , approve, approved] = events.map(converted);
    expect(actor).toMatchObject({
      type: '@xstate.actor',
      name: 'payout',
      sessionId: 'po_1',
      rootId: 'po_1',
      parentId: undefined,
    });
    expect(JSON.parse((actor as { definition: string }).definition)).toMatchObject({
      id: 'payout',
    });
    expect(init).toMatchObject({
      event: { type: 'xstate.init', input: { payout_id: 'po_1', amount: '100.00' } },
      sourceId: undefined,
    });
    expect(approve).toEqual({
      type: '@xstate.event',
      event: { type: 'payout.review.approve', at: h.clock.now(), account_status: 'active' },
      sourceId: undefined,
      sessionId: 'po_1',
      rootId: 'po_1',
    });
    expect(approved).toMatchObject({
      type: '@xstate.snapshot',
      snapshot: {
        status: 'active',
        value: { approved: 'init' },
        context: { payout_id: 'po_1', revision: 2 },
      },
    });
  });

  it('announces an object met for the first time when it is first loaded, with its snapshot then', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    const { events, inspect } = capture();
    const engine = createEngine({ ...h.deps, inspect });
    await engine.admin.reviewPayout(bootstrapOperator, 'po_1', { action: 'reject', reason: 'no' });
    expect(summary(events)).toEqual([
      ['@xstate.actor', 'po_1', 'payout'],
      ['@xstate.event', 'po_1', 'payout.review.reject'],
      ['@xstate.snapshot', 'po_1', 'payout.review.reject', 'rejected'],
    ]);
    const actor = events[0];
    expect(actor?.type === '@xstate.actor' && actor.actorRef.getSnapshot().value).toEqual({
      pendingReview: 'awaitingReview',
    });
  });

  it('tells an order’s creation and its sandbox payment', async () => {
    const bed = testBed();
    await seed(bed);
    const { events, inspect } = capture();
    const engine = createEngine({ ...bed.deps, inspect });
    const created = dataOf(
      await engine.acquiring.create(caller(), {
        out_trade_no: 'ORD-1',
        order_currency: 'USD',
        order_amount: '30.00',
        allowed_pay_currencies: ['TRON_USDT'],
        expire_seconds: 1800,
        underpay_tolerance: '0',
        notify_webhook_id: 'wh_a',
        mode: 'direct',
        network: 'TRON',
        currency: 'USDT',
      }),
    );
    const orderId = (created.order as { order_id: string }).order_id;
    dataOf(
      await engine.admin.sandboxPayment(bootstrapOperator, orderId, {
        token_id: 'TRON_USDT',
        amount: '30',
        status: 'confirmed',
        payment_id: 'p1',
      }),
    );
    // The same payment again: the machine ignores it, nothing is committed, nothing told.
    dataOf(
      await engine.admin.sandboxPayment(bootstrapOperator, orderId, {
        token_id: 'TRON_USDT',
        amount: '30',
        status: 'confirmed',
        payment_id: 'p1',
      }),
    );

    expect(summary(events)).toEqual([
      ['@xstate.actor', orderId, 'acquiringOrder'],
      ['@xstate.event', orderId, 'xstate.init'],
      ['@xstate.snapshot', orderId, 'xstate.init', 'pending'],
      ['@xstate.event', orderId, 'acquiring.payment.observed'],
      ['@xstate.snapshot', orderId, 'acquiring.payment.observed', 'completed'],
    ]);
    const snapshot = converted(events[4] as EngineInspectionEvent) as {
      snapshot: { value: unknown; status: string };
    };
    // Final for the interface (late payments are still recorded): shown done.
    expect(snapshot.snapshot).toMatchObject({ value: 'completed', status: 'done' });
  });

  it('shows a payout done once it completes, and told again when it is returned', async () => {
    const h = await payoutHarness();
    const { events, inspect } = capture();
    const engine = createEngine({ ...h.deps, inspect });
    await h.credit(merchantA, 'USD', '1000.00');
    payoutOf(await engine.payouts.create(merchantA, walletaPayout()));
    payoutOf(await engine.admin.reviewPayout(bootstrapOperator, 'po_1', { action: 'approve' }));
    payoutOf(await engine.executions.report('po_1', { status: 'processing' }));
    payoutOf(await engine.executions.report('po_1', { status: 'completed' }));
    payoutOf(await engine.executions.report('po_1', { status: 'returned', reason: 'bounced' }));

    const statuses = events.flatMap((event) => {
      const shown = converted(event);
      return shown.type === '@xstate.snapshot'
        ? [[shown.event.type, shown.snapshot.value, shown.snapshot.status]]
        : [];
    });
    expect(statuses).toEqual([
      ['xstate.init', { pendingReview: 'awaitingReview' }, 'active'],
      ['payout.review.approve', { approved: 'init' }, 'active'],
      ['payout.execution.processing', { approved: 'processing' }, 'active'],
      ['payout.execution.completed', { approved: 'completed' }, 'done'],
      ['payout.execution.returned', { approved: 'returned' }, 'done'],
    ]);
  });

  it('shows a payout met first when it is already final as done in its announcement', async () => {
    const h = await payoutHarness();
    const unwatched = createEngine(h.deps);
    await h.credit(merchantA, 'USD', '1000.00');
    payoutOf(await unwatched.payouts.create(merchantA, walletaPayout()));
    payoutOf(await unwatched.admin.reviewPayout(bootstrapOperator, 'po_1', { action: 'approve' }));
    payoutOf(await unwatched.executions.report('po_1', { status: 'completed' }));
    const { events, inspect } = capture();
    const engine = createEngine({ ...h.deps, inspect });
    payoutOf(await engine.executions.report('po_1', { status: 'returned', reason: 'bounced' }));
    const actor = events[0];
    expect(actor?.type).toBe('@xstate.actor');
    expect(actor?.actorRef.getSnapshot()).toMatchObject({
      value: { approved: 'completed' },
      status: 'done',
    });
  });

  it('tells a batch’s payouts as children of the batch', async () => {
    const bed = testBed();
    await seed(bed);
    const { events, inspect } = capture();
    const engine = createEngine({ ...bed.deps, inspect });
    const address = '0x52908400098527886E0F7030069857D2E4169EE7';
    const batch = dataOf(
      await engine.batches.create(caller(), {
        currency: 'USDT',
        method_id: 7,
        items: [{ order_no: 'B1', amount: '10', beneficiary_account: { address } }],
      }),
    ).batch as { batch_id: string };
    dataOf(
      await engine.batches.approve(caller({ key_id: 'key_a2' }), batch.batch_id, { version: 0 }),
    );

    const batchId = batch.batch_id;
    const payoutEvents = events.filter((e) => e.actorRef.sessionId !== batchId);
    expect(summary(events.filter((e) => e.actorRef.sessionId === batchId))).toEqual([
      ['@xstate.actor', batchId, 'cryptoBatch'],
      ['@xstate.event', batchId, 'xstate.init'],
      ['@xstate.snapshot', batchId, 'xstate.init', 'draft'],
      ['@xstate.event', batchId, 'batch.approve'],
      ['@xstate.snapshot', batchId, 'batch.approve', 'submitted'],
    ]);
    const payoutId = payoutEvents[0]?.actorRef.sessionId ?? '';
    expect(summary(payoutEvents)).toEqual([
      ['@xstate.actor', payoutId, 'payout'],
      ['@xstate.event', payoutId, 'xstate.init'],
      ['@xstate.snapshot', payoutId, 'xstate.init', { pendingReview: 'awaitingReview' }],
    ]);
    expect(payoutEvents.map(converted)).toEqual([
      expect.objectContaining({ parentId: batchId, rootId: batchId }),
      expect.objectContaining({ sourceId: batchId, rootId: batchId }),
      expect.objectContaining({ rootId: batchId }),
    ]);
  });

  it('tells only the attempt a store committed when it ran the work again', async () => {
    const h = await payoutHarness();
    const memory = h.store;
    // A store that retries a serialization failure by running the work again on a new transaction.
    const retrying: Store = {
      transaction: async (work) => {
        await memory
          .transaction(async (tx) => {
            await work(tx);
            throw new Error('serialization failure');
          })
          .catch(() => undefined);
        return memory.transaction(work);
      },
      claimEnvironment: (environment) => memory.claimEnvironment(environment),
      close: () => memory.close(),
    };
    const { events, inspect } = capture();
    const engine = createEngine({ ...h.deps, store: retrying, inspect });
    const created = payoutOf(await engine.payouts.create(merchantA, walletaPayout()));
    expect(created.payout_id).toBe('po_2');
    expect(summary(events)).toEqual([
      ['@xstate.actor', 'po_2', 'payout'],
      ['@xstate.event', 'po_2', 'xstate.init'],
      ['@xstate.snapshot', 'po_2', 'xstate.init', { pendingReview: 'awaitingReview' }],
    ]);
  });

  it('takes an observer object, and nothing it throws reaches the use case', async () => {
    const h = await payoutHarness();
    const seen: string[] = [];
    const engine = createEngine({
      ...h.deps,
      inspect: {
        next: (event) => {
          seen.push(event.type);
          throw new Error('inspector down');
        },
      },
    });
    expect(payoutOf(await engine.payouts.create(merchantA, walletaPayout())).status).toBe(
      'pending_review',
    );
    expect(seen).toEqual(['@xstate.actor', '@xstate.event', '@xstate.snapshot']);

    const rejecting: EngineDeps = {
      ...h.deps,
      inspect: (async () => {
        throw new Error('async inspector down');
      }) as EngineInspector,
    };
    const quiet: Engine = createEngine(rejecting);
    expect(
      payoutOf(await quiet.admin.reviewPayout(bootstrapOperator, 'po_1', { action: 'approve' }))
        .status,
    ).toBe('approved');
  });
});
