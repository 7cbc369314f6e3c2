/** What crypto batch answers show: the core's view of a batch, plus its notify_url. */
import { type BatchView, type CryptoBatchSnapshot, cryptoBatchView } from '@payrail/core';
import type { LoadedBatch } from './batch.persistence.js';

/** `data.batch`: the core's view, plus the notify_url when the batch was created with one. */
const batchViewOf = (batch: {
  readonly snapshot: CryptoBatchSnapshot;
  readonly notifyUrl: string | null;
}): BatchView => ({
  ...cryptoBatchView(batch.snapshot),
  ...(batch.notifyUrl === null ? {} : { notify_url: batch.notifyUrl }),
});

/** The answer of a use case on one batch: `data.batch`. */
export const batchAnswerOf = (batch: Pick<LoadedBatch, 'snapshot' | 'notifyUrl'>) => ({
  batch: batchViewOf(batch),
});
