/**
 * The merchant's verification callback (interface "Payout verification", ADR 0038), for the
 * webhook adapter that delivers the requests: the answers decided on the payout, and whether a
 * request of a review round may still be sent.
 */
import { type PayoutEvent, payoutStateKeyOf } from '@payrail/core';
import { handle, unguarded } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import { accountStatusOf, payoutRepository } from './payout.persistence.js';
import { payoutAnswer } from './payout.views.js';

/**
 * The merchant's answer to verification request `attempt` (1-based) of review `round`: `true`
 * approves, `false` rejects, `null` (unparsable, undecided, no answer in time) records the
 * attempt; an undecided last attempt returns the payout; an answer about another round is
 * refused. The answer carries the account's status read in the same unit of work: `true` from a
 * frozen account is refused with `account frozen` (ADR 0033).
 */
export const answerVerification = (
  deps: EngineDeps,
  payoutId: string,
  verified: boolean | null,
  attempt: number,
  round?: number,
) =>
  handle(deps, payoutRepository, { id: payoutId, guard: unguarded }, async ({ tx, loaded, at }) => {
    const event: PayoutEvent = {
      type: 'payout.verification.answered',
      at,
      verified,
      attempt,
      ...(round === undefined ? {} : { round }),
      account_status: await accountStatusOf(tx, loaded.snapshot.context.account_id),
    };
    return { event };
  }).then(payoutAnswer);

/**
 * Whether a verification request of `round` may still be sent: the payout still awaits
 * verification in that round. A return, a cancel or an operator's decision ends the round, and
 * its request is not sent again (issue 19, M2).
 */
export const verificationRequestOpen = (
  deps: EngineDeps,
  payoutId: string,
  accountId: string,
  round: number,
) =>
  deps.store.transaction(async (tx) => {
    const record = await tx.payouts.get(payoutId, accountId);
    if (record === undefined) return false;
    const loaded = await payoutRepository.load(tx, record.payout_id, record.account_id);
    return (
      payoutStateKeyOf(loaded.snapshot) === 'pendingReview.awaitingVerification' &&
      loaded.snapshot.context.verification_round === round
    );
  });
