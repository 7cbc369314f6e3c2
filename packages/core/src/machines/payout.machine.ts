/**
 * The payout lifecycle (interface "States and transitions / Payout", docs/spec/decisions.md §2) as a pure
 * XState v5 machine. Each state maps to exactly one (review_status, execution_status) pair; every
 * accepted event bumps `revision` and yields its effects as data (outbox events, ledger journals,
 * the execution request), which the engine commits with the snapshot in one unit of work.
 */
import * as t from 'io-ts';
import { assign, type Snapshot, type SnapshotFrom, setup } from 'xstate';
import type { AccountStatus } from '../codecs/admin.codecs.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import {
  type Journal,
  payoutHoldJournal,
  payoutReleaseJournal,
  payoutReturnJournal,
  payoutSettleJournals,
} from '../ledger/ledger.js';
import { type FeeBearer, type PayoutCharges, payoutCharges } from '../money/fees.js';
import { type Currency, Decimal, money } from '../money/money.js';
import { recordOf } from '../typed-records.js';
import { type DomainEvent, effectActions } from './effects.js';
import {
  CorruptSnapshotError,
  decodeStored,
  oneOf,
  StoredCurrency,
  storedVersionOf,
} from './snapshot-persistence.js';

/** The interface's review_status values, in lifecycle order (also the list-filter enum). */
export const reviewStatuses = [
  'draft',
  'pending_review',
  'returned',
  'rejected',
  'approved',
] as const;
export type ReviewStatus = (typeof reviewStatuses)[number];

/** The interface's execution_status values; `cancelled` is docs/spec/decisions.md §2's. */
export const executionStatuses = [
  'init',
  'processing',
  'completed',
  'failed',
  'cancelled',
] as const;
export type ExecutionStatus = (typeof executionStatuses)[number];

/** The top-level `status`: an execution_status or a review_status (docs/spec/decisions.md §2). */
export type PayoutStatus = ReviewStatus | Exclude<ExecutionStatus, 'init'>;

/** The two axes a payout is queried by; one machine state is exactly one pair. */
export interface PayoutStatusPair {
  readonly review_status: ReviewStatus;
  readonly execution_status: ExecutionStatus;
}

/**
 * Every pair a payout can be in: the interface's Combinations table plus the ones docs/spec/decisions.md §2
 * adds (draft / init, and cancelled keeping the review_status it was cancelled from).
 */
export const allowedPayoutCombinations: readonly PayoutStatusPair[] = [
  { review_status: 'pending_review', execution_status: 'init' },
  { review_status: 'approved', execution_status: 'init' },
  { review_status: 'approved', execution_status: 'processing' },
  { review_status: 'approved', execution_status: 'completed' },
  { review_status: 'approved', execution_status: 'failed' },
  { review_status: 'rejected', execution_status: 'init' },
  { review_status: 'returned', execution_status: 'init' },
  { review_status: 'draft', execution_status: 'init' },
  { review_status: 'draft', execution_status: 'cancelled' },
  { review_status: 'returned', execution_status: 'cancelled' },
  { review_status: 'pending_review', execution_status: 'cancelled' },
];

/** docs/spec/decisions.md §2: execution_status once execution has moved (or was cancelled), else review_status. */
export const payoutStatusOfPair = (pair: PayoutStatusPair): PayoutStatus =>
  pair.execution_status === 'init' ? pair.review_status : pair.execution_status;

/**
 * How many times the verification request is delivered: the webhook schedule of docs/spec/decisions.md §5
 * (at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). Still undecided after the last one, the
 * payout is returned.
 */
export const maxVerificationAttempts = 8;

/** Why execution fails when the merchant cannot cover the debit (docs/spec/decisions.md §2). */
const insufficientBalanceReason = 'insufficient balance';

/** What the verification request tells the merchant about the recipient; fields come masked. */
export interface PayoutVerificationDetails {
  readonly beneficiary_name: string;
  readonly network_code: string;
  readonly account_type: string | null;
  readonly beneficiary_account: {
    readonly network_code: string;
    readonly display_name: string | null;
    readonly fields_masked: Readonly<Record<string, string>>;
  };
}

/** JSON-serialisable: amounts are decimal strings at the currency's scale, times Unix seconds. */
export interface PayoutContext {
  readonly payout_id: string;
  readonly account_id: string;
  readonly reference: string;
  readonly client_request_id?: string;
  readonly currency: Currency;
  readonly amount: string;
  readonly fee: string;
  readonly fee_bearer: FeeBearer;
  readonly notify_url: string;
  readonly beneficiary_id: string;
  readonly beneficiary_account_id: string;
  readonly verification_enabled: boolean;
  readonly auto_approve: boolean;
  readonly verification: PayoutVerificationDetails;
  /** The highest verification attempt answered so far in the current review round. */
  readonly verification_attempts: number;
  /**
   * The review round: 1 at the first submission, +1 at each one after a return. Verification
   * requests carry it, and an answer about another round approves nothing (issue 19, M2).
   * Payouts stored before rounds existed have none until they are submitted again.
   */
  readonly verification_round?: number;
  readonly execution_fail_reason?: string;
  /** When a completed payout came back (ADR 0043), and the executor's words for why. */
  readonly returned_at?: number;
  readonly return_reason?: string;
  /** 1 at creation, +1 per accepted event: the expected version of optimistic concurrency and
   *  the revision of the events a transition emits. */
  readonly revision: number;
  readonly created_at: number;
  readonly updated_at: number;
  readonly submitted_at?: number;
}

/** What the engine creates a payout from; `submit` picks draft or pending review. */
export type PayoutInput = Omit<
  PayoutContext,
  | 'verification_attempts'
  | 'verification_round'
  | 'execution_fail_reason'
  | 'returned_at'
  | 'return_reason'
  | 'revision'
  | 'created_at'
  | 'updated_at'
  | 'submitted_at'
> & {
  readonly submit: boolean;
  /** Unix seconds. */
  readonly at: number;
};

/** The fields a `PATCH` may change, already validated (and the fee recomputed) by the engine. */
export type PayoutChanges = Partial<
  Pick<
    PayoutContext,
    | 'currency'
    | 'amount'
    | 'fee'
    | 'fee_bearer'
    | 'notify_url'
    | 'beneficiary_id'
    | 'beneficiary_account_id'
    | 'verification'
  >
>;

/**
 * What an event that may move the payout's money carries besides its own fields: the account's
 * status, read in the unit of work that decides (as `available` is). A frozen account's payout
 * takes none of them (issue 12, ADR 0033).
 */
interface AccountStatusOfEvent {
  /** The merchant account's status (`AccountRecord.status`), read in the same unit of work. */
  readonly account_status: AccountStatus;
}

/** Every event carries `at`, Unix seconds, the time the engine accepted it. */
export type PayoutEvent =
  | {
      readonly type: 'payout.submit';
      readonly at: number;
      /** The account's settings when submitted, if they changed since creation. */
      readonly verification_enabled?: boolean;
      readonly auto_approve?: boolean;
    }
  | { readonly type: 'payout.update'; readonly at: number; readonly changes: PayoutChanges }
  | { readonly type: 'payout.cancel'; readonly at: number }
  | (AccountStatusOfEvent & {
      readonly type: 'payout.verification.answered';
      readonly at: number;
      /** `null`: unparsable, no clear decision, or no answer in time. */
      readonly verified: boolean | null;
      /** 1-based delivery attempt the answer belongs to. */
      readonly attempt: number;
      /**
       * The review round of the request answered (its `verification_round`); an answer about
       * another round is refused. Absent (a request sent before rounds existed): this round.
       */
      readonly round?: number;
    })
  | (AccountStatusOfEvent & {
      readonly type: 'payout.review.approve';
      readonly at: number;
      readonly reason?: string;
    })
  | {
      readonly type: 'payout.review.return' | 'payout.review.reject';
      readonly at: number;
      readonly reason?: string;
    }
  | (AccountStatusOfEvent & {
      readonly type: 'payout.execution.processing' | 'payout.execution.completed';
      readonly at: number;
      /** The merchant's available balance in the payout currency, read in the same unit of work. */
      readonly available: string;
    })
  | (AccountStatusOfEvent & {
      readonly type: 'payout.execution.failed';
      readonly at: number;
      readonly reason: string;
    })
  | {
      /** A completed payout came back (ADR 0043): money in, so a frozen account takes it too. */
      readonly type: 'payout.execution.returned';
      readonly at: number;
      readonly reason: string;
    };

/** Dotted names, so a handler can match `payout.execution.*`. */
export type PayoutEventType = PayoutEvent['type'];

/** Amount, fee and who bears it decide what is held, sent and charged (docs/spec/decisions.md §2). */
export const payoutChargesOf = (context: PayoutContext): PayoutCharges =>
  payoutCharges(
    money(context.currency, context.amount),
    money(context.currency, context.fee),
    context.fee_bearer,
  );

const journalHead = (context: PayoutContext) => ({
  accountId: context.account_id,
  businessId: context.payout_id,
});

const pair = (
  review_status: ReviewStatus,
  execution_status: ExecutionStatus,
): PayoutStatusPair => ({ review_status, execution_status });

/** An event of this payout at its current revision, carrying `data`. */
const payoutEvent = (
  context: PayoutContext,
  eventType: string,
  data: DomainEvent['data'],
): DomainEvent => ({
  eventType,
  businessType: 'payout',
  businessId: context.payout_id,
  revision: context.revision,
  occurredAt: context.updated_at,
  data,
});

/** A result webhook of the interface's Payout events, data exactly as listed there. */
const resultEvent = (
  context: PayoutContext,
  eventType: string,
  to: PayoutStatusPair,
): DomainEvent =>
  payoutEvent(context, eventType, {
    payout_id: context.payout_id,
    reference: context.reference,
    currency: context.currency,
    amount: context.amount,
    status: payoutStatusOfPair(to),
    review_status: to.review_status,
    execution_status: to.execution_status,
    ...(to.execution_status === 'failed'
      ? { execution_fail_reason: context.execution_fail_reason ?? '' }
      : {}),
  });

/** The interface's "Verification request payload", sent without an envelope. */
const verificationRequest = (context: PayoutContext): DomainEvent =>
  payoutEvent(context, 'payout.verify.request', {
    payout_id: context.payout_id,
    type: 'payout.verification',
    account_id: context.account_id,
    reference: context.reference,
    currency: context.currency,
    amount: context.amount,
    status: 'pending_review',
    review_status: 'pending_review',
    execution_status: 'init',
    beneficiary_id: context.beneficiary_id,
    beneficiary_account_id: context.beneficiary_account_id,
    beneficiary_name: context.verification.beneficiary_name,
    network_code: context.verification.network_code,
    account_type: context.verification.account_type,
    beneficiary_account: context.verification.beneficiary_account,
    submitted_at: context.submitted_at ?? context.updated_at,
    created_at: context.created_at,
    ...(context.verification_round === undefined
      ? {}
      : { verification_round: context.verification_round }),
  });

/** Whether a verification answer is about the payout's current review round. */
const ofThisRound = (
  context: PayoutContext,
  event: { readonly round?: number | undefined },
): boolean => event.round === undefined || event.round === context.verification_round;

const sameValue = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const entriesA = Object.entries(a);
  return (
    entriesA.length === Object.keys(b).length &&
    entriesA.every(([key, value]) => sameValue(value, Reflect.get(b, key)))
  );
};

/** Whether an update would change anything: an edit that does not answers `no changes`. */
const payoutChangesAnything = (context: PayoutContext, changes: PayoutChanges): boolean =>
  Object.entries(changes).some(([key, value]) => !sameValue(Reflect.get(context, key), value));

/**
 * Whether `event` would move a frozen account's money (issue 12, ADR 0033): an approval, a
 * verification answered `true` (it approves), or any execution outcome, unless the account it
 * carries is active (an event without the status, from a host that skipped the read, is stopped
 * too: the rule fails closed). The machine takes none of them, in any state; once the account is
 * active again they go as before. Returning or rejecting, and a verification answered `false` or
 * undecided, move no money and are not stopped.
 */
const movesFrozenMoney = (event: PayoutEvent): boolean => {
  switch (event.type) {
    case 'payout.review.approve':
    case 'payout.execution.processing':
    case 'payout.execution.completed':
    case 'payout.execution.failed':
      return event.account_status !== 'active';
    case 'payout.verification.answered':
      return event.verified === true && event.account_status !== 'active';
    default:
      return false;
  }
};

const hasFunds = (context: PayoutContext, available: string): boolean =>
  new Decimal(available).greaterThanOrEqualTo(payoutChargesOf(context).debit.value);

type Ctx = { readonly context: PayoutContext };

const emitResult = (eventType: string, to: PayoutStatusPair) =>
  ({
    type: 'emit',
    params: ({ context }: Ctx) => ({ event: resultEvent(context, eventType, to) }),
  }) as const;

const emitProcessing = emitResult('payout.execution.processing', pair('approved', 'processing'));
const emitCompleted = emitResult('payout.execution.completed', pair('approved', 'completed'));
const emitFailed = emitResult('payout.execution.failed', pair('approved', 'failed'));

/** Execution reported before the balance covered the debit: it fails without holding anything. */
const failForInsufficientBalance = {
  target: 'failed',
  actions: [
    'accept',
    { type: 'recordFailure', params: { reason: insufficientBalanceReason } },
    emitProcessing,
    emitFailed,
  ],
} as const;

/** A ledger journal of the payout, built from its head and its charges. */
const postJournal = (
  journalOf: (head: ReturnType<typeof journalHead>, charges: PayoutCharges) => Journal,
) =>
  ({
    type: 'post',
    params: ({ context }: Ctx) => ({
      journal: journalOf(journalHead(context), payoutChargesOf(context)),
    }),
  }) as const;

/** Execution starts: the debit (amount + fee, or the amount) moves to held. */
const postHold = postJournal((head, charges) => payoutHoldJournal(head, charges.debit));

/** Execution failed after the hold: the debit goes back to available. */
const postRelease = postJournal((head, charges) => payoutReleaseJournal(head, charges.debit));

/** The amount sent comes back to available; the fee stays charged (ADR 0043). */
const postReturn = postJournal((head, charges) => payoutReturnJournal(head, charges.credit));

/**
 * `payout.execution.returned`: the result fields of the interface's payout events (the payout is
 * still approved / completed) and the return beside them.
 */
const emitReturned = {
  type: 'emit',
  params: ({ context }: Ctx) => {
    const event = resultEvent(context, 'payout.execution.returned', pair('approved', 'completed'));
    return {
      event: {
        ...event,
        data: {
          ...event.data,
          returned_at: context.returned_at ?? context.updated_at,
          return_reason: context.return_reason ?? '',
        },
      },
    };
  },
} as const;

const payoutSetup = setup({
  // XState reads `types` for its types only, never its value: its documented `{} as` form.
  types: {} as {
    context: PayoutContext;
    events: PayoutEvent;
    input: PayoutInput;
    /** Every resting state names its (review_status, execution_status) pair here. */
    meta: PayoutStatusPair;
  },
  actions: {
    ...effectActions,
    /** Every accepted event: one more revision, stamped with the event's time. */
    accept: assign(({ context, event }) => ({
      revision: context.revision + 1,
      updated_at: event.at,
    })),
    markSubmitted: assign(({ context, event }) => ({
      submitted_at: event.at,
      verification_attempts: 0,
      verification_round: (context.verification_round ?? 0) + 1,
      ...(event.type === 'payout.submit' && event.verification_enabled !== undefined
        ? { verification_enabled: event.verification_enabled }
        : {}),
      ...(event.type === 'payout.submit' && event.auto_approve !== undefined
        ? { auto_approve: event.auto_approve }
        : {}),
    })),
    applyChanges: assign(({ event }) => (event.type === 'payout.update' ? event.changes : {})),
    recordAttempt: assign(({ context, event }) =>
      event.type === 'payout.verification.answered'
        ? { verification_attempts: Math.max(context.verification_attempts, event.attempt) }
        : {},
    ),
    recordFailure: assign((_, params: { readonly reason: string }) => ({
      execution_fail_reason: params.reason,
    })),
    recordReturn: assign(({ event }) =>
      event.type === 'payout.execution.returned'
        ? { returned_at: event.at, return_reason: event.reason }
        : {},
    ),
  },
  guards: {
    submittedOnCreate: ({ context }) => context.submitted_at !== undefined,
    verificationEnabled: ({ context }) => context.verification_enabled,
    autoApprove: ({ context }) => context.auto_approve,
    changesAnything: ({ context, event }) =>
      event.type === 'payout.update' && payoutChangesAnything(context, event.changes),
    verified: ({ context, event }) =>
      event.type === 'payout.verification.answered' &&
      ofThisRound(context, event) &&
      event.verified === true,
    refused: ({ context, event }) =>
      event.type === 'payout.verification.answered' &&
      ofThisRound(context, event) &&
      event.verified === false,
    lastAttemptUndecided: ({ context, event }) =>
      event.type === 'payout.verification.answered' &&
      ofThisRound(context, event) &&
      event.verified === null &&
      event.attempt >= maxVerificationAttempts,
    newAttempt: ({ context, event }) =>
      event.type === 'payout.verification.answered' &&
      ofThisRound(context, event) &&
      event.attempt > context.verification_attempts,
    accountFrozen: ({ event }) => movesFrozenMoney(event),
    coversDebit: ({ context, event }) =>
      (event.type === 'payout.execution.processing' ||
        event.type === 'payout.execution.completed') &&
      hasFunds(context, event.available),
  },
});

/** Completion turns the hold into the `payout` debit and, unless zero, the `payout_fee` debit. */
const postSettlement = payoutSetup.enqueueActions(({ context, enqueue }) => {
  const charges = payoutChargesOf(context);
  for (const journal of payoutSettleJournals(journalHead(context), charges.credit, charges.fee)) {
    enqueue({ type: 'post', params: { journal } });
  }
});

/**
 * First in line on every event that moves money: while the account the event carries is frozen,
 * this transition is the one taken, and it goes nowhere and does nothing, so the machine refuses
 * the event (`can` is false, nothing changes) and no later guard is tried (ADR 0033).
 */
const frozenAccountStops = { guard: 'accountFrozen' } as const;

/** The reason the executor gave for `payout.execution.failed`, recorded on the payout. */
const recordReportedFailure = {
  type: 'recordFailure',
  params: ({
    event,
  }: {
    readonly event: Extract<PayoutEvent, { type: 'payout.execution.failed' }>;
  }) => ({
    reason: event.reason,
  }),
} as const;

/**
 * The executor reports `failed` (unless the account is frozen): the reason recorded, then what
 * the state owes first (`processing`'s event before execution started, the hold's release once
 * it had), then `payout.execution.failed`.
 */
const executionFails = <const A>(first: A) =>
  [
    frozenAccountStops,
    { target: 'failed', actions: ['accept', recordReportedFailure, first, emitFailed] },
  ] as const;

/** What a draft and a returned payout both take: they are the editable states. */
const editing = {
  'payout.submit': { target: 'pendingReview', actions: ['accept', 'markSubmitted'] },
  'payout.update': { guard: 'changesAnything', actions: ['accept', 'applyChanges'] },
} as const;

/** The payout's machine. Its id is `payout`; persisted snapshots name states by these keys. */
export const payoutMachine = payoutSetup.createMachine({
  id: 'payout',
  context: ({ input }) => {
    const { submit, at, ...fields } = input;
    return {
      ...fields,
      verification_attempts: 0,
      revision: 1,
      created_at: at,
      updated_at: at,
      ...(submit ? { submitted_at: at, verification_round: 1 } : {}),
    };
  },
  initial: 'created',
  states: {
    /** Transient: routes a new payout by `submit`; never at rest. */
    created: {
      always: [{ guard: 'submittedOnCreate', target: 'pendingReview' }, { target: 'draft' }],
    },
    draft: {
      meta: pair('draft', 'init'),
      tags: ['editable'],
      on: {
        ...editing,
        'payout.cancel': { target: 'cancelled.draft', actions: 'accept' },
      },
    },
    pendingReview: {
      initial: 'screening',
      on: {
        'payout.cancel': { target: 'cancelled.pendingReview', actions: 'accept' },
        'payout.review.approve': [frozenAccountStops, { target: 'approved', actions: 'accept' }],
        'payout.review.return': { target: 'returned', actions: 'accept' },
        'payout.review.reject': { target: 'rejected', actions: 'accept' },
      },
      states: {
        /** Transient: verification first, else the risk policy's auto approval, else an operator. */
        screening: {
          always: [
            { guard: 'verificationEnabled', target: 'awaitingVerification' },
            { guard: 'autoApprove', target: '#payout.approved' },
            { target: 'awaitingReview' },
          ],
        },
        awaitingVerification: {
          meta: pair('pending_review', 'init'),
          entry: {
            type: 'emit',
            params: ({ context }) => ({ event: verificationRequest(context) }),
          },
          on: {
            'payout.verification.answered': [
              frozenAccountStops,
              {
                guard: 'verified',
                target: '#payout.approved',
                actions: ['accept', 'recordAttempt'],
              },
              {
                guard: 'refused',
                target: '#payout.rejected',
                actions: ['accept', 'recordAttempt'],
              },
              {
                guard: 'lastAttemptUndecided',
                target: '#payout.returned',
                actions: ['accept', 'recordAttempt'],
              },
              { guard: 'newAttempt', actions: ['accept', 'recordAttempt'] },
            ],
          },
        },
        awaitingReview: { meta: pair('pending_review', 'init') },
      },
    },
    returned: {
      meta: pair('returned', 'init'),
      tags: ['editable'],
      entry: emitResult('payout.review.returned', pair('returned', 'init')),
      on: {
        ...editing,
        'payout.cancel': { target: 'cancelled.returned', actions: 'accept' },
      },
    },
    rejected: {
      type: 'final',
      meta: pair('rejected', 'init'),
      entry: emitResult('payout.review.rejected', pair('rejected', 'init')),
    },
    approved: {
      initial: 'init',
      entry: [
        emitResult('payout.review.approved', pair('approved', 'init')),
        {
          type: 'requestExecution',
          params: ({ context }) => ({ payoutId: context.payout_id }),
        },
      ],
      states: {
        init: {
          meta: pair('approved', 'init'),
          on: {
            'payout.execution.processing': [
              frozenAccountStops,
              {
                guard: 'coversDebit',
                target: 'processing',
                actions: ['accept', postHold, emitProcessing],
              },
              failForInsufficientBalance,
            ],
            // An outcome given before execution started passes through processing.
            'payout.execution.completed': [
              frozenAccountStops,
              {
                guard: 'coversDebit',
                target: 'completed',
                actions: ['accept', postHold, emitProcessing, postSettlement, emitCompleted],
              },
              failForInsufficientBalance,
            ],
            // Nothing was held yet: it passes through processing to failed.
            'payout.execution.failed': executionFails(emitProcessing),
          },
        },
        processing: {
          meta: pair('approved', 'processing'),
          on: {
            'payout.execution.completed': [
              frozenAccountStops,
              { target: 'completed', actions: ['accept', postSettlement, emitCompleted] },
            ],
            'payout.execution.failed': executionFails(postRelease),
          },
        },
        // Completed for the interface, and final for it; the money can still come back once.
        completed: {
          meta: pair('approved', 'completed'),
          on: {
            'payout.execution.returned': {
              target: 'returned',
              actions: ['accept', 'recordReturn', postReturn, emitReturned],
            },
          },
        },
        returned: { type: 'final', meta: pair('approved', 'completed') },
        failed: { type: 'final', meta: pair('approved', 'failed') },
      },
    },
    /** Cancelled keeps the review_status it was cancelled from (docs/spec/decisions.md §2). */
    cancelled: {
      initial: 'draft',
      states: {
        draft: { type: 'final', meta: pair('draft', 'cancelled') },
        returned: { type: 'final', meta: pair('returned', 'cancelled') },
        pendingReview: { type: 'final', meta: pair('pending_review', 'cancelled') },
      },
    },
  },
});

/** The machine's type, for `decide(payoutMachine, ...)` and actor options. */
export type PayoutMachine = typeof payoutMachine;
/** A payout at rest; persist it with `persistPayout`. */
export type PayoutSnapshot = SnapshotFrom<PayoutMachine>;

/** The resting states, named `parent.child`; each state's `meta` is its status pair. */
export const payoutStateKeys = [
  'draft',
  'pendingReview.awaitingVerification',
  'pendingReview.awaitingReview',
  'returned',
  'rejected',
  'approved.init',
  'approved.processing',
  'approved.completed',
  'approved.returned',
  'approved.failed',
  'cancelled.draft',
  'cancelled.returned',
  'cancelled.pendingReview',
] as const;
/** A resting state of the machine, e.g. `approved.processing`. */
export type PayoutStateKey = (typeof payoutStateKeys)[number];

const isPayoutStateKey = (key: string): key is PayoutStateKey =>
  payoutStateKeys.some((k) => k === key);

const isStatusPair = (meta: unknown): meta is PayoutStatusPair =>
  typeof meta === 'object' &&
  meta !== null &&
  'review_status' in meta &&
  'execution_status' in meta &&
  reviewStatuses.some((r) => r === meta.review_status) &&
  executionStatuses.some((e) => e === meta.execution_status);

/** The pair a resting state declares in its `meta`; a state without one is not at rest. */
const metaPairOf = (key: PayoutStateKey): PayoutStatusPair => {
  const { meta } = payoutMachine.getStateNodeById(`payout.${key}`);
  if (!isStatusPair(meta)) throw new TypeError(`payout state ${key} declares no status pair`);
  return meta;
};

/** Each resting state's (review_status, execution_status), read from the states' `meta`. */
export const payoutStatePairs: Readonly<Record<PayoutStateKey, PayoutStatusPair>> = recordOf(
  payoutStateKeys,
  metaPairOf,
);

/**
 * The payouts whose lifecycle the interface calls final, read off each state's status pair:
 * rejected, or executed to completed, failed or cancelled. `completed` is final success even
 * though its money may still come back once (`approved.returned`, ADR 0043).
 */
const finalPayoutStates: readonly PayoutStateKey[] = payoutStateKeys.filter((key) => {
  const { review_status, execution_status } = payoutStatePairs[key];
  return (
    review_status === 'rejected' ||
    execution_status === 'completed' ||
    execution_status === 'failed' ||
    execution_status === 'cancelled'
  );
});

/** The resting state of a snapshot as one `parent.child` key. */
export const payoutStateKeyOf = (snapshot: PayoutSnapshot): PayoutStateKey => {
  const value = snapshot.value;
  const key =
    typeof value === 'string'
      ? value
      : Object.entries(value)
          .map(([parent, child]) => `${parent}.${child}`)
          .join('');
  if (!isPayoutStateKey(key)) throw new TypeError(`payout snapshot not at rest: ${key}`);
  return key;
};

/** The (review_status, execution_status) a query answers: the resting state's `meta`. */
export const payoutStatePairOf = (snapshot: PayoutSnapshot): PayoutStatusPair => {
  const pair = Object.values(snapshot.getMeta()).find(isStatusPair);
  if (pair === undefined) {
    throw new TypeError(`payout snapshot not at rest: ${JSON.stringify(snapshot.value)}`);
  }
  return pair;
};

/** review_status on the wire, from the machine state alone (never stored twice). */
export const reviewStatusOf = (snapshot: PayoutSnapshot): ReviewStatus =>
  payoutStatePairOf(snapshot).review_status;

/** execution_status on the wire, from the machine state alone. */
export const executionStatusOf = (snapshot: PayoutSnapshot): ExecutionStatus =>
  payoutStatePairOf(snapshot).execution_status;

/** The top-level `status` field (docs/spec/decisions.md §2). */
export const payoutStatusOf = (snapshot: PayoutSnapshot): PayoutStatus =>
  payoutStatusOfPair(payoutStatePairOf(snapshot));

/** Final: rejected, completed, failed or cancelled; every later event is refused. */
export const isFinalPayout = (snapshot: PayoutSnapshot): boolean =>
  finalPayoutStates.includes(payoutStateKeyOf(snapshot));

/** The catalogue errors a payout answers when its machine does not accept an event. */
export type PayoutRefusalKey =
  | 'account_frozen'
  | 'payout_not_editable'
  | 'no_changes'
  | 'payout_already_approved'
  | 'payout_already_processing'
  | 'payout_rejected'
  | 'invalid_payout_status';

/** How a refusal is worded: by the state the payout is in, else `otherwise`. */
export interface PayoutRefusalWording {
  readonly otherwise: PayoutRefusalKey;
  readonly in?: Readonly<Partial<Record<PayoutStateKey, PayoutRefusalKey>>>;
}

/** An operation the state forbids, as docs/spec/decisions.md §2 words it for cancel. */
const stateConflict: PayoutRefusalWording = {
  otherwise: 'invalid_payout_status',
  in: {
    'approved.init': 'payout_already_approved',
    'approved.processing': 'payout_already_processing',
    rejected: 'payout_rejected',
  },
};

/**
 * The wording table: which catalogue error answers an event the machine does not accept
 * (`snapshot.can(event)` false), by event type and state, once the frozen-account rule has had
 * its say (`payoutRefusalKeyOf`). The machine alone decides *whether*; this table only says *how*
 * a refusal reads.
 */
const payoutRefusalWording: Readonly<Record<PayoutEventType, PayoutRefusalWording>> = {
  // In draft or returned the only way to be refused is an edit that changes nothing.
  'payout.update': {
    otherwise: 'payout_not_editable',
    in: { draft: 'no_changes', returned: 'no_changes' },
  },
  'payout.submit': stateConflict,
  'payout.cancel': stateConflict,
  'payout.review.approve': stateConflict,
  'payout.review.return': stateConflict,
  'payout.review.reject': stateConflict,
  'payout.verification.answered': { otherwise: 'invalid_payout_status' },
  'payout.execution.processing': {
    otherwise: 'invalid_payout_status',
    in: { 'approved.processing': 'payout_already_processing' },
  },
  'payout.execution.completed': { otherwise: 'invalid_payout_status' },
  'payout.execution.failed': { otherwise: 'invalid_payout_status' },
  'payout.execution.returned': { otherwise: 'invalid_payout_status' },
};

/**
 * The catalogue error `event` refused in `state` answers: `account frozen` for an event that
 * would move a frozen account's money, in every state and before any other wording (the rule
 * comes first, ADR 0033), else the wording table's by event type and state.
 */
export const payoutRefusalKeyOf = (event: PayoutEvent, state: PayoutStateKey): PayoutRefusalKey => {
  if (movesFrozenMoney(event)) return 'account_frozen';
  const wording = payoutRefusalWording[event.type];
  return wording.in?.[state] ?? wording.otherwise;
};

/**
 * Why the payout refuses `event`, in the catalogue's words; `undefined` exactly when the machine
 * accepts it (`snapshot.can(event)`: it changes state or runs actions). XState silently ignores
 * unhandled events; the engine answers with this instead.
 */
export const payoutRefusalOf = (
  snapshot: PayoutSnapshot,
  event: PayoutEvent,
): PayrailError | undefined =>
  snapshot.can(event)
    ? undefined
    : payrailError(payoutRefusalKeyOf(event, payoutStateKeyOf(snapshot)));

/** Version of the persisted snapshot format; bump when states or context change shape. */
const payoutSnapshotVersion = 1;

const PayoutStateValue = t.union([
  oneOf(['draft', 'returned', 'rejected'] as const, 'PayoutStateValue'),
  t.type({ pendingReview: oneOf(['awaitingVerification', 'awaitingReview'] as const, 'Review') }),
  t.type({
    approved: oneOf(
      ['init', 'processing', 'completed', 'returned', 'failed'] as const,
      'Execution',
    ),
  }),
  t.type({ cancelled: oneOf(['draft', 'returned', 'pendingReview'] as const, 'Cancelled') }),
]);

const StoredPayoutContext = t.intersection([
  t.type({
    payout_id: t.string,
    account_id: t.string,
    reference: t.string,
    currency: StoredCurrency,
    amount: t.string,
    fee: t.string,
    fee_bearer: t.keyof({ merchant: null, user: null }),
    notify_url: t.string,
    beneficiary_id: t.string,
    beneficiary_account_id: t.string,
    verification_enabled: t.boolean,
    auto_approve: t.boolean,
    verification: t.type({
      beneficiary_name: t.string,
      network_code: t.string,
      account_type: t.union([t.string, t.null]),
      beneficiary_account: t.type({
        network_code: t.string,
        display_name: t.union([t.string, t.null]),
        fields_masked: t.record(t.string, t.string),
      }),
    }),
    verification_attempts: t.number,
    revision: t.number,
    created_at: t.number,
    updated_at: t.number,
  }),
  t.partial({
    client_request_id: t.string,
    execution_fail_reason: t.string,
    returned_at: t.number,
    return_reason: t.string,
    submitted_at: t.number,
    verification_round: t.number,
  }),
]);

/**
 * The route a payout was priced on, kept beside the snapshot (the machine does not need it);
 * absent on payouts made before routing was recorded.
 */
export const PayoutRouting = t.type({
  route_id: t.string,
  method_id: t.number,
  channel_id: t.union([t.string, t.null]),
  channel_account_id: t.union([t.string, t.null]),
});
export type PayoutRouting = t.TypeOf<typeof PayoutRouting>;

/**
 * What a store keeps in a payout record's `snapshot` column: versioned, plain JSON. The codec
 * checks the state value and the context; the rest of XState's persisted snapshot (`status`,
 * `children`, ...) rides along for `payoutActorSnapshot`.
 */
export const PersistedPayout = t.intersection([
  t.type({
    version: t.literal(payoutSnapshotVersion),
    snapshot: t.type({ value: PayoutStateValue, context: StoredPayoutContext }),
  }),
  t.partial({ routing: PayoutRouting }),
]);
export type PersistedPayout = t.TypeOf<typeof PersistedPayout>;

/** The JSON a store keeps for a payout, with the route it was priced on when there is one. */
export const persistPayout = (
  snapshot: PayoutSnapshot,
  routing?: PayoutRouting,
): PersistedPayout => ({
  version: payoutSnapshotVersion,
  snapshot: {
    ...payoutMachine.getPersistedSnapshot(snapshot),
    value: PayoutStateValue.is(snapshot.value) ? snapshot.value : corruptValue(snapshot),
    context: snapshot.context,
  },
  ...(routing === undefined ? {} : { routing }),
});

/** What an actor resumes by besides value and context: XState's status, with output or error. */
const ActorStatus = t.union([
  t.type({ status: t.literal('active'), output: t.undefined, error: t.undefined }),
  t.type({ status: t.literal('done'), output: t.unknown, error: t.undefined }),
  t.type({ status: t.literal('error'), output: t.undefined, error: t.unknown }),
  t.type({ status: t.literal('stopped'), output: t.undefined, error: t.undefined }),
]);

const corruptValue = (snapshot: PayoutSnapshot): never => {
  throw new CorruptSnapshotError('payout', `not at rest: ${JSON.stringify(snapshot.value)}`);
};

/** The stored JSON checked: today's format version, a resting state, a whole context. */
export const decodePersistedPayout = (json: unknown): PersistedPayout => {
  const version = storedVersionOf('payout', json);
  if (version !== payoutSnapshotVersion) {
    throw new CorruptSnapshotError('payout', `unsupported payout snapshot version: ${version}`);
  }
  return decodeStored('payout', PersistedPayout, json);
};

/**
 * A snapshot back from stored JSON, ready for `decide`. Another format version, a state the
 * machine does not rest in or a context missing a field throws `CorruptSnapshotError`.
 */
export const restorePayout = (json: unknown): PayoutSnapshot => {
  const persisted = decodePersistedPayout(json);
  return payoutMachine.resolveState({
    value: persisted.snapshot.value,
    context: persisted.snapshot.context,
  });
};

/**
 * What a live actor resumes from, given the stored JSON (`resumeActor(payoutMachine, ...)`): the
 * persisted snapshot inside the versioned wrapper, since the wrapper itself makes XState throw.
 * Checked as `restorePayout` checks it.
 */
export const payoutActorSnapshot = (json: unknown): Snapshot<unknown> => {
  const persisted = decodePersistedPayout(json);
  // XState's persisted snapshot is JSON with `status` and `children` beside value and context;
  // the codec checked value and context and kept the rest as stored, and the actor's status is
  // checked here.
  const status = decodeStored('payout', ActorStatus, persisted.snapshot);
  return { ...persisted.snapshot, ...status };
};
