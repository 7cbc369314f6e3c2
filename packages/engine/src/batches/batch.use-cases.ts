/**
 * Crypto mass payout batches (interface "Crypto mass payout", docs/spec/decisions.md §6). A batch is created
 * in `draft`, takes more items while draft, is approved by a key other than its creator's (four
 * eyes, permission `payment.payout.submit`) and, when submitted (on approval by default, or by
 * `POST .../submit` for a batch created with `submit: false`), becomes one payout per item in the
 * same unit of work.
 *
 * The create body may carry an optional `notify_url` (beyond docs/spec/decisions.md §6's fields), checked like
 * a payout's: the batch's payouts send their callbacks there. Without it they send none and the
 * merchant follows them by query.
 */
import type { Engine } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { approveBatch, submitBatch } from './batch-approval.use-cases.js';
import { createBatch } from './batch-create.use-case.js';
import { addBatchItems } from './batch-items.use-case.js';
import { batchItems, getBatch } from './batch-reads.use-cases.js';

export const batchUseCases = (deps: EngineDeps): Engine['batches'] => ({
  create: (caller, body) => createBatch(deps, caller, body),
  get: (caller, batchId) => getBatch(deps, caller, batchId),
  items: (caller, batchId, query) => batchItems(deps, caller, batchId, query),
  addItems: (caller, batchId, body) => addBatchItems(deps, caller, batchId, body),
  approve: (caller, batchId, body) => approveBatch(deps, caller, batchId, body),
  submit: (caller, batchId) => submitBatch(deps, caller, batchId),
});
