/**
 * How a crypto batch is kept: its machine snapshot with the notify_url its payouts report to
 * (the core's versioned, checked JSON), and the `status` column.
 */
import {
  type CryptoBatchRecord,
  type CryptoBatchSnapshot,
  cryptoBatchStatusOf,
  type NewRecord,
  persistBatch,
  restoreBatch,
  type StoreTransaction,
} from '@payrail/core';

/** A batch with its snapshot, as read (or last written) in the current unit of work. */
export interface LoadedBatch {
  readonly record: CryptoBatchRecord;
  readonly snapshot: CryptoBatchSnapshot;
  readonly notifyUrl: string | null;
}

/** The batch of a record; a corrupt snapshot throws `CorruptSnapshotError` (internal error). */
const loadedBatchOf = (record: CryptoBatchRecord): LoadedBatch => ({
  record,
  ...restoreBatch(record.snapshot),
});

export const newBatchRecord = (
  snapshot: CryptoBatchSnapshot,
  notifyUrl: string | null,
): NewRecord<CryptoBatchRecord> => ({
  batch_id: snapshot.context.batch_id,
  account_id: snapshot.context.account_id,
  status: cryptoBatchStatusOf(snapshot),
  snapshot: persistBatch(snapshot, notifyUrl),
  created_at: snapshot.context.created_at,
  updated_at: snapshot.context.updated_at,
});

/** Writes the next snapshot over the version that was read (optimistic concurrency). */
export const saveBatch = async (
  tx: StoreTransaction,
  read: LoadedBatch,
  snapshot: CryptoBatchSnapshot,
): Promise<LoadedBatch> => {
  const record = await tx.cryptoBatches.update({
    ...read.record,
    status: cryptoBatchStatusOf(snapshot),
    snapshot: persistBatch(snapshot, read.notifyUrl),
    updated_at: snapshot.context.updated_at,
  });
  return { record, snapshot, notifyUrl: read.notifyUrl };
};

export const loadBatch = async (
  tx: StoreTransaction,
  batchId: string,
  scope: string,
): Promise<LoadedBatch | undefined> => {
  const record = await tx.cryptoBatches.get(batchId, scope);
  return record === undefined ? undefined : loadedBatchOf(record);
};

/** Every batch of the account in `status`, oldest first (for the order_no uniqueness rule). */
export const batchesInStatus = async (
  tx: StoreTransaction,
  accountId: string,
  status: 'draft' | 'approved',
): Promise<readonly LoadedBatch[]> => {
  const batches: LoadedBatch[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await tx.cryptoBatches.list({
      scope: accountId,
      where: { status },
      sort: 'asc',
      limit: 100,
      offset,
    });
    batches.push(...page.items.map(loadedBatchOf));
    if (offset + page.items.length >= page.total || page.items.length === 0) return batches;
  }
};
