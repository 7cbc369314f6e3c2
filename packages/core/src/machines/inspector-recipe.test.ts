import { createInspector, type StatelyInspectionEvent } from '@statelyai/inspect';
import { describe, expect, it, vi } from 'vitest';
import type { Snapshot } from 'xstate';
import type { PayoutRecord } from '../ports/records.js';
import { payoutInput, T0 } from '../testing/payout.fixtures.js';
import { acquiringOrderMachine } from './acquiring-order.machine.js';
import { start } from './effects.js';
import { resumeActor } from './machine-actor.js';
import {
  type PersistedPayout,
  payoutActorSnapshot,
  payoutMachine,
  payoutStateKeyOf,
  persistPayout,
} from './payout.machine.js';

// docs/machines.md, "Watching a machine in the inspector": the recipe, step by step, with an
// adapter that keeps what the browser inspector would be sent.

/** A payout record as a store hands it back: its `snapshot` is JSON, typed unknown. */
const storedPayout = (): Pick<PayoutRecord, 'snapshot'> => {
  const { snapshot } = start(payoutMachine, payoutInput());
  expect(payoutStateKeyOf(snapshot)).toBe('pendingReview.awaitingReview');
  return { snapshot: JSON.parse(JSON.stringify(persistPayout(snapshot))) };
};

const capturingInspector = () => {
  const received: StatelyInspectionEvent[] = [];
  const inspector = createInspector({
    send(event) {
      received.push(event);
    },
    start() {},
    stop() {},
  });
  return { inspect: inspector.inspect, received };
};

describe('resuming a stored payout in the inspector', () => {
  it('resumes where it stopped, takes the next event, and the inspector sees both', async () => {
    const record = storedPayout();
    const { inspect, received } = capturingInspector();

    const snapshot = payoutActorSnapshot(record.snapshot as PersistedPayout);
    const actor = resumeActor(payoutMachine, snapshot, { inspect });
    actor.start();
    actor.send({ type: 'payout.review.approve', at: T0 + 60, account_status: 'active' });

    expect(payoutStateKeyOf(actor.getSnapshot())).toBe('approved.init');
    expect(actor.getSnapshot().context.revision).toBe(2);

    // The inspector hands each event on from a timer, not at once.
    await vi.waitFor(() => expect(received).toHaveLength(5));
    const ofActor = received.filter((e) => e.sessionId === actor.sessionId);
    expect(ofActor).toHaveLength(received.length);
    expect(received.filter((e) => e.type === '@xstate.actor')).toEqual([
      expect.objectContaining({ type: '@xstate.actor', name: 'payout' }),
    ]);
    const snapshots = received.flatMap((e) =>
      e.type === '@xstate.snapshot'
        ? [{ event: e.event.type, value: (e.snapshot as { value?: unknown }).value }]
        : [],
    );
    expect(snapshots).toEqual([
      { event: 'xstate.init', value: { pendingReview: 'awaitingReview' } },
      { event: 'payout.review.approve', value: { approved: 'init' } },
    ]);
    actor.stop();
  });

  it('cannot resume from the stored wrapper itself: XState fails the actor with a TypeError', () => {
    const failures: unknown[] = [];
    const wrapper = storedPayout().snapshot as Snapshot<unknown>;
    const actor = resumeActor(payoutMachine, wrapper);
    actor.subscribe({ error: (error) => failures.push(error) });
    actor.start();
    expect(failures).toEqual([expect.any(TypeError)]);
  });

  it('refuses a stored payout of another format version', () => {
    const stored = { ...(storedPayout().snapshot as PersistedPayout), version: 2 };
    expect(() => payoutActorSnapshot(stored as unknown as PersistedPayout)).toThrow(
      'unsupported payout snapshot version: 2',
    );
  });
});

describe('resuming a stored acquiring order', () => {
  it("resumes from the stored wrapper's snapshot field, as the docs say for orders and batches", () => {
    const { snapshot } = start(acquiringOrderMachine, {
      order_id: 'ord_1',
      platform_order_no: 'PO202601010001',
      out_trade_no: 'M-1001',
      account_id: 'acc_1',
      order_currency: 'USD',
      order_amount: '100.00',
      pay_amount: '100',
      allowed_pay_currencies: ['TRON_USDT'],
      underpay_tolerance: '0.5',
      expire_time: T0 + 900,
      notify_webhook_id: 'wh_1',
      checkout_type: 'hosted',
      mode: 'checkout',
      at: T0,
    });
    // The engine's order store keeps this wrapper (packages/engine/src/acquiring/order.store.ts).
    const stored = JSON.parse(
      JSON.stringify({
        version: 1,
        snapshot: acquiringOrderMachine.getPersistedSnapshot(snapshot),
      }),
    ) as { readonly snapshot: Snapshot<unknown> };

    const actor = resumeActor(acquiringOrderMachine, stored.snapshot);
    actor.start();
    actor.send({ type: 'acquiring.order.close', reason: 'merchant', at: T0 + 60 });

    expect(actor.getSnapshot().value).toBe('closed');
    actor.stop();
  });
});
