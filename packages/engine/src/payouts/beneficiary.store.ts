/**
 * What the standalone beneficiary endpoints share: units of work on the caller's account behind
 * a permission, one of its beneficiaries or receiving accounts, a page of them, and a status
 * PATCH.
 */
import {
  type AccountRecord,
  type BeneficiaryAccountRecord,
  type BeneficiaryRecord,
  decodeWith,
  type Page,
  PageQuery,
  payrailError,
  type StoreTransaction,
} from '@payrail/core';
import { type Permission, requirePermission } from '../access/access-control.policy.js';
import { callerAccount } from '../access/caller-account.store.js';
import { pageView } from '../access/list-pages.views.js';
import {
  clockedUnitOfWork,
  type Outcome,
  orRefuse,
  refuse,
  unitOfWork,
} from '../command/command.handler.js';
import type { Caller, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';

/** The caller's account, once `permission` is checked: an active account with payouts. */
const withAccount = async (tx: StoreTransaction, caller: Caller, permission: Permission) => {
  requirePermission(caller, permission);
  return callerAccount(tx, caller, 'refused', 'payout');
};

/** `work` as one unit of work on the caller's account, once `withAccount` let it in. */
export const readAsAccount = <T>(
  deps: EngineDeps,
  caller: Caller,
  permission: Permission,
  work: (tx: StoreTransaction, account: AccountRecord) => Promise<T>,
): Promise<Outcome<T>> =>
  unitOfWork(deps.store, async (tx) => work(tx, await withAccount(tx, caller, permission)));

/**
 * `readAsAccount` for a change at the moment the clock reads before it, run again on a conflict
 * (a concurrent change of the same record, or the same payee created first).
 */
export const changeAsAccount = <T>(
  deps: EngineDeps,
  caller: Caller,
  permission: Permission,
  work: (tx: StoreTransaction, at: number, account: AccountRecord) => Promise<T>,
): Promise<Outcome<T>> =>
  clockedUnitOfWork(deps, async (tx, at) =>
    work(tx, at, await withAccount(tx, caller, permission)),
  );

/** A page of the caller's own records of one collection, as `view` shows them. */
export const listOwn =
  <R, V>(
    deps: EngineDeps,
    permission: Permission,
    collection: (tx: StoreTransaction) => {
      list(query: { scope: string; limit: number; offset: number }): Promise<Page<R>>;
    },
    view: (record: R) => V,
  ) =>
  (caller: Caller, query: Query) =>
    readAsAccount(deps, caller, permission, async (tx) => {
      const q = orRefuse(decodeWith(PageQuery)(query));
      const page = await collection(tx).list({
        scope: caller.account_id,
        limit: q.limit,
        offset: q.offset,
      });
      return pageView(page, view);
    });

/**
 * An id in the path that does not resolve is 404 (`beneficiary_id not found`); one in a body is
 * 400 `beneficiary not found` (docs/spec/decisions.md §1).
 */
export const findBeneficiary = async (
  tx: StoreTransaction,
  caller: Caller,
  beneficiaryId: string,
  from: 'path' | 'body',
): Promise<BeneficiaryRecord> =>
  (await tx.beneficiaries.get(beneficiaryId, caller.account_id)) ??
  refuse(payrailError(from === 'path' ? 'beneficiary_id_not_found' : 'beneficiary_not_found'));

/** Only ever the id in the path: 404 `beneficiary_account_id not found`. */
export const findBeneficiaryAccount = async (
  tx: StoreTransaction,
  caller: Caller,
  beneficiaryAccountId: string,
): Promise<BeneficiaryAccountRecord> =>
  (await tx.beneficiaryAccounts.get(beneficiaryAccountId, caller.account_id)) ??
  refuse(payrailError('beneficiary_account_id_not_found'));

/** A status PATCH: the record with `status` at `at`, `no changes` when it already has it. */
export const withStatus = <R extends { readonly status: string; readonly updated_at: number }>(
  record: R,
  status: R['status'],
  at: number,
): R => {
  if (status === record.status) refuse(payrailError('no_changes'));
  return { ...record, status, updated_at: at };
};
