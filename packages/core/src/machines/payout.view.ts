/**
 * Read side of the payout machine: the interface's payout response object (data.payout) from a
 * snapshot, so the engine and the HTTP layer never re-derive statuses on their own.
 */
import type { PayoutView } from '../codecs/payout-answers.codecs.js';
import { type PayoutSnapshot, payoutStatePairOf, payoutStatusOfPair } from './payout.machine.js';

/** What `GET /payment/payouts/{payout_id}` answers (the answer codec's `PayoutView`) for a payout in this state. */
export const payoutResourceOf = (snapshot: PayoutSnapshot): PayoutView => {
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
    ...(context.returned_at === undefined
      ? {}
      : { returned_at: context.returned_at, return_reason: context.return_reason ?? '' }),
  };
};
