/**
 * The payout executor port (decisions §2 "Execution"): whoever really moves the money (a bank, a
 * wallet provider) receives each approved payout through it. Types only; adapters implement it.
 */
import type { Currency, FeeBearer } from '@payrail/core';

/** Everything an executor needs to send one payout, without reading our store. */
export interface PayoutExecutionRequest {
  readonly payout_id: string;
  readonly account_id: string;
  readonly reference: string;
  readonly currency: Currency;
  /** What the payout was created for, at the currency's scale. */
  readonly amount: string;
  /** What the recipient receives: the amount, less the fee when the user bears it. */
  readonly send_amount: string;
  readonly fee: string;
  readonly fee_bearer: FeeBearer;
  readonly method_id: number;
  readonly channel_id: string | null;
  /** `null` for a crypto batch's payouts, whose route was the batch's. */
  readonly route_id: string | null;
  readonly channel_account_id: string | null;
  readonly beneficiary_id: string;
  readonly beneficiary_account_id: string;
  readonly beneficiary_name: string;
  /** The receiving account in full (never masked): the executor must be able to pay it. */
  readonly beneficiary_account: {
    readonly network_code: string;
    readonly account_type: string | null;
    readonly fields: Readonly<Record<string, string>>;
  };
}

export interface PayoutExecutor {
  /**
   * Accepts one payout for execution. It runs inside the unit of work that completes the
   * `payout.execute` timer, so it must only record or enqueue the instruction and return fast;
   * when it throws (or the commit fails after it returned) the timer stays and fires again after
   * its lease, so it must be idempotent by `payout_id`. Outcomes come back later as execution
   * events (processing, completed, failed), never as this call's result.
   */
  execute(request: PayoutExecutionRequest): Promise<void>;
}
