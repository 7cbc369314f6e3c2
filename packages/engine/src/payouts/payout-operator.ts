/**
 * What happens to a payout after the merchant let go of it: the operator's review (decisions §8),
 * the execution hand-off to the payout executor port (the `payout.execute` timer), execution
 * outcomes (the sandbox's `/admin/sandbox/payouts/{id}/execution`, or a real executor's report
 * through `engine.executions.report`) and the merchant's verification answers.
 */

import type { ExecutionReportStatus, PayoutExecutionRequest } from '@payrail/core';
import {
  decodeExecutionReport,
  decodePayoutReview,
  decodeSandboxExecution,
  type ExecutionStatus,
  executionStatusOf,
  formatAmount,
  type PayoutEvent,
  payoutChargesOf,
  payoutResourceOf,
  payoutStateKeyOf,
  payrailError,
  type SandboxExecutionOutcome,
  type StoreTransaction,
  type TimerRecord,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { retryingConflicts } from '../conflict-retry.js';
import type { PayoutView } from '../engine-answers.js';
import type { EngineDeps } from '../engine-deps.js';
import { type Outcome, refuse, unitOfWork } from '../unit-of-work.js';
import type { TimerHandler } from '../workers/timer-worker.js';
import { availableBalance, type LoadedPayout, loadPayout } from './payout.store.js';
import { applyPayoutEvent } from './payout-commands.js';

/** The execution_fail_reason of a failure reported without one. */
const defaultExecutionFailReason = 'execution failed';

const reviewEvents = {
  approve: 'payout.review.approve',
  return: 'payout.review.return',
  reject: 'payout.review.reject',
} as const;

/**
 * Events a frozen account's payout does not take (issue 12, ADR 0033): those that approve it or
 * move its money (an approval, a verification answered `true`, every execution outcome). They
 * answer `account frozen` and change nothing; once the account is active again they are taken.
 * Returning or rejecting it, and an undecided or refusing verification answer, move no money and
 * still go through.
 */
const refusedWhileFrozen = (event: PayoutEvent): boolean => {
  switch (event.type) {
    case 'payout.review.approve':
    case 'payout.execution.processing':
    case 'payout.execution.completed':
    case 'payout.execution.failed':
      return true;
    case 'payout.verification.answered':
      return event.verified === true;
    default:
      return false;
  }
};

/** Whether the payout's account is frozen, read in the unit of work that decides. */
const isAccountFrozen = async (tx: StoreTransaction, accountId: string): Promise<boolean> =>
  (await tx.accounts.get(accountId))?.status === 'frozen';

/** How long a frozen account's `payout.execute` timer waits before it looks again. */
const frozenExecutionRetrySeconds = 300;

/** An execution outcome, from the sandbox's admin call or an executor's report. */
interface ExecutionOutcome {
  readonly outcome: SandboxExecutionOutcome;
  readonly reason?: string | undefined;
}

/**
 * Whether the payout already tells what the executor reports: the same execution status, or
 * `processing` once the payout moved past it (a late or retried webhook of an earlier step).
 */
const alreadyReflects = (current: ExecutionStatus, reported: ExecutionReportStatus): boolean =>
  current === reported ||
  (reported === 'processing' && (current === 'completed' || current === 'failed'));

/**
 * The execution event of an outcome. Processing and completion carry the available balance read
 * in this unit of work: the machine holds amount + fee (or fails the payout with
 * `insufficient balance`) on that figure, and the ledger refuses an overdraft anyway.
 */
const executionEventOf = async (
  tx: StoreTransaction,
  loaded: LoadedPayout,
  report: ExecutionOutcome,
  at: number,
): Promise<PayoutEvent> => {
  if (report.outcome === 'failed') {
    return {
      type: 'payout.execution.failed',
      at,
      reason: report.reason ?? defaultExecutionFailReason,
    };
  }
  const context = loaded.snapshot.context;
  return {
    type:
      report.outcome === 'processing'
        ? 'payout.execution.processing'
        : 'payout.execution.completed',
    at,
    available: await availableBalance(tx, context.account_id, context.currency),
  };
};

export const payoutOperator = (deps: EngineDeps) => {
  /**
   * Loads any account's payout, decides `eventOf`, commits; the answer is `data.payout`. A payout
   * that `settled` says needs nothing is answered as it is, deciding and writing nothing. An
   * event `refusedWhileFrozen` on a frozen account answers `account frozen`, the account read in
   * this same unit of work.
   */
  const operate = (
    payoutId: string,
    eventOf: (tx: StoreTransaction, loaded: LoadedPayout, at: number) => Promise<PayoutEvent>,
    settled: (loaded: LoadedPayout) => boolean = () => false,
  ): Promise<Outcome<{ readonly payout: PayoutView }>> => {
    const at = deps.clock.now();
    return retryingConflicts(() =>
      unitOfWork(deps.store, async (tx) => {
        const loaded = await loadPayout(tx, payoutId);
        if (settled(loaded)) return { payout: payoutResourceOf(loaded.snapshot) };
        const event = await eventOf(tx, loaded, at);
        if (refusedWhileFrozen(event) && (await isAccountFrozen(tx, loaded.record.account_id))) {
          refuse(payrailError('account_frozen'));
        }
        const snapshot = await applyPayoutEvent(tx, deps, loaded, event, at);
        return { payout: payoutResourceOf(snapshot) };
      }),
    );
  };

  /** `POST /admin/payouts/{payout_id}/review`: approve, return or reject a payout in review. */
  const reviewPayout = async (payoutId: string, body: unknown) => {
    const review = decodePayoutReview(body);
    if (E.isLeft(review)) return review;
    const { action, reason } = review.right;
    return operate(payoutId, async (_, __, at) => ({
      type: reviewEvents[action],
      at,
      ...(reason === undefined ? {} : { reason }),
    }));
  };

  /** An execution outcome from the sandbox's admin call: every report is a new step. */
  const reportExecution = (payoutId: string, report: ExecutionOutcome) =>
    operate(payoutId, (tx, loaded, at) => executionEventOf(tx, loaded, report, at));

  /**
   * `engine.executions.report`: the executor's door, in live and in the sandbox. Idempotent by
   * payout and status (see `PayoutExecutor`): a report the payout already reflects answers it as
   * it is, decided in the same unit of work that reads it, so two deliveries of one webhook that
   * race settle once (the loser's rerun finds the payout moved).
   */
  const executionReport = async (payoutId: string, body: unknown) => {
    const report = decodeExecutionReport(body);
    if (E.isLeft(report)) return report;
    // JavaScript hosts may pass anything as the id; nothing but a string names a payout.
    if (typeof payoutId !== 'string') return E.left(payrailError('payout_not_found'));
    const { status } = report.right;
    const outcome: ExecutionOutcome =
      report.right.status === 'failed'
        ? { outcome: 'failed', reason: report.right.reason }
        : { outcome: status };
    return operate(
      payoutId,
      (tx, loaded, at) => executionEventOf(tx, loaded, outcome, at),
      (loaded) => alreadyReflects(executionStatusOf(loaded.snapshot), status),
    );
  };

  /** `POST /admin/sandbox/payouts/{payout_id}/execution`: sandbox only (else `forbidden`). */
  const sandboxExecution = async (payoutId: string, body: unknown) => {
    if (deps.settings.environment !== 'sandbox') return E.left(payrailError('forbidden'));
    const report = decodeSandboxExecution(body);
    return E.isLeft(report) ? report : reportExecution(payoutId, report.right);
  };

  /**
   * The merchant's answer to verification request `attempt` (1-based) of review `round`: `true`
   * approves, `false` rejects, `null` (unparsable, undecided, no answer in time) records the
   * attempt; an undecided last attempt returns the payout; an answer about another round is
   * refused. For the webhook dispatcher that delivers the request.
   */
  const answerVerification = (
    payoutId: string,
    verified: boolean | null,
    attempt: number,
    round?: number,
  ) =>
    operate(payoutId, async (_, __, at) => ({
      type: 'payout.verification.answered',
      at,
      verified,
      attempt,
      ...(round === undefined ? {} : { round }),
    }));

  /**
   * Whether a verification request of `round` may still be sent: the payout still awaits
   * verification in that round. A return, a cancel or an operator's decision ends the round, and
   * its request is not sent again (issue 19, M2).
   */
  const verificationRequestOpen = (payoutId: string, accountId: string, round: number) =>
    deps.store.transaction(async (tx) => {
      const record = await tx.payouts.get(payoutId, accountId);
      if (record === undefined) return false;
      const loaded = await loadPayout(tx, record.payout_id, record.account_id);
      return (
        payoutStateKeyOf(loaded.snapshot) === 'pendingReview.awaitingVerification' &&
        loaded.snapshot.context.verification_round === round
      );
    });

  /**
   * `payout.execute`: an approved payout goes to the executor port. Without one (the sandbox)
   * the timer just completes and the payout waits in approved / init for an outcome. The executor
   * runs inside the timer's unit of work; when it throws, the timer is not completed and fires
   * again after its lease (the executor is idempotent by payout_id). A frozen account's payout
   * is not handed over: the timer moves `frozenExecutionRetrySeconds` on (moving it drops the
   * claim, so it stays) and hands the payout over once the account is active again.
   */
  const executeTimer: TimerHandler = async (tx, timer: TimerRecord, now: number) => {
    const executor = deps.payoutExecutor;
    if (executor === undefined) return;
    const record = await tx.payouts.get(timer.business_id, timer.account_id);
    if (record === undefined) return;
    const loaded = await loadPayout(tx, record.payout_id, record.account_id);
    if (payoutStateKeyOf(loaded.snapshot) !== 'approved.init') return;
    if (await isAccountFrozen(tx, record.account_id)) {
      await tx.timers.set({
        ...timer,
        due_at: Math.max(now, timer.due_at) + frozenExecutionRetrySeconds,
      });
      return;
    }
    await executor.execute(await executionRequestOf(tx, loaded));
  };

  return {
    reviewPayout,
    sandboxExecution,
    executionReport,
    answerVerification,
    verificationRequestOpen,
    executeTimer,
  };
};

const executionRequestOf = async (
  tx: StoreTransaction,
  loaded: LoadedPayout,
): Promise<PayoutExecutionRequest> => {
  const context = loaded.snapshot.context;
  const account = await tx.beneficiaryAccounts.get(
    context.beneficiary_account_id,
    context.account_id,
  );
  const beneficiary = await tx.beneficiaries.get(context.beneficiary_id, context.account_id);
  return {
    payout_id: context.payout_id,
    account_id: context.account_id,
    reference: context.reference,
    currency: context.currency,
    amount: context.amount,
    send_amount: formatAmount(payoutChargesOf(context).credit),
    fee: context.fee,
    fee_bearer: context.fee_bearer,
    method_id: loaded.routing?.method_id ?? beneficiary?.method_id ?? 0,
    channel_id: loaded.routing?.channel_id ?? null,
    route_id: loaded.routing?.route_id ?? null,
    channel_account_id: loaded.routing?.channel_account_id ?? null,
    beneficiary_id: context.beneficiary_id,
    beneficiary_account_id: context.beneficiary_account_id,
    beneficiary_name: context.verification.beneficiary_name,
    beneficiary_account: {
      network_code: account?.network_code ?? context.verification.network_code,
      account_type: account?.account_type ?? context.verification.account_type,
      fields: account?.fields ?? {},
    },
  };
};
