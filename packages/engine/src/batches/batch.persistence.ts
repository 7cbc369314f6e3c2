/**
 * How a crypto batch is kept: its machine snapshot with the notify_url its payouts report to
 * (the core's versioned, checked JSON), and the `status` column; read and written through
 * `batchRepository`, the command handler's contract for the batch aggregate.
 */
import {
  type CryptoBatchEvent,
  type CryptoBatchInput,
  type CryptoBatchRecord,
  type CryptoBatchSnapshot,
  cryptoBatchStatusOf,
  type NewRecord,
  payrailError,
  persistBatch,
  restoreBatch,
  type StoreTransaction,
} from '@payrail/core';
import { batchDecider, type Repository, refuse } from '../command/command.handler.js';

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

const newBatchRecord = (
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

/**
 * The crypto batch aggregate for the command handler. A new batch's `Extra` is its notify_url.
 * The batch machine emits no effects: its payouts speak through their own webhooks.
 */
export const batchRepository: Repository<
  CryptoBatchSnapshot,
  CryptoBatchEvent,
  CryptoBatchInput,
  LoadedBatch,
  string | null
> = {
  decider: batchDecider,
  idOf: (snapshot) => snapshot.context.batch_id,
  load: async (tx, batchId, scope) => {
    const record = await tx.cryptoBatches.get(batchId, scope);
    return record === undefined ? refuse(payrailError('batch_not_found')) : loadedBatchOf(record);
  },
  insert: async (tx, snapshot, notifyUrl) => ({
    record: await tx.cryptoBatches.insert(newBatchRecord(snapshot, notifyUrl)),
    snapshot,
    notifyUrl,
  }),
  save: async (tx, read, snapshot) => ({
    record: await tx.cryptoBatches.update({
      ...read.record,
      status: cryptoBatchStatusOf(snapshot),
      snapshot: persistBatch(snapshot, read.notifyUrl),
      updated_at: snapshot.context.updated_at,
    }),
    snapshot,
    notifyUrl: read.notifyUrl,
  }),
  routing: (snapshot) => ({ accountId: snapshot.context.account_id }),
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
