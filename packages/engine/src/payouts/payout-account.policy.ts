/**
 * The merchant's account for the merchant's acts on payouts, checked in the unit of work that
 * decides: permissions, then an existing, unfrozen account with payouts enabled.
 */
import type { AccountRecord, StoreReads, StoreTransaction } from '@payrail/core';
import { type Permission, requirePermission } from '../access/access-control.policy.js';
import { callerAccount } from '../access/caller-account.store.js';
import type { Caller } from '../engine.api.js';

/** Permissions, then the account: it must exist, not be frozen, and have payouts enabled. */
export const payoutAccount = async (
  tx: StoreReads,
  caller: Caller,
  ...permissions: Permission[]
): Promise<AccountRecord> => {
  requirePermission(caller, ...permissions);
  return callerAccount(tx, caller, 'refused', 'payout');
};

/** The merchant's guard for the command handler: `payoutAccount` with `permissions`. */
export const merchantGuard =
  (caller: Caller, ...permissions: Permission[]) =>
  (tx: StoreTransaction): Promise<AccountRecord> =>
    payoutAccount(tx, caller, ...permissions);
