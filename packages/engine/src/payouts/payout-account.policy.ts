/**
 * The merchant's account for the merchant's acts on payouts: permissions, then an existing,
 * unfrozen account with payouts enabled. An act checks it in the unit of work that decides, on
 * the primary; a read checks the account the key check read (`merchantRead`), never the
 * replica's lagging copy.
 */
import type { AccountRecord, StoreTransaction } from '@payrail/core';
import { type Permission, requirePermission } from '../access/access-control.policy.js';
import { callerAccount, type ReaderAccess } from '../access/caller-account.store.js';
import type { Caller } from '../engine.api.js';

/** Permissions, then the account: it must exist, not be frozen, and have payouts enabled. */
export const payoutAccount = async (
  tx: StoreTransaction,
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

/** A merchant's payout read (`merchantRead`): `permissions`, an unfrozen account with payouts. */
export const payoutReader = (...permissions: Permission[]): ReaderAccess => ({
  permissions,
  frozen: 'refused',
  product: 'payout',
});
