/**
 * `POST /admin/payouts/{payout_id}/review` (docs/spec/decisions.md §8): an operator approves, returns or
 * rejects a payout in review. The operator's role is checked at the door and the act is recorded
 * in the audit trail (`engine.wiring.ts`); the command handler runs the payout machine, which
 * decides, with its rules (an approval carries the account's status, and a frozen account's
 * payout is not approved).
 */
import { decodePayoutReview, type PayoutEvent } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { handle, unguarded } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import { accountStatusOf, payoutRepository } from './payout.persistence.js';
import { payoutAnswer } from './payout.views.js';

export const reviewPayout = async (deps: EngineDeps, payoutId: string, body: unknown) => {
  const review = decodePayoutReview(body);
  if (E.isLeft(review)) return review;
  const { action, reason } = review.right;
  const target = { id: payoutId, guard: unguarded };
  const reviewed = await handle(deps, payoutRepository, target, async ({ tx, loaded, at }) => {
    const because = reason === undefined ? {} : { reason };
    const event: PayoutEvent =
      action === 'approve'
        ? {
            type: 'payout.review.approve',
            at,
            ...because,
            account_status: await accountStatusOf(tx, loaded.snapshot.context.account_id),
          }
        : {
            type: action === 'return' ? 'payout.review.return' : 'payout.review.reject',
            at,
            ...because,
          };
    return { event };
  });
  return payoutAnswer(reviewed);
};
