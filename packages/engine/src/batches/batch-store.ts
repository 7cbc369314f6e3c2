/**
 * How a crypto batch is kept: its machine snapshot (versioned JSON), the notify_url its payouts
 * report to (not part of the core's batch, so kept beside the snapshot), and the `status` column.
 */
import {
  type CryptoBatchRecord,
  type CryptoBatchSnapshot,
  cryptoBatchMachine,
  cryptoBatchStatusOf,
  type NewRecord,
  type StoreTransaction,
} from '@payrail/core';

export const batchSnapshotVersion = 1;

interface PersistedBatch {
  readonly version: typeof batchSnapshotVersion;
  readonly snapshot: {
    readonly value: CryptoBatchSnapshot['value'];
    readonly context: CryptoBatchSnapshot['context'];
  };
  /** Where the batch's payouts send their callbacks; null: no callbacks. */
  readonly notify_url: string | null;
}

/** A batch with its snapshot, as read (or last written) in the current unit of work. */
export interface LoadedBatch {
  readonly record: CryptoBatchRecord;
  readonly snapshot: CryptoBatchSnapshot;
  readonly notifyUrl: string | null;
}

const persistBatch = (snapshot: CryptoBatchSnapshot, notifyUrl: string | null): PersistedBatch => ({
  version: batchSnapshotVersion,
  snapshot: cryptoBatchMachine.getPersistedSnapshot(
    snapshot,
  ) as unknown as PersistedBatch['snapshot'],
  notify_url: notifyUrl,
});

const restoreBatch = (record: CryptoBatchRecord): LoadedBatch => {
  const persisted = record.snapshot as PersistedBatch;
  if (persisted.version !== batchSnapshotVersion) {
    throw new TypeError(`unsupported batch snapshot version: ${String(persisted.version)}`);
  }
  return {
    record,
    snapshot: cryptoBatchMachine.resolveState({
      value: persisted.snapshot.value,
      context: persisted.snapshot.context,
    }),
    notifyUrl: persisted.notify_url,
  };
};

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
  return record === undefined ? undefined : restoreBatch(record);
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
    batches.push(...page.items.map(restoreBatch));
    if (offset + page.items.length >= page.total || page.items.length === 0) return batches;
  }
};
