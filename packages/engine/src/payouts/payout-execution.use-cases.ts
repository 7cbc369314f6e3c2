/**
 * A payout's execution (docs/spec/decisions.md §8): the `payout.execute` timer hands an approved payout to the
 * executor port; its outcomes come back through `engine.executions.report` (a real executor's, or
 * the sandbox's webhook) or the sandbox's `/admin/sandbox/payouts/{id}/execution`.
 */
import {
  decodeExecutionReport,
  decodeSandboxExecution,
  type ExecutionReportStatus,
  type ExecutionStatus,
  executionStatusOf,
  formatAmount,
  type PayoutEvent,
  type PayoutExecutionRequest,
  payoutChargesOf,
  payoutStateKeyOf,
  payrailError,
  type SandboxExecutionOutcome,
  type StoreTransaction,
  type TimerRecord,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { handle, unguarded } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import type { TimerHandler } from '../workers/timer.worker.js';
import {
  accountStatusOf,
  availableBalance,
  isAccountFrozen,
  type LoadedPayout,
  payoutRepository,
} from './payout.persistence.js';
import { payoutAnswer } from './payout.views.js';

/** The execution_fail_reason of a failure reported without one. */
const defaultExecutionFailReason = 'execution failed';

/** The return_reason of a return reported without one (the sandbox's act may omit it). */
const defaultReturnReason = 'payout returned';

/** How long a frozen account's `payout.execute` timer waits before it looks again. */
const frozenExecutionRetrySeconds = 300;

/** An execution outcome, from the sandbox's admin call or an executor's report. */
interface ExecutionOutcome {
  readonly outcome: SandboxExecutionOutcome;
  readonly reason?: string | undefined;
}

/**
 * Whether the payout already tells what the executor reports: the same execution status, or
 * `processing` once the payout moved past it (a late or retried webhook of an earlier step), or
 * a return it already took (a returned payout is still `completed` for the interface).
 */
const alreadyReflects = (loaded: LoadedPayout, reported: ExecutionReportStatus): boolean => {
  if (reported === 'returned') return payoutStateKeyOf(loaded.snapshot) === 'approved.returned';
  const current: ExecutionStatus = executionStatusOf(loaded.snapshot);
  return (
    current === reported ||
    (reported === 'processing' && (current === 'completed' || current === 'failed'))
  );
};

/**
 * The execution event of an outcome. Every outcome that moves money out carries the account's
 * status read in this unit of work: a frozen account's payout takes none (ADR 0033); a return
 * brings money in and carries none. Processing and completion also
 * carry the available balance read here: the machine holds amount + fee (or fails the payout
 * with `insufficient balance`) on that figure, and the ledger refuses an overdraft anyway.
 */
const executionEventOf = async (
  tx: StoreTransaction,
  loaded: LoadedPayout,
  report: ExecutionOutcome,
  at: number,
): Promise<PayoutEvent> => {
  const context = loaded.snapshot.context;
  // Money in: a return is taken whatever the account's status (ADR 0043).
  if (report.outcome === 'returned') {
    return { type: 'payout.execution.returned', at, reason: report.reason ?? defaultReturnReason };
  }
  if (report.outcome === 'failed') {
    return {
      type: 'payout.execution.failed',
      at,
      reason: report.reason ?? defaultExecutionFailReason,
      account_status: await accountStatusOf(tx, context.account_id),
    };
  }
  const available = await availableBalance(tx, context.account_id, context.currency);
  return {
    type:
      report.outcome === 'processing'
        ? 'payout.execution.processing'
        : 'payout.execution.completed',
    at,
    available,
    account_status: await accountStatusOf(tx, context.account_id),
  };
};

/**
 * Decides the execution event of `outcome` on any merchant's payout, through the command handler;
 * a payout that already reflects the report (`settled`) is answered as it is, writing nothing.
 */
const reportExecution = async (
  deps: EngineDeps,
  payoutId: string,
  outcome: ExecutionOutcome,
  settled: (loaded: LoadedPayout) => boolean = () => false,
) =>
  payoutAnswer(
    await handle(deps, payoutRepository, { id: payoutId, guard: unguarded }, async (step) =>
      settled(step.loaded)
        ? undefined
        : { event: await executionEventOf(step.tx, step.loaded, outcome, step.at) },
    ),
  );

/**
 * `engine.executions.report`: the executor's door, in live and in the sandbox. Idempotent by
 * payout and status (see `PayoutExecutor`): a report the payout already reflects answers it as
 * it is, decided in the same unit of work that reads it, so two deliveries of one webhook that
 * race settle once (the loser's rerun finds the payout moved).
 */
export const executionReport = async (deps: EngineDeps, payoutId: string, body: unknown) => {
  const report = decodeExecutionReport(body);
  if (E.isLeft(report)) return report;
  // JavaScript hosts may pass anything as the id; nothing but a string names a payout.
  if (typeof payoutId !== 'string') return E.left(payrailError('payout_not_found'));
  const { status } = report.right;
  const outcome: ExecutionOutcome =
    report.right.status === 'failed' || report.right.status === 'returned'
      ? { outcome: report.right.status, reason: report.right.reason }
      : { outcome: status };
  return reportExecution(deps, payoutId, outcome, (loaded) => alreadyReflects(loaded, status));
};

/** `POST /admin/sandbox/payouts/{payout_id}/execution`: sandbox only (else `forbidden`). */
export const sandboxExecution = async (deps: EngineDeps, payoutId: string, body: unknown) => {
  if (deps.settings.environment !== 'sandbox') return E.left(payrailError('forbidden'));
  const report = decodeSandboxExecution(body);
  return E.isLeft(report) ? report : reportExecution(deps, payoutId, report.right);
};

/**
 * `payout.execute`: an approved payout goes to the executor port. Without one (the sandbox)
 * the timer just completes and the payout waits in approved / init for an outcome. The executor
 * runs inside the timer's unit of work; when it throws, the timer is not completed and fires
 * again after its lease (the executor is idempotent by payout_id). A frozen account's payout
 * is not handed over: the timer moves `frozenExecutionRetrySeconds` on (moving it drops the
 * claim, so it stays) and hands the payout over once the account is active again.
 */
export const executeTimer =
  (deps: EngineDeps): TimerHandler =>
  async (tx, timer: TimerRecord, now: number) => {
    const executor = deps.payoutExecutor;
    if (executor === undefined) return;
    const record = await tx.payouts.get(timer.business_id, timer.account_id);
    if (record === undefined) return;
    const loaded = await payoutRepository.load(tx, record.payout_id, record.account_id);
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
