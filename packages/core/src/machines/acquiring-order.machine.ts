/**
 * The acquiring (pay-in) order. Its status is never set by hand: it is a pure function of the
 * order's payment records, close and clock (`aggregateOrderStatus`, docs/spec/decisions.md §4). One pure step,
 * `orderStepOf`, decides what an event does (the next context and the effects to commit), once
 * per event: the machine-level handler takes every event the step accepts and applies it. When
 * the step is applied it raises `order.status.<status>`, the derived status, and the chart's
 * transitions on those events name, per status, where an order can go (docs/spec/decisions.md §4's
 * aggregation); each is guarded only by "the context derives that status", so the state is the
 * derived status, always (a status event for the state the order is in has no edge: nothing).
 *
 * Every event carries `at`; an event at or after expire_time settles the expiry first (as if
 * the timer had fired), so a payment learnt after expiry is `late` whether or not the timer ran.
 */

import * as E from 'fp-ts/lib/Either.js';
import { enqueueActions, type SnapshotFrom, setup } from 'xstate';
import type { OrderView } from '../codecs/acquiring-answers.codecs.js';
import { decodeWith } from '../codecs/codec-toolkit.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { type Journal, payInJournal } from '../ledger/ledger.js';
import { type CryptoCurrency, Decimal, type FiatCurrency, money } from '../money/money.js';
import {
  type ChainNetwork,
  isPayTokenId,
  type PayTokenId,
  payTokens,
} from '../money/pay-tokens.js';
import type { RefundType } from './acquiring-refund.machine.js';
import { type DomainEvent, effectActions } from './effects.js';
import { refundedAmountOf, refundGrantOf, resolutionRefusalOf } from './order-refunds.js';
import {
  aggregateOrderStatus,
  type FinalOrderStatus,
  finalOrderStatuses,
  formatPayAmount,
  isFinalOrderStatus,
  joinObservations,
  mergePayment,
  type OrderAmounts,
  type OrderStatus,
  observationOf,
  orderAmounts,
  type PaymentRecord,
  type PaymentStatus,
  ProviderPaymentEvent,
  recordOfTransfer,
  sameTransfer,
} from './order-status.js';

/** The token a payer chose (checkout) or the merchant fixed (direct), with its address. */
export interface SelectedPayToken {
  readonly network: ChainNetwork;
  readonly currency: CryptoCurrency;
  readonly token_id: PayTokenId;
  readonly address: string;
}

/** `expired_paid` once money moved for an order already expired or closed (docs/spec/decisions.md §4). */
export type AnomalyTag = '' | 'expired_paid';

/**
 * A refund the order granted that still counts against what it can refund: requested, on its
 * way or sent. A refund that was rejected or failed is released from the order (ADR 0044).
 */
export interface OrderRefund {
  readonly token_id: PayTokenId;
  /** Tokens, 6 decimals. */
  readonly amount: string;
}

/** How an operator settled an exception (ADR 0044): accepted as paid, or refused and refunded. */
export const resolutionActions = ['accept', 'refuse'] as const;
export type ResolutionAction = (typeof resolutionActions)[number];

export interface OrderResolution {
  readonly action: ResolutionAction;
  readonly reason: string;
  /** The operator who resolved it. */
  readonly operator_id: string;
  readonly resolved_at: number;
}

/** Everything the order is, as JSON: the persisted snapshot's context. */
export interface AcquiringOrderContext {
  readonly order_id: string;
  readonly platform_order_no: string;
  readonly out_trade_no: string;
  readonly account_id: string;
  readonly order_currency: FiatCurrency;
  /** USD, 2 decimals. */
  readonly order_amount: string;
  /** Tokens (1 USD = 1 token), 6 decimals, like every paid amount. */
  readonly pay_amount: string;
  readonly allowed_pay_currencies: readonly PayTokenId[];
  /** Tokens, 6 decimals. */
  readonly underpay_tolerance: string;
  /** Unix seconds. */
  readonly expire_time: number;
  readonly notify_webhook_id: string;
  readonly checkout_type: string;
  readonly mode: 'checkout' | 'direct';
  readonly selected_token: SelectedPayToken | null;
  /** The create request's optional presentation fields, kept for the hosted checkout page. */
  readonly redirect_url?: string;
  readonly logo_url?: string;
  readonly remark?: string;
  /** Once completed, the hosted page goes to redirect_url by itself (ADR 0021). */
  readonly redirect_automatically: boolean;
  readonly payments: Readonly<Record<string, PaymentRecord>>;
  readonly anomaly_tag: AnomalyTag;
  /** The close reason; null while the order is not closed. */
  readonly close_reason: string | null;
  /** The refunds that count, by refund id (ADR 0044). */
  readonly refunds: Readonly<Record<string, OrderRefund>>;
  /** An operator's resolution of the order's exception; null while there is none. */
  readonly resolution: OrderResolution | null;
  /** Incremented on each accepted event; with the order id it makes event ids deterministic. */
  readonly revision: number;
  readonly created_at: number;
  /** The time of the last accepted event, and the clock of the aggregation. */
  readonly updated_at: number;
}

/** A new order as the engine creates it (codecs validated it), with the creation time. */
export type AcquiringOrderInput = Omit<
  AcquiringOrderContext,
  | 'selected_token'
  | 'payments'
  | 'anomaly_tag'
  | 'close_reason'
  | 'refunds'
  | 'resolution'
  | 'revision'
  | 'created_at'
  | 'updated_at'
  | 'redirect_automatically'
> & {
  readonly selected_token?: SelectedPayToken | null;
  /** Absent: false, as for an order created before the field existed. */
  readonly redirect_automatically?: boolean;
  /** Creation time, Unix seconds. */
  readonly at: number;
};

/**
 * What can happen to an order, each stamped with the engine's clock (`at`, Unix seconds): a
 * normalised provider event, the expiry timer, the merchant's close, the payer's token choice.
 */
export type AcquiringOrderEvent =
  | {
      readonly type: 'acquiring.payment.observed';
      readonly payment: ProviderPaymentEvent;
      readonly at: number;
    }
  | { readonly type: 'acquiring.order.expire'; readonly at: number }
  | { readonly type: 'acquiring.order.close'; readonly reason: string; readonly at: number }
  | {
      readonly type: 'acquiring.order.select_token';
      readonly token_id: string;
      readonly address: string;
      readonly at: number;
    }
  | OrderRefundEvent
  | {
      /** A refund the order granted was rejected or failed: it no longer counts. */
      readonly type: 'acquiring.order.refund_released';
      readonly refund_id: string;
      readonly at: number;
    }
  | {
      readonly type: 'acquiring.order.resolve';
      readonly action: ResolutionAction;
      readonly reason: string;
      readonly operator_id: string;
      readonly at: number;
    };

/** A merchant's (or a refusing operator's) refund request, for the order to grant or refuse. */
export interface OrderRefundEvent {
  readonly type: 'acquiring.order.refund';
  readonly refund_id: string;
  readonly refund_type: RefundType;
  /** A partial refund's amount (tokens); the order computes the others. */
  readonly amount?: string;
  /** Omitted: the one token the order was paid in. */
  readonly token_id?: PayTokenId;
  readonly address: string;
  /** The account's available balance per token currency, read in the unit of work. */
  readonly available: Readonly<Record<CryptoCurrency, string>>;
  readonly at: number;
}

/** `data` of `acquiring.order.updated`: every field of the interface's table. */
export interface AcquiringOrderUpdatedData extends OrderAmounts {
  /** `transaction_<kind>` for provider events, `order_expired`, `order_closed`. */
  readonly provider_event: string;
  readonly anomaly_tag: AnomalyTag;
  readonly order_id: string;
  readonly platform_order_no: string;
  readonly out_trade_no: string;
  readonly previous_status: OrderStatus;
  readonly status: OrderStatus;
  readonly status_changed: boolean;
  readonly amount_changed: boolean;
  readonly order_currency: string;
  readonly pay_amount: string;
  readonly underpay_tolerance: string;
  readonly expire_time: number;
  readonly updated_at: number;
  /** Once an operator resolved the order (ADR 0044). */
  readonly resolution?: OrderResolution;
}

/** `data` of `acquiring.payment.updated` (docs/spec/decisions.md §4). */
export interface AcquiringPaymentUpdatedData {
  readonly order_id: string;
  readonly out_trade_no: string;
  readonly payment_id: string;
  readonly token_id: string;
  readonly address: string;
  readonly tx_hash: string;
  readonly amount: string;
  /** `pending` for a record seen for the first time. */
  readonly previous_status: PaymentStatus;
  readonly status: PaymentStatus;
  readonly confirmations: number;
  readonly updated_at: number;
}

/** An operator's resolution decides the status for good; else docs/spec/decisions.md §4's aggregation. */
const aggregateAt = (context: AcquiringOrderContext, now: number): OrderStatus => {
  if (context.resolution?.action === 'accept') return 'completed';
  if (context.resolution?.action === 'refuse') return 'closed';
  return aggregated(context, now);
};

const aggregated = (context: AcquiringOrderContext, now: number): OrderStatus =>
  aggregateOrderStatus({
    payments: Object.values(context.payments),
    payAmount: context.pay_amount,
    underpayTolerance: context.underpay_tolerance,
    expireTime: context.expire_time,
    now,
    closed: context.close_reason !== null,
  });

/** The order status the context aggregates to, by default at the time of its last event. */
export const orderStatusOf = (
  context: AcquiringOrderContext,
  now = context.updated_at,
): OrderStatus => aggregateAt(context, now);

/**
 * The records an order counts as paid: those confirmed in time, and once an operator accepted the
 * order as paid (ADR 0044), its late ones confirmed on chain too.
 */
const countedPayments = (context: AcquiringOrderContext): readonly PaymentRecord[] => {
  const payments = Object.values(context.payments);
  if (context.resolution?.action !== 'accept') return payments;
  return payments.map((p) =>
    p.status === 'late' && p.chain_status === 'completed' ? { ...p, status: 'completed' } : p,
  );
};

/** paid/remaining/overpaid of the order, from the records it counts as paid. */
export const orderAmountsOf = (context: AcquiringOrderContext): OrderAmounts =>
  orderAmounts({ payments: countedPayments(context), payAmount: context.pay_amount });

/** The clock never runs backwards for an order: a late-stamped event is taken at the last time. */
const clockOf = (context: AcquiringOrderContext, at: number): number =>
  Math.max(context.updated_at, at);

type StepEffect =
  | { readonly type: 'emit'; readonly event: DomainEvent }
  | { readonly type: 'post'; readonly journal: Journal };

/** What one event does to an order: the next context and the effects to commit with it. */
export interface OrderStep {
  readonly context: AcquiringOrderContext;
  readonly effects: readonly StepEffect[];
}

/**
 * `provider_event` of an order update: what caused it. A payment's normalised kind as
 * `transaction_<kind>` (the interface's sample `transaction_confirmed`), else `order_closed`, or
 * `order_expired` when the update is the expiry (the timer, or any later event settling it).
 */
const providerEventOf = (event: AcquiringOrderEvent, closed: boolean): string => {
  if (event.type === 'acquiring.payment.observed') return `transaction_${event.payment.kind}`;
  if (event.type === 'acquiring.order.resolve') return 'order_resolved';
  return closed ? 'order_closed' : 'order_expired';
};

const selectionOf = (
  context: AcquiringOrderContext,
  event: Extract<AcquiringOrderEvent, { type: 'acquiring.order.select_token' }>,
): SelectedPayToken | undefined => {
  if (!isPayTokenId(event.token_id) || !context.allowed_pay_currencies.includes(event.token_id)) {
    return undefined;
  }
  if (event.address === '') return undefined;
  const token = payTokens[event.token_id];
  return {
    network: token.network,
    currency: token.currency,
    token_id: token.id,
    address: event.address,
  };
};

const sameSelection = (a: SelectedPayToken | null, b: SelectedPayToken): boolean =>
  a !== null && a.token_id === b.token_id && a.address === b.address;

interface ContentChange {
  readonly context: AcquiringOrderContext;
  readonly payment?: { readonly before: PaymentRecord | undefined; readonly after: PaymentRecord };
}

/** What the event itself changes, given the order's status at the event's time. */
const contentChangeOf = (
  context: AcquiringOrderContext,
  event: AcquiringOrderEvent,
  statusNow: OrderStatus,
  now: number,
): ContentChange => {
  switch (event.type) {
    case 'acquiring.payment.observed': {
      if (!ProviderPaymentEvent.is(event.payment)) return { context };
      const before = context.payments[event.payment.payment_id];
      const late = context.close_reason !== null || now >= context.expire_time;
      const after = mergePayment(before, event.payment, {
        order_id: context.order_id,
        at: now,
        late,
      });
      if (after === before) return { context };
      // A transfer another record holds adds nothing under a second id (the refusal answers it).
      if (recordOfTransfer(context.payments, after, after.payment_id) !== undefined) {
        return { context };
      }
      // money moving after expiry or close; not a record already confirmed in time gaining depth
      const anomalous = late && after.status !== 'completed';
      return {
        context: {
          ...context,
          payments: { ...context.payments, [after.payment_id]: after },
          anomaly_tag: anomalous ? 'expired_paid' : context.anomaly_tag,
        },
        payment: { before, after },
      };
    }
    case 'acquiring.order.expire':
      return { context };
    case 'acquiring.order.close':
      return isFinalOrderStatus(statusNow)
        ? { context }
        : { context: { ...context, close_reason: event.reason } };
    case 'acquiring.order.select_token': {
      const selected = selectionOf(context, event);
      if (isFinalOrderStatus(statusNow) || selected === undefined) return { context };
      if (sameSelection(context.selected_token, selected)) return { context };
      return { context: { ...context, selected_token: selected } };
    }
    case 'acquiring.order.refund': {
      const grant = refundGrantOf(context, statusNow, event);
      if (E.isLeft(grant) || context.refunds[event.refund_id] !== undefined) return { context };
      return {
        context: { ...context, refunds: { ...context.refunds, [event.refund_id]: grant.right } },
      };
    }
    case 'acquiring.order.refund_released': {
      if (context.refunds[event.refund_id] === undefined) return { context };
      const { [event.refund_id]: _, ...refunds } = context.refunds;
      return { context: { ...context, refunds } };
    }
    case 'acquiring.order.resolve': {
      if (resolutionRefusalOf(context, statusNow, event.action) !== undefined) return { context };
      const { action, reason, operator_id } = event;
      return {
        context: { ...context, resolution: { action, reason, operator_id, resolved_at: now } },
      };
    }
  }
};

const paymentUpdated = (
  context: AcquiringOrderContext,
  before: PaymentRecord | undefined,
  after: PaymentRecord,
): AcquiringPaymentUpdatedData => ({
  order_id: context.order_id,
  out_trade_no: context.out_trade_no,
  payment_id: after.payment_id,
  token_id: after.token_id,
  address: after.address,
  tx_hash: after.tx_hash,
  amount: after.amount,
  previous_status: before?.status ?? 'pending',
  status: after.status,
  confirmations: after.confirmations,
  updated_at: after.updated_at,
});

/**
 * One accepted event: the next context and the effects it commits, or undefined when the event
 * changes nothing (a duplicate, an early timer, a refused command). Pure: the machine's guards
 * and its action call it with the same context and event and get the same answer.
 */
const orderStepOf = (
  context: AcquiringOrderContext,
  event: AcquiringOrderEvent,
): OrderStep | undefined => {
  const now = clockOf(context, event.at);
  const previousStatus = orderStatusOf(context);
  const statusNow = orderStatusOf(context, now);
  const change = contentChangeOf(context, event, statusNow, now);
  if (change.context === context && statusNow === previousStatus) return undefined;

  const next: AcquiringOrderContext = {
    ...change.context,
    revision: context.revision + 1,
    updated_at: now,
  };
  const status = orderStatusOf(next);
  const amountsBefore = orderAmountsOf(context);
  const amounts = orderAmountsOf(next);
  const amountChanged = amounts.paid_amount_total !== amountsBefore.paid_amount_total;
  const emitOf = (eventType: string, data: Readonly<Record<string, unknown>>): StepEffect => ({
    type: 'emit',
    event: {
      eventType,
      businessType: 'acquiring',
      businessId: context.order_id,
      revision: next.revision,
      occurredAt: now,
      data,
    },
  });

  const effects: StepEffect[] = [];
  const payment = change.payment;
  if (payment !== undefined) {
    const { before, after } = payment;
    if (after.chain_status === 'completed' && before?.chain_status !== 'completed') {
      effects.push({
        type: 'post',
        journal: payInJournal(
          { accountId: context.account_id, businessId: after.payment_id },
          money(after.currency, after.amount),
        ),
      });
    }
    effects.push(
      emitOf('acquiring.payment.updated', { ...paymentUpdated(context, before, after) }),
    );
  }
  const resolved = next.resolution !== context.resolution;
  if (
    status !== previousStatus ||
    amountChanged ||
    next.anomaly_tag !== context.anomaly_tag ||
    resolved
  ) {
    const data: AcquiringOrderUpdatedData = {
      provider_event: providerEventOf(event, status === 'closed'),
      anomaly_tag: next.anomaly_tag,
      order_id: next.order_id,
      platform_order_no: next.platform_order_no,
      out_trade_no: next.out_trade_no,
      previous_status: previousStatus,
      status,
      status_changed: status !== previousStatus,
      amount_changed: amountChanged,
      order_currency: next.order_currency,
      pay_amount: next.pay_amount,
      ...amounts,
      underpay_tolerance: next.underpay_tolerance,
      expire_time: next.expire_time,
      updated_at: next.updated_at,
      ...(next.resolution === null ? {} : { resolution: next.resolution }),
    };
    effects.push(emitOf('acquiring.order.updated', { ...data }));
  }
  return { context: next, effects };
};

const contextOf = ({
  at,
  selected_token,
  redirect_automatically,
  ...order
}: AcquiringOrderInput): AcquiringOrderContext => ({
  ...order,
  redirect_automatically: redirect_automatically ?? false,
  order_amount: new Decimal(order.order_amount).toFixed(2),
  pay_amount: formatPayAmount(order.pay_amount),
  underpay_tolerance: formatPayAmount(order.underpay_tolerance),
  selected_token: selected_token ?? null,
  payments: {},
  anomaly_tag: '',
  close_reason: null,
  refunds: {},
  resolution: null,
  revision: 0,
  created_at: at,
  updated_at: at,
});

/** Where one event may take an order from a non-final status (the rest stays put). */
interface OrderMoves {
  readonly 'acquiring.payment.observed': readonly OrderStatus[];
  /** Expiry, close and token choice: they settle the expiry, and close closes. */
  readonly 'acquiring.order.*': readonly OrderStatus[];
}

/**
 * The statuses each event can lead to, by docs/spec/decisions.md §4's aggregation: a payment moves an order
 * between the in-flight statuses or completes it, and one learnt at or after expire_time settles
 * the expiry first; a confirmed amount never goes back (so partial_paid never returns to pending
 * or expires without payment); only a close closes.
 */
const orderMoves: Readonly<
  Record<'pending' | 'processing' | 'confirming' | 'partial_paid', OrderMoves>
> = {
  pending: {
    'acquiring.payment.observed': [
      'processing',
      'confirming',
      'partial_paid',
      'completed',
      'expired',
    ],
    'acquiring.order.*': ['closed', 'expired'],
  },
  processing: {
    'acquiring.payment.observed': [
      'pending',
      'confirming',
      'partial_paid',
      'completed',
      'underpaid',
      'expired',
    ],
    'acquiring.order.*': ['closed', 'underpaid', 'expired'],
  },
  confirming: {
    'acquiring.payment.observed': [
      'pending',
      'processing',
      'partial_paid',
      'completed',
      'underpaid',
      'expired',
    ],
    'acquiring.order.*': ['closed', 'underpaid', 'expired'],
  },
  partial_paid: {
    'acquiring.payment.observed': ['processing', 'confirming', 'completed', 'underpaid'],
    'acquiring.order.*': ['closed', 'underpaid'],
  },
};

/** The event the order raises when its derived status becomes `status`. */
export interface OrderStatusEvent {
  readonly type: `order.status.${OrderStatus}`;
}

const statusEventOf = (status: OrderStatus): OrderStatusEvent => ({
  type: `order.status.${status}`,
});

/** A move to `status`, taken when the context derives it (an event the step raised). */
const moveTo = (status: OrderStatus) =>
  [
    statusEventOf(status).type,
    { guard: { type: 'derives', params: { status } }, target: status },
  ] as const;

/**
 * A final status: it never moves by payments or time, only by an operator's resolution (an
 * underpaid or expired order accepted as paid, or refused and closed; a closed one paid late
 * accepted, ADR 0044).
 */
const finalState = (resolvesTo: readonly OrderStatus[]) =>
  ({
    tags: ['final'],
    entry: { type: 'clearExpiryTimer' },
    on: Object.fromEntries(resolvesTo.map(moveTo)),
  }) as const;

/** The machine-level handler: an event that changes the order without moving its status. */
const acceptEvent = {
  guard: 'accepts',
  actions: 'applyEvent',
} as const;

/** A non-final status's moves: every status of its row of `orderMoves`, once. */
const movesFrom = (from: keyof typeof orderMoves) => ({
  on: Object.fromEntries(
    [
      ...new Set([
        ...orderMoves[from]['acquiring.payment.observed'],
        ...orderMoves[from]['acquiring.order.*'],
      ]),
    ].map(moveTo),
  ),
});

/**
 * The step of the event being decided. The guard that accepts an event and the action that
 * applies it see the same context and event objects, so the step is computed once per event.
 */
let lastStep:
  | {
      readonly context: AcquiringOrderContext;
      readonly event: AcquiringOrderEvent;
      readonly step: OrderStep | undefined;
    }
  | undefined;

const stepOf = (
  context: AcquiringOrderContext,
  event: AcquiringOrderEvent,
): OrderStep | undefined => {
  if (lastStep?.context !== context || lastStep.event !== event) {
    lastStep = { context, event, step: orderStepOf(context, event) };
  }
  return lastStep.step;
};

const isOrderEvent = (
  event: AcquiringOrderEvent | OrderStatusEvent,
): event is AcquiringOrderEvent => !event.type.startsWith('order.status.');

/**
 * The acquiring order machine. States are the order statuses (wire names); the four final ones
 * are tagged `final` rather than XState `type: 'final'`, because a final order still records late
 * payments (docs/spec/decisions.md §4) and a done XState machine would take no more events.
 */
export const acquiringOrderMachine = setup({
  // XState reads `types` for its types only, never its value: its documented `{} as` form.
  types: {} as {
    context: AcquiringOrderContext;
    events: AcquiringOrderEvent | OrderStatusEvent;
    input: AcquiringOrderInput;
  },
  actions: {
    ...effectActions,
    clearExpiryTimer: enqueueActions(({ context, enqueue }) => {
      enqueue({
        type: 'clearTimer',
        params: { timer: 'order.expiry', businessId: context.order_id },
      });
    }),
    applyEvent: enqueueActions(({ context, event, enqueue }) => {
      const step = isOrderEvent(event) ? stepOf(context, event) : undefined;
      if (step === undefined) return;
      enqueue.assign(() => step.context);
      for (const effect of step.effects) {
        if (effect.type === 'emit') enqueue({ type: 'emit', params: { event: effect.event } });
        else enqueue({ type: 'post', params: { journal: effect.journal } });
      }
      // Raised after every step, not only when the status moved: a state that drifted from the
      // derived status (a snapshot stored by a faulty release) is moved back by its next event.
      enqueue.raise(statusEventOf(orderStatusOf(step.context)));
    }),
  },
  guards: {
    /** The event changes the order. */
    accepts: ({ context, event }) => isOrderEvent(event) && stepOf(context, event) !== undefined,
    /** The order's context derives `status`: a status event moves it there, and nothing else. */
    derives: ({ context }, params: { readonly status: OrderStatus }) =>
      orderStatusOf(context) === params.status,
  },
}).createMachine({
  id: 'acquiringOrder',
  context: ({ input }) => contextOf(input),
  entry: {
    type: 'setTimer',
    params: ({ context }) => ({
      timer: 'order.expiry',
      businessId: context.order_id,
      dueAt: context.expire_time,
    }),
  },
  initial: 'pending',
  on: {
    'acquiring.payment.observed': acceptEvent,
    'acquiring.order.expire': acceptEvent,
    'acquiring.order.close': acceptEvent,
    'acquiring.order.select_token': acceptEvent,
    'acquiring.order.refund': acceptEvent,
    'acquiring.order.refund_released': acceptEvent,
    'acquiring.order.resolve': acceptEvent,
  },
  states: {
    pending: movesFrom('pending'),
    processing: movesFrom('processing'),
    confirming: movesFrom('confirming'),
    partial_paid: movesFrom('partial_paid'),
    completed: finalState([]),
    underpaid: finalState(['completed', 'closed']),
    expired: finalState(['completed', 'closed']),
    closed: finalState(['completed']),
  },
});

/** A snapshot of the order machine; persist it with `getPersistedSnapshot`. */
export type AcquiringOrderSnapshot = SnapshotFrom<typeof acquiringOrderMachine>;

/** Whether the order is in one of the four states it never leaves. */
export const isFinalOrder = (snapshot: AcquiringOrderSnapshot): boolean =>
  finalOrderStatuses.some((status) => status === snapshot.value);

/**
 * The catalogue error for an operation the order refuses, judged at the event's time (an order
 * past expire_time is final even if its timer has not run yet). Close: on completed
 * `completed order cannot be closed`, on another final state `order already final`.
 * select_token: on a final order `order already final`; a token outside allowed_pay_currencies
 * `network/currency not allowed by order`; no address `address required`. A payment observation
 * is refused when malformed (the codec's message), when it contradicts the recorded transfer, or
 * when it names under another payment id a transfer another record holds (`recordOfTransfer`),
 * both `invalid upstream merchant deposit payload`; the expiry timer is never refused. A
 * duplicate or an early timer is not refused either: the machine simply ignores it.
 */
export const orderRefusalOf = (
  snapshot: AcquiringOrderSnapshot,
  event: AcquiringOrderEvent,
): PayrailError | undefined => {
  const context = snapshot.context;
  const status = orderStatusOf(context, clockOf(context, event.at));
  const final = isFinalOrderStatus(status) ? (status satisfies FinalOrderStatus) : undefined;
  switch (event.type) {
    case 'acquiring.order.close':
      if (final === 'completed') return payrailError('completed_order_cannot_be_closed');
      return final === undefined ? undefined : payrailError('order_already_final');
    case 'acquiring.order.select_token':
      if (final !== undefined) return payrailError('order_already_final');
      if (
        !isPayTokenId(event.token_id) ||
        !context.allowed_pay_currencies.includes(event.token_id)
      ) {
        return payrailError('network_currency_not_allowed');
      }
      return event.address === ''
        ? payrailError('field_required', { field: 'address' })
        : undefined;
    case 'acquiring.payment.observed': {
      const decoded = decodeWith(ProviderPaymentEvent)(event.payment);
      if (E.isLeft(decoded)) return decoded.left;
      const paymentId = event.payment.payment_id;
      const record = context.payments[paymentId];
      const observed = observationOf(event.payment);
      if (record !== undefined && !sameTransfer(record, observed)) {
        return payrailError('invalid_upstream_deposit_payload');
      }
      // The transfer as the record would name it after the event (a tx_hash may be learnt now).
      const transfer = record === undefined ? observed : joinObservations(record, observed);
      return recordOfTransfer(context.payments, transfer, paymentId) === undefined
        ? undefined
        : payrailError('invalid_upstream_deposit_payload');
    }
    case 'acquiring.order.expire':
    case 'acquiring.order.refund_released':
      return undefined;
    case 'acquiring.order.refund': {
      const grant = refundGrantOf(context, status, event);
      return E.isLeft(grant) ? grant.left : undefined;
    }
    case 'acquiring.order.resolve':
      return resolutionRefusalOf(context, status, event.action);
  }
};

/** The hosted checkout page of an order: `<checkoutBaseUrl>/<order_id>`. */
const checkoutUrlOf = (checkoutBaseUrl: string, orderId: string): string =>
  `${checkoutBaseUrl.replace(/\/+$/, '')}/${encodeURIComponent(orderId)}`;

/** Builds `data.order` (the answer codec's `OrderView`); the status is the snapshot's state. */
export const acquiringOrderView = (
  snapshot: AcquiringOrderSnapshot,
  checkoutBaseUrl: string,
): OrderView => {
  const c = snapshot.context;
  return {
    order_id: c.order_id,
    platform_order_no: c.platform_order_no,
    out_trade_no: c.out_trade_no,
    status: snapshot.value,
    checkout_type: c.checkout_type,
    order_currency: c.order_currency,
    order_amount: c.order_amount,
    allowed_pay_currencies: [...c.allowed_pay_currencies],
    pay_amount: c.pay_amount,
    ...orderAmountsOf(c),
    underpay_tolerance: c.underpay_tolerance,
    checkout_url: checkoutUrlOf(checkoutBaseUrl, c.order_id),
    notify_webhook_id: c.notify_webhook_id,
    // A context persisted before the field existed has none: false.
    redirect_automatically: c.redirect_automatically === true,
    refunded_amount: refundedAmountOf(c),
    resolution: c.resolution,
    expire_time: c.expire_time,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
};

/** A payment record as answered by the payments list: docs/spec/decisions.md §4 fields, nothing internal. */
export type PaymentRecordView = Omit<PaymentRecord, 'chain_status'>;

/** Strips the internal `chain_status` off a record for the merchant. */
export const paymentRecordView = ({ chain_status: _, ...view }: PaymentRecord): PaymentRecordView =>
  view;

/** The records of an order, oldest first (by created_at, then payment_id). */
export const paymentRecordViews = (
  snapshot: AcquiringOrderSnapshot,
): readonly PaymentRecordView[] =>
  Object.values(snapshot.context.payments)
    .sort((a, b) => a.created_at - b.created_at || (a.payment_id < b.payment_id ? -1 : 1))
    .map(paymentRecordView);
