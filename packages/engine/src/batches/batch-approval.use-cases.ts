/**
 * A batch approved by a key other than the ones that created it or added its items (four eyes,
 * `payment.payout.submit`), and submitted: on approval by default, or by `POST .../submit` for a
 * batch created with `submit: false`. A batch that becomes submitted gets one payout per item in
 * the same unit of work, before its snapshot is saved.
 */
import {
  type AccountRecord,
  type CryptoBatchEvent,
  type CryptoBatchSnapshot,
  cryptoBatchStatusOf,
  decodeBatchApprove,
  payoutIdsFor,
  type StoreTransaction,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { requirePermission } from '../access/access-control.policy.js';
import { callerAccount } from '../access/caller-account.store.js';
import { handle, orRefuse } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { batchRepository, type LoadedBatch } from './batch.persistence.js';
import { batchAnswerOf } from './batch.views.js';
import { createBatchPayouts, loadBatchRoutes } from './batch-payouts.use-cases.js';

/** The payouts a submission creates, once the batch is `submitted`. */
const payoutsOnSubmission =
  (
    deps: EngineDeps,
    tx: StoreTransaction,
    account: AccountRecord,
    batch: LoadedBatch,
    at: number,
  ) =>
  async (snapshot: CryptoBatchSnapshot): Promise<void> => {
    if (cryptoBatchStatusOf(snapshot) !== 'submitted') return;
    const context = snapshot.context;
    await createBatchPayouts(deps, tx, snapshot, {
      account,
      notifyUrl: batch.notifyUrl,
      routes: await loadBatchRoutes(tx, context.currency, context.method_id),
      at,
    });
  };

/**
 * Approve or submit: the permission, the caller's account (product, frozen), the request (`read`
 * from the body), then the event the batch's own state calls for.
 */
const advanceBatch =
  <R>(
    read: (body: unknown) => R,
    eventOf: (
      deps: EngineDeps,
      batch: LoadedBatch,
      keyId: string,
      at: number,
      request: R,
    ) => CryptoBatchEvent,
  ) =>
  async (deps: EngineDeps, caller: Caller, batchId: string, body?: unknown) => {
    const guard = async (tx: StoreTransaction) => {
      requirePermission(caller, 'payment.payout.submit');
      const account = await callerAccount(tx, caller, 'refused', 'payout');
      return { account, request: read(body) };
    };
    const target = { id: batchId, scope: caller.account_id, guard };
    const advanced = await handle(deps, batchRepository, target, (step) => {
      const { tx, loaded, at, guarded } = step;
      return {
        event: eventOf(deps, loaded, caller.key_id, at, guarded.request),
        beforeSave: payoutsOnSubmission(deps, tx, guarded.account, loaded, at),
      };
    });
    return E.map((batch: LoadedBatch) => batchAnswerOf(batch))(advanced);
  };

const payoutIdsOf = (deps: EngineDeps, snapshot: CryptoBatchSnapshot) =>
  payoutIdsFor(snapshot, () => deps.ids.next('po'));

/**
 * Approve the batch at the version the body names (issue 35, M3): the machine refuses a batch
 * changed since (`batch changed since the version approved`), so an approval never covers an
 * item its approver did not see.
 */
export const approveBatch = advanceBatch(
  (body) => orRefuse(decodeBatchApprove(body)),
  (deps, batch, key_id, at, { version }) => ({
    type: 'batch.approve',
    key_id,
    version,
    at,
    ...(batch.snapshot.context.submit_on_approve
      ? { payout_ids: payoutIdsOf(deps, batch.snapshot) }
      : {}),
  }),
);

/** Submit takes no body. */
export const submitBatch = advanceBatch(
  () => undefined,
  (deps, batch, key_id, at) => ({
    type: 'batch.submit',
    key_id,
    at,
    payout_ids: payoutIdsOf(deps, batch.snapshot),
  }),
);
