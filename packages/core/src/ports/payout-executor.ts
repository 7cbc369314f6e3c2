/**
 * The payout executor port (docs/spec/decisions.md §2 "Execution"): whoever really moves the money (a bank, a
 * wallet provider) receives each approved payout through it. Types only; adapters implement it.
 */
import type { FeeBearer } from '../money/fees.js';
import type { CryptoCurrency, Currency } from '../money/money.js';
import type { ChainNetwork, PayTokenId } from '../money/pay-tokens.js';

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

/** Everything an executor needs to send a refund of a pay-in back to its payer (ADR 0044). */
export interface RefundExecutionRequest {
  readonly refund_id: string;
  readonly order_id: string;
  readonly account_id: string;
  readonly token_id: PayTokenId;
  readonly network: ChainNetwork;
  readonly currency: CryptoCurrency;
  /** Tokens, 6 decimals: what the address receives. */
  readonly amount: string;
  readonly address: string;
}

/**
 * Whoever really moves the money. In live mode it is the only way a payout completes:
 *
 * 1. `execute` receives each approved payout once it is committed (the `payout.execute` timer);
 * 2. the executor sends the money, and reports each outcome with
 *    `engine.executions.report(payout_id, { status: 'processing' | 'completed' })` or
 *    `{ status: 'failed', reason }`, from wherever it learns it (its own worker, a bank webhook).
 *
 * The door is idempotent by payout id and status: a report the payout already reflects (the
 * same status again, or `processing` after `completed` / `failed`, a late or retried webhook)
 * answers success with the payout as it is and moves no money, so an executor may retry a report
 * until it got an answer. A report that contradicts a final payout (`failed` after `completed`,
 * `completed` after `failed`) keeps the catalogue's `invalid payout status`; an unknown payout id
 * answers `payout not found`; a malformed report `request required`, `status required`,
 * `invalid status`, `reason required` or `Validation Failed`. While the payout's account is
 * frozen every report it does not already reflect answers `account frozen` and changes nothing
 * (ADR 0033), and no payout of the account is handed to `execute`: keep the report and retry it
 * after the operator unfreezes the account.
 */
export interface PayoutExecutor {
  /**
   * Accepts one payout for execution. It runs inside the unit of work that completes the
   * `payout.execute` timer, so it must only record or enqueue the instruction and return fast;
   * when it throws (or the commit fails after it returned) the timer stays and fires again after
   * its lease, so it must be idempotent by `payout_id`. Outcomes come back later through
   * `engine.executions.report`, never as this call's result; it must not await a report either
   * (its unit of work has not committed, and on the memory store the report would wait for it).
   */
  execute(request: PayoutExecutionRequest): Promise<void>;
  /**
   * Accepts one approved refund of a pay-in (ADR 0044), on the same terms as `execute`: inside
   * the `refund.execute` timer's unit of work, fast, idempotent by `refund_id`; outcomes come back
   * through `engine.executions.reportRefund(refund_id, report)`. An executor without it leaves
   * refunds approved until their outcome is reported (the sandbox's act).
   */
  executeRefund?(request: RefundExecutionRequest): Promise<void>;
}
