/**
 * `POST /admin/payouts/{payout_id}/review` (decisions §8): an operator approves, returns or
 * rejects a payout in review. The operator's role is checked at the door and the act is recorded
 * in the audit trail (`engine.wiring.ts`); the command handler runs the payout machine, which
 * decides, and the payout's rules (a frozen account's payout is not approved).
 */
import { decodePayoutReview } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { handle, unguarded } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import { payoutRepository } from './payout.persistence.js';
import { payoutAnswer } from './payout.views.js';

const reviewEvents = {
  approve: 'payout.review.approve',
  return: 'payout.review.return',
  reject: 'payout.review.reject',
} as const;

export const reviewPayout = async (deps: EngineDeps, payoutId: string, body: unknown) => {
  const review = decodePayoutReview(body);
  if (E.isLeft(review)) return review;
  const { action, reason } = review.right;
  const target = { id: payoutId, guard: unguarded };
  const reviewed = await handle(deps, payoutRepository, target, ({ at }) => ({
    event: { type: reviewEvents[action], at, ...(reason === undefined ? {} : { reason }) },
  }));
  return payoutAnswer(reviewed);
};
