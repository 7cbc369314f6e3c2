import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBalanced, type Journal } from '../ledger/ledger.js';
import { Decimal } from '../money/money.js';
import { type PayTokenId, payTokenIds, payTokens } from '../money/pay-tokens.js';
import { eventIdOf } from '../webhooks/webhook-envelope.js';
import {
  type AcquiringOrderEvent,
  type AcquiringOrderInput,
  type AcquiringOrderSnapshot,
  acquiringOrderMachine,
  isFinalOrder,
  orderAmountsOf,
  orderRefusalOf,
  orderStatusOf,
} from './acquiring-order.machine.js';
import { decide, type Effect, start } from './effects.js';
import {
  aggregateOrderStatus,
  chainStatuses,
  isFinalOrderStatus,
  joinObservations,
  observationOf,
  orderAmounts,
  type PaymentObservation,
  type PaymentStatus,
  type ProviderPaymentEvent,
  providerEventKinds,
} from './order-status.js';
import { expectStartAsXState, expectStepAsXState } from './step-equivalence.test-support.js';

const T0 = 1_767_225_600;
const EXPIRE = T0 + 900;
const ALLOWED: readonly PayTokenId[] = ['TRON_USDT', 'ETH_USDC', 'SOL_USDT'];

const micro = (n: number): string => new Decimal(n).div(1_000_000).toString();

const inputArb: fc.Arbitrary<AcquiringOrderInput> = fc
  .record({
    pay: fc.integer({ min: 1_000_000, max: 500_000_000 }),
    tolerance: fc.integer({ min: 0, max: 2_000_000 }),
  })
  .map(({ pay, tolerance }) => ({
    order_id: 'ord_p',
    platform_order_no: 'PO1',
    out_trade_no: 'M1',
    account_id: 'acc_p',
    order_currency: 'USD',
    order_amount: new Decimal(pay).div(1_000_000).toFixed(2),
    pay_amount: micro(pay),
    allowed_pay_currencies: ALLOWED,
    underpay_tolerance: micro(tolerance),
    expire_time: EXPIRE,
    notify_webhook_id: 'wh',
    checkout_type: 'hosted',
    mode: 'checkout',
    at: T0,
  }));

/** A payment's fixed identity: one token, address, amount and tx per payment_id. */
const paymentIdentityArb = (payment_id: string) =>
  fc.record({
    payment_id: fc.constant(payment_id),
    token_id: fc.constantFrom(...ALLOWED),
    address: fc.constant(`addr_${payment_id}`),
    amount: fc.integer({ min: 1, max: 300_000_000 }).map(micro),
    tx_hash: fc.constant(`0x${payment_id}`),
    required_confirmations: fc.constantFrom(1, 12, 20),
  });

/** Several events per payment, the identity of each payment fixed. */
const paymentEventsArb: fc.Arbitrary<readonly ProviderPaymentEvent[]> = fc
  .uniqueArray(fc.constantFrom('p1', 'p2', 'p3', 'p4'), { minLength: 1, maxLength: 4 })
  .chain((ids) =>
    fc.tuple(
      ...ids.map((id) =>
        fc
          .tuple(
            paymentIdentityArb(id),
            fc.array(fc.tuple(fc.constantFrom(...providerEventKinds), fc.nat({ max: 30 })), {
              minLength: 1,
              maxLength: 3,
            }),
          )
          .map(([identity, steps]) =>
            steps.map(([kind, confirmations]) => ({ ...identity, kind, confirmations })),
          ),
      ),
    ),
  )
  .map((groups) => groups.flat());

interface Outcome {
  readonly snapshot: AcquiringOrderSnapshot;
  readonly effects: readonly Effect[];
}

const runAll = (input: AcquiringOrderInput, events: readonly AcquiringOrderEvent[]): Outcome => {
  let { snapshot, effects } = start(acquiringOrderMachine, input);
  const all: Effect[] = [...effects];
  for (const event of events) {
    ({ snapshot, effects } = decide(acquiringOrderMachine, snapshot, event));
    all.push(...effects);
  }
  return { snapshot, effects: all };
};

const journalsOf = (effects: readonly Effect[]): readonly Journal[] =>
  effects.flatMap((e) => (e.type === 'post' ? [e.journal] : []));

const credits = (effects: readonly Effect[]) =>
  journalsOf(effects)
    .map((j) => `${j.businessId}=${j.currency}:${j.amount}`)
    .sort();

/** The merged records computed without the machine: a fold of the join per payment. */
const mergedByJoin = (events: readonly ProviderPaymentEvent[]) => {
  const merged = new Map<string, PaymentObservation>();
  for (const e of events) {
    const seen = merged.get(e.payment_id);
    const o = observationOf(e);
    merged.set(e.payment_id, seen === undefined ? o : joinObservations(seen, o));
  }
  return merged;
};

/** What the records say, apart from when they were learnt. */
const contentOf = (snapshot: AcquiringOrderSnapshot) =>
  Object.fromEntries(
    Object.entries(snapshot.context.payments).map(([id, r]) => [
      id,
      { status: r.status, chain: r.chain_status, confirmations: r.confirmations, amount: r.amount },
    ]),
  );

/** The oracle: records, order status, amounts and credits from the join alone. */
const expectedOf = (
  input: AcquiringOrderInput,
  events: readonly ProviderPaymentEvent[],
  late: boolean,
) => {
  const merged = [...mergedByJoin(events)];
  const statusOf = (o: PaymentObservation): PaymentStatus =>
    late && o.chain_status !== 'failed' ? 'late' : o.chain_status;
  const records = merged.map(([, o]) => ({ status: statusOf(o), amount: o.amount }));
  return {
    content: Object.fromEntries(
      merged.map(([id, o]) => [
        id,
        {
          status: statusOf(o),
          chain: o.chain_status,
          confirmations: o.confirmations,
          amount: o.amount,
        },
      ]),
    ),
    status: aggregateOrderStatus({
      payments: records,
      payAmount: input.pay_amount,
      underpayTolerance: input.underpay_tolerance,
      expireTime: EXPIRE,
      now: late ? EXPIRE : T0 + 1,
      closed: false,
    }),
    amounts: orderAmounts({ payments: records, payAmount: input.pay_amount }),
    credits: merged
      .filter(([, o]) => o.chain_status === 'completed')
      .map(([id, o]) => `${id}=${payTokens[o.token_id].currency}:${o.amount}`)
      .sort(),
  };
};

/** A permutation with duplicates: every event at least once, some twice, in any order. */
const deliveriesArb = (events: readonly ProviderPaymentEvent[]) =>
  fc.subarray([...events]).chain((dups) => {
    const all = [...events, ...dups];
    return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length });
  });

const observedAt =
  (times: readonly number[]) =>
  (payment: ProviderPaymentEvent, i: number): AcquiringOrderEvent => ({
    type: 'acquiring.payment.observed',
    payment,
    at: times[i % times.length] ?? T0 + 1,
  });

const eventsAndDeliveryArb = paymentEventsArb.chain((events) =>
  fc.tuple(fc.constant(events), deliveriesArb(events)),
);

// Each delivery is compared with the oracle, which sees no order at all: so any two
// permutations (with any duplicates) give the same order and records as each other.
describe('order independence (docs/spec/decisions.md §4)', () => {
  it('(a) any permutation and duplication of payment events before expiry ends in the aggregation of the joined records', () => {
    fc.assert(
      fc.property(
        inputArb,
        eventsAndDeliveryArb,
        fc.array(fc.integer({ min: T0 + 1, max: EXPIRE - 1 }), { minLength: 1, maxLength: 8 }),
        (input, [events, delivery], times) => {
          const { snapshot, effects } = runAll(input, delivery.map(observedAt(times)));
          const expected = expectedOf(input, events, false);
          expect(snapshot.value).toBe(expected.status);
          expect(orderAmountsOf(snapshot.context)).toEqual(expected.amounts);
          expect(contentOf(snapshot)).toEqual(expected.content);
          expect(credits(effects)).toEqual(expected.credits);
          expect(snapshot.context.anomaly_tag).toBe('');
        },
      ),
    );
  });

  it('(a) after expiry, any permutation and duplication leaves the order expired, records late or failed, confirmed ones credited, one anomaly update', () => {
    fc.assert(
      fc.property(
        inputArb,
        eventsAndDeliveryArb,
        fc.array(fc.integer({ min: EXPIRE, max: EXPIRE + 5000 }), { minLength: 1, maxLength: 8 }),
        (input, [events, delivery], times) => {
          const { snapshot, effects } = runAll(input, delivery.map(observedAt(times)));
          const expected = expectedOf(input, events, true);
          expect(snapshot.value).toBe('expired');
          expect(expected.status).toBe('expired');
          expect(orderAmountsOf(snapshot.context)).toEqual(expected.amounts);
          expect(contentOf(snapshot)).toEqual(expected.content);
          expect(credits(effects)).toEqual(expected.credits);
          expect(snapshot.context.anomaly_tag).toBe('expired_paid');
          const anomalyUpdates = effects.filter(
            (e) =>
              e.type === 'emit' &&
              e.event.eventType === 'acquiring.order.updated' &&
              e.event.data.anomaly_tag === 'expired_paid',
          );
          expect(anomalyUpdates).toHaveLength(1);
        },
      ),
    );
  });
});

const tokenChoiceArb = fc.constantFrom<string>(...payTokenIds, 'USDT', 'tron_usdt');

/** A payment event of the schedule, against the run's payment identities. */
interface PaymentStep {
  readonly type: 'payment';
  readonly index: 0 | 1 | 2;
  readonly kind: ProviderPaymentEvent['kind'];
  readonly confirmations: number;
  /** `no_tx`: the provider does not know the tx_hash yet; `conflict`: another amount. */
  readonly variant: 'same' | 'no_tx' | 'conflict';
}

/** Events without their time, so a counterexample prints as data. */
type Timeless<E> = E extends AcquiringOrderEvent ? Omit<E, 'at' | 'payment'> : never;
type ScheduledEvent =
  | PaymentStep
  | Exclude<Timeless<AcquiringOrderEvent>, { type: 'acquiring.payment.observed' }>;

const scheduledEventArb: fc.Arbitrary<ScheduledEvent> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      type: fc.constant('payment' as const),
      index: fc.constantFrom(0 as const, 1 as const, 2 as const),
      kind: fc.constantFrom(...providerEventKinds),
      confirmations: fc.nat({ max: 30 }),
      variant: fc.oneof(
        { weight: 8, arbitrary: fc.constant('same' as const) },
        { weight: 1, arbitrary: fc.constant('no_tx' as const) },
        { weight: 1, arbitrary: fc.constant('conflict' as const) },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ type: 'acquiring.order.expire' as const }) },
  { weight: 1, arbitrary: fc.constant({ type: 'acquiring.order.close' as const, reason: 'r' }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(tokenChoiceArb, fc.constantFrom('addr_x', 'addr_y', ''))
      .map(([token_id, address]) => ({
        type: 'acquiring.order.select_token' as const,
        token_id,
        address,
      })),
  },
);

const identitiesArb = fc.tuple(
  paymentIdentityArb('p1'),
  paymentIdentityArb('p2'),
  paymentIdentityArb('p3'),
);
type Identity = (typeof identitiesArb extends fc.Arbitrary<infer T> ? T : never)[number];

const eventAt = (
  scheduled: ScheduledEvent,
  identities: readonly [Identity, Identity, Identity],
  at: number,
): AcquiringOrderEvent => {
  if (scheduled.type !== 'payment') return { ...scheduled, at };
  const identity = identities[scheduled.index];
  const payment: ProviderPaymentEvent = {
    ...identity,
    kind: scheduled.kind,
    confirmations: scheduled.confirmations,
    ...(scheduled.variant === 'no_tx' ? { tx_hash: '' } : {}),
    ...(scheduled.variant === 'conflict'
      ? { amount: new Decimal(identity.amount).plus('0.000001').toString() }
      : {}),
  };
  return { type: 'acquiring.payment.observed', payment, at };
};

/** Times mostly moving forward across expire_time, sometimes stepping back. */
const scheduleArb = fc.array(fc.tuple(scheduledEventArb, fc.integer({ min: -60, max: 300 })), {
  maxLength: 25,
});

describe('random event sequences', () => {
  it("step exactly as XState's own transition() (issue 24's cached actor scope)", () => {
    fc.assert(
      fc.property(inputArb, identitiesArb, scheduleArb, (input, identities, schedule) => {
        let snapshot = expectStartAsXState(acquiringOrderMachine, input);
        let clock = T0;
        for (const [timeless, gap] of schedule) {
          clock += gap;
          snapshot = expectStepAsXState(
            acquiringOrderMachine,
            snapshot,
            eventAt(timeless, identities, clock),
          ).snapshot;
        }
      }),
    );
  });

  it('(b) never leave a final state, keep status = aggregation, balance and credit once, emit coherently', () => {
    fc.assert(
      fc.property(inputArb, identitiesArb, scheduleArb, (input, identities, schedule) => {
        let { snapshot } = start(acquiringOrderMachine, input);
        let clock = T0;
        const journalIds = new Set<string>();
        const eventIds = new Set<string>();
        let anomalyUpdates = 0;
        for (const [timeless, gap] of schedule) {
          clock += gap;
          const event = eventAt(timeless, identities, clock);
          const before = snapshot;
          const refusal = orderRefusalOf(before, event);
          const step = decide(acquiringOrderMachine, before, event);
          snapshot = step.snapshot;
          const ctx = snapshot.context;

          // status is always the aggregation; final states never change
          expect(snapshot.value).toBe(orderStatusOf(ctx));
          if (isFinalOrder(before)) expect(snapshot.value).toBe(before.value);

          // an ignored event leaves no trace; an accepted one bumps the revision once
          if (step.changed) expect(ctx.revision).toBe(before.context.revision + 1);
          else expect(step.effects).toEqual([]);

          // journals balanced, each payment credited at most once, only when confirmed
          for (const journal of journalsOf(step.effects)) {
            expect(isBalanced(journal)).toBe(true);
            expect(journalIds.has(journal.journalId)).toBe(false);
            journalIds.add(journal.journalId);
            expect(ctx.payments[journal.businessId]?.chain_status).toBe('completed');
          }

          // records only move forward
          for (const [id, prev] of Object.entries(before.context.payments)) {
            const now = ctx.payments[id];
            expect(now).toBeDefined();
            if (now === undefined) continue;
            expect(now.confirmations).toBeGreaterThanOrEqual(prev.confirmations);
            expect(chainStatuses.indexOf(now.chain_status)).toBeGreaterThanOrEqual(
              chainStatuses.indexOf(prev.chain_status),
            );
          }

          // one order update per step at most, always when the status changes, telling the truth
          const updates = step.effects.flatMap((e) =>
            e.type === 'emit' && e.event.eventType === 'acquiring.order.updated' ? [e.event] : [],
          );
          expect(updates.length).toBeLessThanOrEqual(1);
          if (snapshot.value !== before.value) expect(updates).toHaveLength(1);
          for (const update of updates) {
            expect(update.data).toMatchObject({
              previous_status: before.value,
              status: snapshot.value,
              status_changed: before.value !== snapshot.value,
              anomaly_tag: ctx.anomaly_tag,
              ...orderAmountsOf(ctx),
            });
            if (update.data.anomaly_tag !== before.context.anomaly_tag) anomalyUpdates += 1;
          }
          if (before.context.anomaly_tag === 'expired_paid') {
            expect(ctx.anomaly_tag).toBe('expired_paid');
          }

          // the expiry timer is cleared exactly when the order becomes final
          const cleared = step.effects.filter((e) => e.type === 'clearTimer').length;
          expect(cleared).toBe(!isFinalOrder(before) && isFinalOrder(snapshot) ? 1 : 0);

          // event ids are unique across the order's life
          for (const e of step.effects) {
            if (e.type !== 'emit') continue;
            const id = eventIdOf(e.event);
            expect(eventIds.has(id)).toBe(false);
            eventIds.add(id);
          }

          // the refusal function agrees with the machine
          if (event.type === 'acquiring.order.close') {
            if (refusal === undefined) expect(snapshot.value).toBe('closed');
            else expect(ctx.close_reason).toBe(before.context.close_reason);
          }
          if (event.type === 'acquiring.order.select_token') {
            if (refusal === undefined) {
              expect(ctx.selected_token).toMatchObject({
                token_id: event.token_id,
                address: event.address,
              });
            } else {
              expect(ctx.selected_token).toEqual(before.context.selected_token);
            }
          }
          if (event.type === 'acquiring.payment.observed' && refusal !== undefined) {
            expect(refusal.message).toBe('invalid upstream merchant deposit payload');
            const id = event.payment.payment_id;
            expect(ctx.payments[id]).toBe(before.context.payments[id]);
          }
        }
        expect(anomalyUpdates).toBeLessThanOrEqual(1);
        // every confirmed record was credited exactly once
        const confirmed = Object.values(snapshot.context.payments)
          .filter((r) => r.chain_status === 'completed')
          .map((r) => `${r.payment_id}:pay_in`)
          .sort();
        expect([...journalIds].sort()).toEqual(confirmed);
        expect(isFinalOrderStatus(snapshot.value)).toBe(isFinalOrder(snapshot));
      }),
    );
  });
});
