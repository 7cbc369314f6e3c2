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
  type StoreReads,
} from '@payrail/core';
import { refuse } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import { type Product, requireProduct } from './access-control.policy.js';

/**
 * What a frozen account may still do in a use case: `refused` answers `account frozen`,
 * `allowed` goes on. Today the payout product (payouts, beneficiaries, payout configuration,
 * payout deliveries) refuses a frozen account even to read; acquiring orders and crypto batches
 * refuse it only on writes; the account's own read endpoints allow it.
 */
export type FrozenAccountPolicy = 'refused' | 'allowed';

/**
 * The caller's account, read in the use case's unit of work, checked in this order: it exists
 * (else `account not found`), it is not frozen when `frozen` is `refused` (else `account
 * frozen`), and it has `product` enabled when one is named (else `forbidden`).
 */
export const callerAccount = async (
  tx: StoreReads,
  caller: Caller,
  frozen: FrozenAccountPolicy,
  product?: Product,
): Promise<AccountRecord> => {
  const account =
    (await tx.accounts.get(caller.account_id, caller.merchant_id)) ??
    refuse(payrailError('account_not_found'));
  if (frozen === 'refused' && account.status === 'frozen') refuse(payrailError('account_frozen'));
  if (product !== undefined) requireProduct(account.products, product);
  return account;
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
