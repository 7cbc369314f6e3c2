/**
 * How the payout side reads and writes its records: the payout record (the machine's persisted
 * snapshot plus the route the payout was priced on), the caller's account, whole lists of the
 * small configuration collections, and the one retry a unit of work gets after a store conflict.
 */
import {
  type AccountRecord,
  type Collection,
  isStoreFailure,
  type ListQuery,
  type NewRecord,
  type PayoutRecord,
  type PayoutSnapshot,
  type PersistedPayout,
  payoutStatePairOf,
  payoutStatusOf,
  payrailError,
  persistPayout,
  type RecordMeta,
  restorePayout,
  type StoreFailure,
  type StoreTransaction,
} from '@payrail/core';
import type { Caller } from '../engine-api.js';
import { refuse } from '../unit-of-work.js';

/** The route a payout was priced on: kept beside the snapshot (the machine does not need it). */
export interface PayoutRouting {
  readonly route_id: string;
  readonly method_id: number;
  readonly channel_id: string | null;
  readonly channel_account_id: string | null;
}

/**
 * The JSON of a payout record's `snapshot` column. `routing` is absent on payouts made by a
 * crypto batch (their route is the batch's, chosen at submission).
 */
export interface StoredPayout extends PersistedPayout {
  readonly routing?: PayoutRouting;
}

export interface LoadedPayout {
  readonly record: PayoutRecord;
  readonly snapshot: PayoutSnapshot;
  readonly routing: PayoutRouting | undefined;
}

export const loadedPayoutOf = (record: PayoutRecord): LoadedPayout => {
  const stored = record.snapshot as StoredPayout;
  return { record, snapshot: restorePayout(stored), routing: stored.routing };
};

/** The columns lists filter on, kept in step with the snapshot. */
const columnsOf = (snapshot: PayoutSnapshot, routing: PayoutRouting | undefined) => {
  const pair = payoutStatePairOf(snapshot);
  const context = snapshot.context;
  return {
    currency: context.currency,
    amount: context.amount,
    status: payoutStatusOf(snapshot),
    review_status: pair.review_status,
    execution_status: pair.execution_status,
    snapshot: {
      ...persistPayout(snapshot),
      ...(routing === undefined ? {} : { routing }),
    } satisfies StoredPayout,
    updated_at: context.updated_at,
  };
};

export const newPayoutRecord = (
  snapshot: PayoutSnapshot,
  routing: PayoutRouting,
  requestHash: string,
): NewRecord<PayoutRecord> => {
  const context = snapshot.context;
  return {
    payout_id: context.payout_id,
    account_id: context.account_id,
    reference: context.reference,
    client_request_id: context.client_request_id ?? null,
    request_hash: requestHash,
    batch_id: null,
    created_at: context.created_at,
    ...columnsOf(snapshot, routing),
  };
};

/** Saves a decided snapshot with the version read (optimistic concurrency). */
export const savePayout = (
  tx: StoreTransaction,
  loaded: LoadedPayout,
  snapshot: PayoutSnapshot,
  routing: PayoutRouting | undefined = loaded.routing,
): Promise<PayoutRecord> =>
  tx.payouts.update({ ...loaded.record, ...columnsOf(snapshot, routing) });

/** The caller's payout, or `payout not found` (another merchant's payout included). */
export const loadPayout = async (
  tx: StoreTransaction,
  payoutId: string,
  accountId?: string,
): Promise<LoadedPayout> => {
  const record = await tx.payouts.get(payoutId, accountId);
  return record === undefined ? refuse(payrailError('payout_not_found')) : loadedPayoutOf(record);
};

/** The caller's account: `account not found`, `account frozen`, or the record. */
export const loadAccount = async (tx: StoreTransaction, caller: Caller): Promise<AccountRecord> => {
  const account = await tx.accounts.get(caller.account_id, caller.merchant_id);
  if (account === undefined) return refuse(payrailError('account_not_found'));
  if (account.status === 'frozen') return refuse(payrailError('account_frozen'));
  return account;
};

/** Every record a query matches, page after page (configuration lists are small). */
export const listAll = async <R extends RecordMeta>(
  collection: Collection<R>,
  query: Omit<ListQuery<R>, 'limit' | 'offset'>,
): Promise<readonly R[]> => {
  const items: R[] = [];
  for (;;) {
    const page = await collection.list({ ...query, sort: 'asc', limit: 100, offset: items.length });
    items.push(...page.items);
    if (page.items.length === 0 || items.length >= page.total) return items;
  }
};

/** The available balance of one currency, read in the unit of work that uses it. */
export const availableBalance = async (
  tx: StoreTransaction,
  accountId: string,
  currency: string,
): Promise<string> =>
  (await tx.ledger.balances(accountId)).find((b) => b.currency === currency)?.available ?? '0';

/**
 * Store refusals that a second run of the same unit of work resolves: a concurrent writer moved
 * the record first (`version_conflict`), took a beneficiary key the first run saw free, or spent
 * the balance the first run read (`insufficient_balance`: the second run reads the new balance
 * and the machine fails the payout properly).
 */
const isTransient = (failure: StoreFailure): boolean =>
  failure.reason === 'version_conflict' ||
  failure.reason === 'insufficient_balance' ||
  (failure.reason === 'unique_violation' &&
    (failure.collection === 'beneficiaries' || failure.collection === 'beneficiary_accounts'));

/** Runs `attempt`, and once more when it failed on a transient store refusal. */
export const retryingOnce = async <T>(attempt: () => Promise<T>): Promise<T> => {
  try {
    return await attempt();
  } catch (error) {
    if (isStoreFailure(error) && isTransient(error)) return attempt();
    throw error;
  }
};
