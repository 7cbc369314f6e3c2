/**
 * Refunds of acquiring orders (issue 21, ADR 0044): the merchant asks, the order grants (or
 * refuses) the amount, the refund machine holds it, an operator reviews it when the account
 * wants reviews, the executor sends it (`refund.execute`, `executions.reportRefund`, or the
 * sandbox's act), and a refund that was rejected or failed is released from its order in the
 * same unit of work. Every change goes through the command handler.
 */
import {
  type AcquiringRefundCreateRequest,
  type AcquiringRefundEvent,
  type AcquiringRefundInput,
  type AcquiringRefundSnapshot,
  acquiringOrderMachine,
  acquiringRefundView,
  type CryptoCurrency,
  type cryptoCurrencies,
  decodeAcquiringRefundCreate,
  decodeExecutionReport,
  decodeRefundReview,
  decodeSandboxExecution,
  type ExecutionReport,
  type IdGenerator,
  isReleasedRefund,
  type OrderRefundEvent,
  type PayrailError,
  payrailError,
  payTokens,
  type RefundExecutionRequest,
  type RefundType,
  refundStatusOf,
  type StoreTransaction,
  type TimerRecord,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { requirePermission } from '../access/access-control.policy.js';
import { callerAccount, merchantRead, type ReaderAccess } from '../access/caller-account.store.js';
import {
  commitDecision,
  create,
  handle,
  type Outcome,
  orRefuse,
  refuse,
  unguarded,
} from '../command/command.handler.js';
import type { Caller, Operator } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { accountStatusOf, isAccountFrozen } from '../payouts/payout.persistence.js';
import type { TimerHandler } from '../workers/timer.worker.js';
import { type LoadedOrder, orderRepository } from './order.persistence.js';
import {
  type LoadedRefund,
  refundOfClientId,
  refundRepository,
  refundsOfOrder,
} from './refund.persistence.js';

/** What a refund request asks of the order, whoever asks. */
export interface RefundRequest {
  readonly refund_type: RefundType;
  readonly amount?: string | undefined;
  readonly token_id?: OrderRefundEvent['token_id'];
  readonly address: string;
  readonly reason?: string | undefined;
  readonly client_refund_id?: string | undefined;
}

/** Who asks, and whether an operator must approve it first. */
interface Requester {
  /** `api_key:<key_id>` or `operator:<operator_id>`. */
  readonly requested_by: string;
  readonly review_required: boolean;
}

/** The fail_reason of a failure the sandbox's act reports without one. */
const defaultFailReason = 'refund failed';

/** How long a frozen account's `refund.execute` timer waits before it looks again. */
const frozenExecutionRetrySeconds = 300;

const availableByCurrency = async (
  tx: StoreTransaction,
  accountId: string,
): Promise<Readonly<Record<CryptoCurrency, string>>> => {
  const balances = await tx.ledger.balances(accountId);
  const availableOf = (currency: CryptoCurrency) =>
    balances.find((b) => b.currency === currency)?.available ?? '0';
  return { USDT: availableOf('USDT'), USDC: availableOf('USDC') } satisfies Record<
    (typeof cryptoCurrencies)[number],
    string
  >;
};

/**
 * The order's decision on a refund request, and the refund it creates before the order is saved:
 * the order grants the amount (`acquiring.order.refund`, refused with the catalogue's message),
 * and the refund starts with that amount, holding it. `created` receives the new refund.
 */
export const refundDecision = async (
  tx: StoreTransaction,
  ids: IdGenerator,
  order: LoadedOrder,
  request: RefundRequest,
  requester: Requester,
  at: number,
  created: (refund: LoadedRefund) => void,
) => {
  const c = order.snapshot.context;
  const event: OrderRefundEvent = {
    type: 'acquiring.order.refund',
    refund_id: ids.next('rfd'),
    refund_type: request.refund_type,
    ...(request.amount === undefined ? {} : { amount: request.amount }),
    ...(request.token_id === undefined ? {} : { token_id: request.token_id }),
    address: request.address,
    available: await availableByCurrency(tx, c.account_id),
    at,
  };
  const beforeSave = async (next: LoadedOrder['snapshot']) => {
    const grant = next.context.refunds[event.refund_id];
    if (grant === undefined) return;
    const token = payTokens[grant.token_id];
    const input: AcquiringRefundInput = {
      refund_id: event.refund_id,
      order_id: c.order_id,
      account_id: c.account_id,
      out_trade_no: c.out_trade_no,
      notify_webhook_id: c.notify_webhook_id,
      refund_type: request.refund_type,
      token_id: token.id,
      network: token.network,
      currency: token.currency,
      amount: grant.amount,
      address: request.address,
      reason: request.reason ?? null,
      client_refund_id: request.client_refund_id ?? null,
      ...requester,
      at,
    };
    const parent = { machine: acquiringOrderMachine, id: c.order_id, snapshot: next };
    created(await create(tx, ids, refundRepository, { input, extra: undefined, at, parent }));
  };
  return { event, beforeSave };
};

const refundAnswerOf = (refund: LoadedRefund | undefined) =>
  refund === undefined
    ? E.left(payrailError('internal_error'))
    : E.right({ refund: acquiringRefundView(refund.snapshot) });

/**
 * The refund a repeated request made before (the same `client_refund_id`), if the request is the
 * same; `client_refund_id already used` for another request under that id.
 */
const repeatOf = async (
  tx: StoreTransaction,
  caller: Caller,
  orderId: string,
  request: AcquiringRefundCreateRequest,
): Promise<LoadedRefund | undefined> => {
  if (request.client_refund_id === undefined) return undefined;
  const original = await refundOfClientId(tx, caller.account_id, request.client_refund_id);
  if (original === undefined) return undefined;
  const c = original.snapshot.context;
  const same =
    c.order_id === orderId &&
    c.refund_type === request.refund_type &&
    c.address === request.address &&
    (request.token_id === undefined || c.token_id === request.token_id) &&
    (request.amount === undefined || c.amount === request.amount);
  return same ? original : refuse(payrailError('client_refund_id_already_used'));
};

/**
 * `POST /payment/acquiring/orders/{order_id}/refunds`: the merchant refunds a pay-in. A request
 * repeated under its `client_refund_id` answers the refund it made, and makes no other.
 */
export const createRefund = async (
  deps: EngineDeps,
  caller: Caller,
  orderId: string,
  body: unknown,
) => {
  const guard = async (tx: StoreTransaction) => {
    requirePermission(caller, 'payment.acquiring.refund');
    const account = await callerAccount(tx, caller, 'refused', 'acquiring');
    const request = orRefuse(decodeAcquiringRefundCreate(body));
    return { account, request, repeat: await repeatOf(tx, caller, orderId, request) };
  };
  let refund: LoadedRefund | undefined;
  const refunded = await handle(
    deps,
    orderRepository,
    { id: orderId, scope: caller.account_id, guard },
    ({ tx, loaded, at, guarded: { account, request, repeat } }) => {
      if (repeat !== undefined) {
        refund = repeat;
        return undefined;
      }
      const requester = {
        requested_by: `api_key:${caller.key_id}`,
        review_required: !account.auto_approve,
      };
      return refundDecision(tx, deps.ids, loaded, request, requester, at, (made) => {
        refund = made;
      });
    },
  );
  return E.isLeft(refunded) ? refunded : refundAnswerOf(refund);
};

/** An acquiring read: `payment.acquiring.read`, on an account with acquiring (frozen may read). */
const readable: ReaderAccess = {
  permissions: ['payment.acquiring.read'],
  frozen: 'allowed',
  product: 'acquiring',
};

/** `GET /payment/acquiring/refunds/{refund_id}`; another merchant's is `refund not found`. */
export const getRefund = (deps: EngineDeps, caller: Caller, refundId: string) =>
  merchantRead(deps.store, caller, readable, async (tx) => {
    const refund = await refundRepository.load(tx, refundId, caller.account_id);
    return { refund: acquiringRefundView(refund.snapshot) };
  });

/** `GET /payment/acquiring/orders/{order_id}/refunds`: every refund of the order, oldest first. */
export const orderRefunds = (deps: EngineDeps, caller: Caller, orderId: string) =>
  merchantRead(deps.store, caller, readable, async (tx) => {
    await orderRepository.load(tx, orderId, caller.account_id);
    const items = (await refundsOfOrder(tx, caller.account_id, orderId)).map((refund) =>
      acquiringRefundView(refund.snapshot),
    );
    return { items, total: items.length, limit: items.length, offset: 0 };
  });

/**
 * Work a refund decision brings before the refund is saved: a refund that was rejected or failed
 * gives its amount back to the order (`acquiring.order.refund_released`), in the same unit of work.
 */
const releasedFromOrder =
  (tx: StoreTransaction, ids: IdGenerator, at: number) =>
  async (next: AcquiringRefundSnapshot): Promise<void> => {
    if (!isReleasedRefund(next)) return;
    const { order_id, account_id, refund_id } = next.context;
    const order = await orderRepository.load(tx, order_id, account_id);
    const released = { type: 'acquiring.order.refund_released' as const, refund_id, at };
    await commitDecision(tx, ids, orderRepository, order, released, at);
  };

/** One event on any merchant's refund, through the command handler; `settled`: answered as is. */
const decideRefund = async (
  deps: EngineDeps,
  refundId: string,
  eventOf: (
    tx: StoreTransaction,
    loaded: LoadedRefund,
    at: number,
  ) => Promise<AcquiringRefundEvent>,
  settled: (loaded: LoadedRefund) => boolean = () => false,
): Promise<Outcome<{ readonly refund: ReturnType<typeof acquiringRefundView> }>> => {
  const decided = await handle(
    deps,
    refundRepository,
    { id: refundId, guard: unguarded },
    async ({ tx, loaded, at }) =>
      settled(loaded)
        ? undefined
        : {
            event: await eventOf(tx, loaded, at),
            beforeSave: releasedFromOrder(tx, deps.ids, at),
          },
  );
  return E.map((refund: LoadedRefund) => ({ refund: acquiringRefundView(refund.snapshot) }))(
    decided,
  );
};

/** `POST /admin/acquiring/refunds/{refund_id}/review`: an operator approves or rejects. */
export const reviewRefund = async (
  deps: EngineDeps,
  operator: Operator,
  refundId: string,
  body: unknown,
) => {
  const review = decodeRefundReview(body);
  if (E.isLeft(review)) return review;
  const { action, reason } = review.right;
  const because = reason === undefined ? {} : { reason };
  return decideRefund(deps, refundId, async (tx, loaded, at) =>
    action === 'approve'
      ? {
          type: 'refund.review.approve',
          operator_id: operator.operator_id,
          account_status: await accountStatusOf(tx, loaded.snapshot.context.account_id),
          at,
          ...because,
        }
      : { type: 'refund.review.reject', operator_id: operator.operator_id, at, ...because },
  );
};

/** What the executor can say about a refund: a payout's outcomes but a return. */
type RefundOutcome =
  | { readonly status: 'processing' | 'completed' }
  | { readonly status: 'failed'; readonly reason: string };

const refundEventOf = (outcome: RefundOutcome, at: number): AcquiringRefundEvent =>
  outcome.status === 'failed'
    ? { type: 'refund.execution.failed', reason: outcome.reason, at }
    : { type: `refund.execution.${outcome.status}`, at };

/** A report's outcome for a refund; a return (`returned`) is none: a refund does not come back. */
const refundOutcomeOf = (report: ExecutionReport): E.Either<PayrailError, RefundOutcome> => {
  if (report.status === 'processing' || report.status === 'completed') {
    return E.right({ status: report.status });
  }
  return report.status === 'failed' && 'reason' in report
    ? E.right({ status: 'failed', reason: report.reason })
    : E.left(payrailError('invalid_refund_status'));
};

/** Whether the refund already tells what the executor reports (a retried or late report). */
const alreadyReflects = (loaded: LoadedRefund, reported: RefundOutcome['status']): boolean => {
  const current = refundStatusOf(loaded.snapshot);
  return (
    current === reported ||
    (reported === 'processing' && (current === 'completed' || current === 'failed'))
  );
};

/**
 * `engine.executions.reportRefund`: the executor's door for refunds, on the terms of payouts'
 * (`executions.report`): idempotent by refund and status, `refund not found` for an unknown id,
 * a malformed report the catalogue's messages, and `returned` `invalid refund status`.
 */
export const refundExecutionReport = async (deps: EngineDeps, refundId: string, body: unknown) => {
  const report = decodeExecutionReport(body);
  if (E.isLeft(report)) return report;
  if (typeof refundId !== 'string') return E.left(payrailError('refund_not_found'));
  const outcome = refundOutcomeOf(report.right);
  if (E.isLeft(outcome)) return outcome;
  return decideRefund(
    deps,
    refundId,
    async (_, __, at) => refundEventOf(outcome.right, at),
    (loaded) => alreadyReflects(loaded, outcome.right.status),
  );
};

/**
 * `POST /admin/sandbox/acquiring/refunds/{refund_id}/execution`: sandbox only (else `forbidden`);
 * idempotent like the executor's door.
 */
export const sandboxRefundExecution = async (deps: EngineDeps, refundId: string, body: unknown) => {
  if (deps.settings.environment !== 'sandbox') return E.left(payrailError('forbidden'));
  const report = decodeSandboxExecution(body);
  if (E.isLeft(report)) return report;
  const { outcome: status, reason } = report.right;
  const outcome = refundOutcomeOf(
    status === 'failed' || status === 'returned'
      ? { status, reason: reason ?? defaultFailReason }
      : { status },
  );
  if (E.isLeft(outcome)) return outcome;
  return decideRefund(
    deps,
    refundId,
    async (_, __, at) => refundEventOf(outcome.right, at),
    (loaded) => alreadyReflects(loaded, outcome.right.status),
  );
};

const refundExecutionRequestOf = ({
  context: c,
}: AcquiringRefundSnapshot): RefundExecutionRequest => ({
  refund_id: c.refund_id,
  order_id: c.order_id,
  account_id: c.account_id,
  token_id: c.token_id,
  network: c.network,
  currency: c.currency,
  amount: c.amount,
  address: c.address,
});

/**
 * `refund.execute`: an approved refund goes to the executor's `executeRefund`; in the sandbox,
 * without one, it waits approved for the sandbox's act. In live without one, and while the
 * account is frozen (as its payouts do), the timer moves on and looks again: the refund is never
 * dropped, and an executor given `executeRefund` later sends it.
 */
export const refundExecuteTimer =
  (deps: EngineDeps): TimerHandler =>
  async (tx, timer: TimerRecord, now: number) => {
    const execute = deps.payoutExecutor?.executeRefund?.bind(deps.payoutExecutor);
    // The sandbox's act reports refunds; in live, only an executor can send one.
    if (execute === undefined && deps.settings.environment === 'sandbox') return;
    const record = await tx.acquiringRefunds.get(timer.business_id, timer.account_id);
    if (record === undefined) return;
    const refund = await refundRepository.load(tx, record.refund_id, record.account_id);
    if (refundStatusOf(refund.snapshot) !== 'approved') return;
    if (execute === undefined || (await isAccountFrozen(tx, record.account_id))) {
      await tx.timers.set({
        ...timer,
        due_at: Math.max(now, timer.due_at) + frozenExecutionRetrySeconds,
      });
      return;
    }
    await execute(refundExecutionRequestOf(refund.snapshot));
  };
