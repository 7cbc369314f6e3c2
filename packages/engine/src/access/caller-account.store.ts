/**
 * The reads every product makes the same way: the caller's account, and whole lists of the small
 * collections (configuration, API keys, webhooks) whose use cases filter or pick in memory.
 */
import {
  type AccountRecord,
  type Collection,
  type ListQuery,
  payrailError,
  type RecordMeta,
  type Store,
  type StoreReads,
  type StoreTransaction,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { type Outcome, outcomeOf, readUnit, refuse } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import {
  type Permission,
  type Product,
  requirePermission,
  requireProduct,
} from './access-control.policy.js';

/**
 * What a frozen account may still do in a use case: `refused` answers `account frozen`,
 * `allowed` goes on. Today the payout product (payouts, beneficiaries, payout configuration,
 * payout deliveries) refuses a frozen account even to read; acquiring orders and crypto batches
 * refuse it only on writes; the account's own read endpoints allow it.
 */
export type FrozenAccountPolicy = 'refused' | 'allowed';

/**
 * The checks on the caller's account, in this order: it exists (else `account not found`), it
 * is not frozen when `frozen` is `refused` (else `account frozen`), and it has `product` enabled
 * when one is named (else `forbidden`).
 */
const checkedAccount = (
  account: AccountRecord | undefined,
  frozen: FrozenAccountPolicy,
  product?: Product,
): AccountRecord => {
  const found = account ?? refuse(payrailError('account_not_found'));
  if (frozen === 'refused' && found.status === 'frozen') refuse(payrailError('account_frozen'));
  if (product !== undefined) requireProduct(found.products, product);
  return found;
};

/**
 * The caller's account, read in the use case's unit of work on the primary and checked as
 * `checkedAccount` does. Never on a replica's reads (see `merchantRead`).
 */
export const callerAccount = async (
  tx: StoreTransaction,
  caller: Caller,
  frozen: FrozenAccountPolicy,
  product?: Product,
): Promise<AccountRecord> =>
  checkedAccount(await tx.accounts.get(caller.account_id, caller.merchant_id), frozen, product);

/** What a merchant's read asks of its caller: permissions, then its account as `checkedAccount`. */
export interface ReaderAccess {
  readonly permissions: readonly Permission[];
  readonly frozen: FrozenAccountPolicy;
  readonly product?: Product;
}

/**
 * The caller's account as the primary has it, checked for a merchant's read (ADR 0054): the one
 * the key check read (`Caller.account`), else (a caller made without the key check, or one
 * another account's id was put on) read on the primary now. Never the replica's copy, which lags: read there, a just-created account
 * answered `account not found` and a just-frozen one still read.
 */
export const readerAccount = async (
  store: Store,
  caller: Caller,
  access: ReaderAccess,
): Promise<Outcome<AccountRecord>> => {
  const checked = caller.account;
  const account =
    checked?.account_id === caller.account_id && checked.merchant_id === caller.merchant_id
      ? checked
      : await store.transaction((tx) => tx.accounts.get(caller.account_id, caller.merchant_id));
  return outcomeOf(() => {
    requirePermission(caller, ...access.permissions);
    return checkedAccount(account, access.frozen, access.product);
  });
};

/**
 * A merchant's read: `readerAccount`, then `work` in a `readUnit`, which a replica may answer.
 */
export const merchantRead = async <T>(
  store: Store,
  caller: Caller,
  access: ReaderAccess,
  work: (tx: StoreReads, account: AccountRecord) => Promise<T>,
): Promise<Outcome<T>> => {
  const account = await readerAccount(store, caller, access);
  return E.isLeft(account) ? account : readUnit(store, (tx) => work(tx, account.right));
};

const pageSize = 100;

/** Every record a query matches, page after page, in the query's `sort` (the store's default: newest first). */
export const listAll = async <R extends RecordMeta>(
  collection: Pick<Collection<R>, 'list'>,
  query: Omit<ListQuery<R>, 'limit' | 'offset'>,
): Promise<readonly R[]> => {
  const items: R[] = [];
  for (;;) {
    const page = await collection.list({ ...query, limit: pageSize, offset: items.length });
    items.push(...page.items);
    if (page.items.length < pageSize || items.length >= page.total) return items;
  }
};
