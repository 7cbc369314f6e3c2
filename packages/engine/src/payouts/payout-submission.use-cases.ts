/**
 * The merchant lets go of a payout, or takes it back (interface "Fiat payout"): a draft or
 * returned payout submitted for review, or one not yet executing cancelled. The machine decides.
 */
import type { AccountRecord, PayoutEvent } from '@payrail/core';
import type { Permission } from '../access/access-control.policy.js';
import { handle } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { payoutRepository } from './payout.persistence.js';
import { payoutAnswer } from './payout.views.js';
import { merchantGuard } from './payout-account.policy.js';

/** One of the merchant's acts on its payout: `permission`, then the event the machine decides. */
const merchantAct = async (
  deps: EngineDeps,
  caller: Caller,
  payoutId: string,
  permission: Permission,
  eventOf: (account: AccountRecord, at: number) => PayoutEvent,
) => {
  const target = {
    id: payoutId,
    scope: caller.account_id,
    guard: merchantGuard(caller, permission),
  };
  return payoutAnswer(
    await handle(deps, payoutRepository, target, ({ at, guarded }) => ({
      event: eventOf(guarded, at),
    })),
  );
};

/** `POST /payment/payouts/{payout_id}/submit`: verification and auto-approval as set now. */
export const submitPayout = (deps: EngineDeps, caller: Caller, payoutId: string) =>
  merchantAct(deps, caller, payoutId, 'payment.payout.submit', (account, at) => ({
    type: 'payout.submit',
    at,
    verification_enabled: account.verification_enabled,
    auto_approve: account.auto_approve,
  }));

/** `POST /payment/payouts/{payout_id}/cancel`. */
export const cancelPayout = (deps: EngineDeps, caller: Caller, payoutId: string) =>
  merchantAct(deps, caller, payoutId, 'payment.payout.cancel', (_, at) => ({
    type: 'payout.cancel',
    at,
  }));
