/**
 * Read side of the payout machine: the interface's payout response object (data.payout) from a
 * snapshot, so the engine and the HTTP layer never re-derive statuses on their own.
 */
import {
  type ExecutionStatus,
  type PayoutSnapshot,
  type PayoutStatus,
  payoutStatePairOf,
  payoutStatusOfPair,
  type ReviewStatus,
} from './payout.machine.js';

/** The interface's "Payout (response object, data.payout)", minus the creation-only risk_status. */
export interface PayoutResource {
  readonly payout_id: string;
  readonly client_request_id?: string;
  readonly reference: string;
  readonly currency: string;
  readonly amount: string;
  readonly status: PayoutStatus;
  readonly review_status: ReviewStatus;
  readonly execution_status: ExecutionStatus;
  readonly beneficiary_id: string;
  readonly beneficiary_account_id: string;
  readonly execution_fail_reason?: string;
}

/** What `GET /payment/payouts/{payout_id}` answers for a payout in this state. */
export const payoutResourceOf = (snapshot: PayoutSnapshot): PayoutResource => {
  const context = snapshot.context;
  const pair = payoutStatePairOf(snapshot);
  return {
    payout_id: context.payout_id,
    ...(context.client_request_id === undefined
      ? {}
      : { client_request_id: context.client_request_id }),
    reference: context.reference,
    currency: context.currency,
    amount: context.amount,
    status: payoutStatusOfPair(pair),
    review_status: pair.review_status,
    execution_status: pair.execution_status,
    beneficiary_id: context.beneficiary_id,
    beneficiary_account_id: context.beneficiary_account_id,
    ...(context.execution_fail_reason === undefined
      ? {}
      : { execution_fail_reason: context.execution_fail_reason }),
  };
};
