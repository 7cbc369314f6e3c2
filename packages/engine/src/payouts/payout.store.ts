/**
 * How the payout side reads and writes its records: the payout record (the machine's persisted
 * snapshot plus the route the payout was priced on) and the balance it is decided on; the
 * conflict-retry policy is conflict-retry.ts's, the account and list reads store-reads.ts's.
 */
import {
  decodePersistedPayout,
  type NewRecord,
  type PayoutRecord,
  type PayoutRouting,
  type PayoutSnapshot,
  payoutStatePairOf,
  payoutStatusOf,
  payrailError,
  persistPayout,
  restorePayout,
  type StoreTransaction,
} from '@payrail/core';
import { refuse } from '../unit-of-work.js';

export interface LoadedPayout {
  readonly record: PayoutRecord;
  readonly snapshot: PayoutSnapshot;
  readonly routing: PayoutRouting | undefined;
}

/** The payout of a record; a corrupt snapshot throws `CorruptSnapshotError` (internal error). */
export const loadedPayoutOf = (record: PayoutRecord): LoadedPayout => {
  const stored = decodePersistedPayout(record.snapshot);
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
    snapshot: persistPayout(snapshot, routing),
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

/** The available balance of one currency, read in the unit of work that uses it. */
export const availableBalance = async (
  tx: StoreTransaction,
  accountId: string,
  currency: string,
): Promise<string> =>
  (await tx.ledger.balances(accountId)).find((b) => b.currency === currency)?.available ?? '0';
