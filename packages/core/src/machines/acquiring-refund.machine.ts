/**
 * A refund of an acquiring order's pay-in (issue 21, ADR 0044): tokens the order received, sent
 * back to an address the merchant (or an operator resolving the order) names.
 *
 * ```
 * requested ──(review not required)──────────────▶ approved ──▶ processing ──▶ completed
 *     │ approve (operator, account active)           │  └────────────┴──────▶ failed
 *     └──▶ approved            reject ──▶ rejected    └── completed / failed at once
 * ```
 *
 * The order decides how much may be refunded (`acquiring.order.refund`, concurrent refunds
 * included: they meet on the order's version); the refund is created with that amount and holds
 * it at once (`refund_hold`: available to held), so the merchant cannot spend what it promised
 * back. Approval hands it to the executor (the `refund.execute` timer); the executor's report
 * settles the hold (`refund`, held to the pay-in clearing) or releases it (`refund_release`), as
 * does an operator's rejection. Every status sends `acquiring.refund.<status>`.
 *
 * Every event carries `at`; the machine reads no clock. Final states are XState-final: a refund
 * that ended takes no more events.
 */
import { assign, type SnapshotFrom, setup } from 'xstate';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import {
  type Journal,
  refundHoldJournal,
  refundJournal,
  refundReleaseJournal,
} from '../ledger/ledger.js';
import { type CryptoCurrency, money } from '../money/money.js';
import type { ChainNetwork, PayTokenId } from '../money/pay-tokens.js';
import { type DomainEvent, type EffectParams, effectActions } from './effects.js';

/** What a refund gives back: all of what the token paid, a part, or the part paid over. */
export const refundTypes = ['full', 'partial', 'overpaid'] as const;
export type RefundType = (typeof refundTypes)[number];

/** A refund's status, on the wire as spelt here; the last three are final. */
export const refundStatuses = [
  'requested',
  'approved',
  'processing',
  'completed',
  'failed',
  'rejected',
] as const;
export type RefundStatus = (typeof refundStatuses)[number];

/** Everything a refund is, as JSON: the persisted snapshot's context. */
export interface AcquiringRefundContext {
  readonly refund_id: string;
  readonly order_id: string;
  readonly account_id: string;
  readonly out_trade_no: string;
  /** The order's webhook: refund events go where the order's go. */
  readonly notify_webhook_id: string;
  readonly refund_type: RefundType;
  readonly token_id: PayTokenId;
  readonly network: ChainNetwork;
  readonly currency: CryptoCurrency;
  /** Tokens, 6 decimals, as every paid amount. */
  readonly amount: string;
  /** Where the tokens go, on `network`. */
  readonly address: string;
  readonly reason: string | null;
  /** The merchant's idempotency key: the same request again answers this refund. */
  readonly client_refund_id: string | null;
  /** Whether an operator must approve it first (the account's `auto_approve` off). */
  readonly review_required: boolean;
  /** Who asked for it: `api_key:<key_id>` or `operator:<operator_id>`. */
  readonly requested_by: string;
  /** The operator who approved or rejected it; null when no review was needed or made yet. */
  readonly reviewed_by: string | null;
  readonly review_reason: string | null;
  readonly fail_reason: string | null;
  readonly completed_at: number | null;
  /** Accepted transitions so far: with the refund id it makes event ids deterministic. */
  readonly revision: number;
  readonly created_at: number;
  readonly updated_at: number;
}

/** A new refund as the engine creates it, once the order granted its amount. */
export type AcquiringRefundInput = Omit<
  AcquiringRefundContext,
  | 'reviewed_by'
  | 'review_reason'
  | 'fail_reason'
  | 'completed_at'
  | 'revision'
  | 'created_at'
  | 'updated_at'
> & {
  /** Creation time, Unix seconds. */
  readonly at: number;
};

/** What can happen to a refund: an operator's review, the executor's reports. */
export type AcquiringRefundEvent =
  | {
      readonly type: 'refund.review.approve';
      readonly operator_id: string;
      readonly reason?: string;
      /** The account's status, read in the unit of work: a frozen account's refund waits. */
      readonly account_status: string;
      readonly at: number;
    }
  | {
      readonly type: 'refund.review.reject';
      readonly operator_id: string;
      readonly reason?: string;
      readonly at: number;
    }
  | { readonly type: 'refund.execution.processing'; readonly at: number }
  | { readonly type: 'refund.execution.completed'; readonly at: number }
  | { readonly type: 'refund.execution.failed'; readonly reason: string; readonly at: number };

/** `data.refund`: what refund answers and `acquiring.refund.*` webhooks carry. */
export interface AcquiringRefundView
  extends Omit<AcquiringRefundContext, 'revision' | 'notify_webhook_id'> {
  readonly status: RefundStatus;
}

const contextOf = ({ at, ...input }: AcquiringRefundInput): AcquiringRefundContext => ({
  ...input,
  reviewed_by: null,
  review_reason: null,
  fail_reason: null,
  completed_at: null,
  revision: 0,
  created_at: at,
  updated_at: at,
});

/** Whether `operatorId` asked for the refund: an operator resolving an order (ADR 0044). */
const isRequester = (context: AcquiringRefundContext, operatorId: string): boolean =>
  context.requested_by === `operator:${operatorId}`;

const journalHead = (context: AcquiringRefundContext) => ({
  accountId: context.account_id,
  businessId: context.refund_id,
});

interface Ctx {
  readonly context: AcquiringRefundContext;
}

/** A ledger journal of the refund's amount. */
const postJournal = (
  journalOf: (head: ReturnType<typeof journalHead>, amount: ReturnType<typeof money>) => Journal,
) =>
  ({
    type: 'post',
    params: ({ context }: Ctx) => ({
      journal: journalOf(journalHead(context), money(context.currency, context.amount)),
    }),
  }) as const;

/** `data.refund` of a context in `status`, field by field in the answer's order. */
export const refundViewOf = (
  c: AcquiringRefundContext,
  status: RefundStatus,
): AcquiringRefundView => ({
  refund_id: c.refund_id,
  order_id: c.order_id,
  account_id: c.account_id,
  out_trade_no: c.out_trade_no,
  status,
  refund_type: c.refund_type,
  token_id: c.token_id,
  network: c.network,
  currency: c.currency,
  amount: c.amount,
  address: c.address,
  reason: c.reason,
  client_refund_id: c.client_refund_id,
  review_required: c.review_required,
  requested_by: c.requested_by,
  reviewed_by: c.reviewed_by,
  review_reason: c.review_reason,
  fail_reason: c.fail_reason,
  completed_at: c.completed_at,
  created_at: c.created_at,
  updated_at: c.updated_at,
});

/** `acquiring.refund.<status>`, with the refund as it stands. */
const emitStatus = (status: RefundStatus) =>
  ({
    type: 'emit',
    params: ({ context }: Ctx): { readonly event: DomainEvent } => ({
      event: {
        eventType: `acquiring.refund.${status}`,
        businessType: 'acquiring_refund',
        businessId: context.refund_id,
        revision: context.revision,
        occurredAt: context.updated_at,
        data: { ...refundViewOf(context, status) },
      },
    }),
  }) as const;

const refundSetup = setup({
  // XState reads `types` for its types only, never its value: its documented `{} as` form.
  types: {} as {
    context: AcquiringRefundContext;
    events: AcquiringRefundEvent;
    input: AcquiringRefundInput;
  },
  actions: {
    ...effectActions,
    /** Every accepted event: one more revision, stamped with the event's time. */
    accept: assign(({ context, event }) => ({
      revision: context.revision + 1,
      updated_at: event.at,
    })),
    recordReview: assign(({ event }) =>
      event.type === 'refund.review.approve' || event.type === 'refund.review.reject'
        ? { reviewed_by: event.operator_id, review_reason: event.reason ?? null }
        : {},
    ),
    recordFailure: assign(({ event }) =>
      event.type === 'refund.execution.failed' ? { fail_reason: event.reason } : {},
    ),
    recordCompletion: assign(({ event }) => ({ completed_at: event.at })),
  },
  guards: {
    /** The account wants no review (`auto_approve` on): the refund is approved as it is made. */
    autoApproved: ({ context }) => !context.review_required,
    /** Approvable: the account is active, and the approver is not who asked (four eyes). */
    approvable: ({ context, event }) =>
      event.type === 'refund.review.approve' &&
      event.account_status === 'active' &&
      !isRequester(context, event.operator_id),
  },
});

/** The approved refund goes to the executor: the `refund.execute` timer, due at once. */
const handOver = {
  type: 'setTimer',
  params: ({ context }: Ctx): EffectParams<'setTimer'> => ({
    timer: 'refund.execute',
    businessId: context.refund_id,
    dueAt: context.updated_at,
  }),
} as const;

const toCompleted = { target: 'completed', actions: ['accept', 'recordCompletion'] } as const;
const toFailed = { target: 'failed', actions: ['accept', 'recordFailure'] } as const;

/** The refund machine: states are the refund statuses (wire names). */
export const acquiringRefundMachine = refundSetup.createMachine({
  id: 'acquiringRefund',
  context: ({ input }) => contextOf(input),
  entry: postJournal(refundHoldJournal),
  initial: 'requested',
  states: {
    requested: {
      entry: emitStatus('requested'),
      always: { guard: 'autoApproved', target: 'approved' },
      on: {
        'refund.review.approve': {
          guard: 'approvable',
          target: 'approved',
          actions: ['accept', 'recordReview'],
        },
        'refund.review.reject': { target: 'rejected', actions: ['accept', 'recordReview'] },
      },
    },
    approved: {
      entry: [emitStatus('approved'), handOver],
      on: {
        'refund.execution.processing': { target: 'processing', actions: 'accept' },
        'refund.execution.completed': toCompleted,
        'refund.execution.failed': toFailed,
      },
    },
    processing: {
      entry: emitStatus('processing'),
      on: {
        'refund.execution.completed': toCompleted,
        'refund.execution.failed': toFailed,
      },
    },
    completed: {
      type: 'final',
      entry: [postJournal(refundJournal), emitStatus('completed')],
    },
    failed: {
      type: 'final',
      entry: [postJournal(refundReleaseJournal), emitStatus('failed')],
    },
    rejected: {
      type: 'final',
      entry: [postJournal(refundReleaseJournal), emitStatus('rejected')],
    },
  },
});

/** A snapshot of the refund machine; persist it with `persistRefund`. */
export type AcquiringRefundSnapshot = SnapshotFrom<typeof acquiringRefundMachine>;

/** The refund's status: its state (state names are the wire values). */
export const refundStatusOf = (snapshot: AcquiringRefundSnapshot): RefundStatus => {
  const status = refundStatuses.find((s) => s === snapshot.value);
  if (status === undefined) {
    throw new TypeError(`refund snapshot not at rest: ${JSON.stringify(snapshot.value)}`);
  }
  return status;
};

/** Whether the refund gave its hold back (rejected or failed): the order may refund it again. */
export const isReleasedRefund = (snapshot: AcquiringRefundSnapshot): boolean => {
  const status = refundStatusOf(snapshot);
  return status === 'failed' || status === 'rejected';
};

/** `data.refund` of a snapshot. */
export const acquiringRefundView = (snapshot: AcquiringRefundSnapshot): AcquiringRefundView =>
  refundViewOf(snapshot.context, refundStatusOf(snapshot));

/**
 * The catalogue error for an event the refund does not take: a review of a refund that is not
 * waiting for one, or an execution report of one that is not with the executor (a final refund
 * included), `invalid refund status`; an approval while the account is not active `account
 * frozen`, and by the operator who asked for it `refund must be approved by an operator other
 * than its requester` (four eyes, as batches have it).
 * `processing` again while processing is not refused: the machine ignores it.
 */
export const refundRefusalOf = (
  snapshot: AcquiringRefundSnapshot,
  event: AcquiringRefundEvent,
): PayrailError | undefined => {
  const status = refundStatusOf(snapshot);
  switch (event.type) {
    case 'refund.review.approve':
      if (status !== 'requested') return payrailError('invalid_refund_status');
      if (event.account_status !== 'active') return payrailError('account_frozen');
      return isRequester(snapshot.context, event.operator_id)
        ? payrailError('refund_approved_by_requester')
        : undefined;
    case 'refund.review.reject':
      return status === 'requested' ? undefined : payrailError('invalid_refund_status');
    case 'refund.execution.processing':
    case 'refund.execution.completed':
    case 'refund.execution.failed':
      return status === 'approved' || status === 'processing'
        ? undefined
        : payrailError('invalid_refund_status');
  }
};
