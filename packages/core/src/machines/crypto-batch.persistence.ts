/**
 * How a crypto batch is stored: its machine snapshot as versioned JSON, beside the notify_url
 * its payouts report to (not part of the core's batch), read back through a checked codec.
 */
import * as t from 'io-ts';
import { type CryptoBatchSnapshot, cryptoBatchMachine } from './crypto-batch.machine.js';
import {
  CorruptSnapshotError,
  decodeStored,
  oneOf,
  StoredCryptoCurrency,
  storedVersionOf,
} from './snapshot-persistence.js';

const batchSnapshotVersion = 1;

const StoredBatchItem = t.intersection([
  t.type({
    order_no: t.string,
    amount: t.string,
    beneficiary_account: t.intersection([
      t.type({ address: t.string, network_code: t.keyof({ EVM: null, TRON: null }) }),
      t.partial({ display_name: t.string }),
    ]),
    status: t.keyof({ pending: null, submitted: null }),
    created_at: t.number,
  }),
  t.partial({ payout_id: t.string, added_by_key_id: t.string }),
]);

const StoredBatchContext = t.intersection([
  t.type({
    batch_id: t.string,
    account_id: t.string,
    currency: StoredCryptoCurrency,
    method_id: t.number,
    submit_on_approve: t.boolean,
    items: t.readonlyArray(StoredBatchItem),
    item_count: t.number,
    total_amount: t.string,
    created_by_key_id: t.string,
    revision: t.number,
    created_at: t.number,
    updated_at: t.number,
  }),
  t.partial({
    approved_by_key_id: t.string,
    approved_at: t.number,
    submitted_by_key_id: t.string,
    submitted_at: t.number,
  }),
]);

/** The batch's stored JSON. */
export const PersistedBatch = t.type({
  version: t.literal(batchSnapshotVersion),
  snapshot: t.type({
    value: oneOf(['draft', 'approved', 'submitted'] as const, 'CryptoBatchStatus'),
    context: StoredBatchContext,
  }),
  /** Where the batch's payouts send their callbacks; null: no callbacks. */
  notify_url: t.union([t.string, t.null]),
});
export type PersistedBatch = t.TypeOf<typeof PersistedBatch>;

/** The JSON a store keeps for a batch. */
export const persistBatch = (
  snapshot: CryptoBatchSnapshot,
  notifyUrl: string | null,
): PersistedBatch => ({
  version: batchSnapshotVersion,
  snapshot: {
    ...cryptoBatchMachine.getPersistedSnapshot(snapshot),
    value: snapshot.value,
    context: snapshot.context,
  },
  notify_url: notifyUrl,
});

export interface RestoredBatch {
  readonly snapshot: CryptoBatchSnapshot;
  readonly notifyUrl: string | null;
}

/**
 * A stored batch back, ready for `decide`; another format version, a status that is not one or
 * a context missing a field throws `CorruptSnapshotError`.
 */
export const restoreBatch = (json: unknown): RestoredBatch => {
  const version = storedVersionOf('crypto batch', json);
  if (version !== batchSnapshotVersion) {
    throw new CorruptSnapshotError(
      'crypto batch',
      `unsupported batch snapshot version: ${version}`,
    );
  }
  const persisted = decodeStored('crypto batch', PersistedBatch, json);
  return {
    snapshot: cryptoBatchMachine.resolveState({
      value: persisted.snapshot.value,
      context: persisted.snapshot.context,
    }),
    notifyUrl: persisted.notify_url,
  };
};
