/** What crypto batch answers show: the core's view of a batch, plus its notify_url. */
import { type CryptoBatchSnapshot, type CryptoBatchView, cryptoBatchView } from '@payrail/core';

/** `data.batch`: the core's view, plus the notify_url when the batch was created with one. */
export interface BatchView extends CryptoBatchView {
  readonly notify_url?: string;
}

export const batchViewOf = (batch: {
  readonly snapshot: CryptoBatchSnapshot;
  readonly notifyUrl: string | null;
}): BatchView => ({
  ...cryptoBatchView(batch.snapshot),
  ...(batch.notifyUrl === null ? {} : { notify_url: batch.notifyUrl }),
});
