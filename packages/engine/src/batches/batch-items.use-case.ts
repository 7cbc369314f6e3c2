/**
 * `POST /payment/crypto-batches/{batch_id}/items`: more items for a draft batch. The machine's
 * refusal (`batch not draft`, too many items) answers before the items are checked in storage.
 */
import {
  batchRefusalOf,
  type CryptoBatchEvent,
  decodeCryptoBatchItemsRequest,
  type StoreTransaction,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { requirePermission } from '../access/access-control.policy.js';
import { callerAccount } from '../access/caller-account.store.js';
import { handle, orRefuse, refuse } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { batchRepository, type LoadedBatch } from './batch.persistence.js';
import { batchAnswerOf } from './batch.views.js';
import { checkConfiguration } from './batch-configuration.policy.js';

export const addBatchItems = async (
  deps: EngineDeps,
  caller: Caller,
  batchId: string,
  body: unknown,
) => {
  const guard = async (tx: StoreTransaction) => {
    requirePermission(caller, 'payment.payout.create');
    return callerAccount(tx, caller, 'refused', 'payout');
  };
  const target = { id: batchId, scope: caller.account_id, guard };
  const added = await handle(deps, batchRepository, target, async (step) => {
    const { tx, loaded, at, guarded: account } = step;
    const context = loaded.snapshot.context;
    const request = orRefuse(decodeCryptoBatchItemsRequest(context.currency)(body));
    const event: CryptoBatchEvent = {
      type: 'batch.items.add',
      key_id: caller.key_id,
      items: request.items,
      at,
    };
    const refusal = batchRefusalOf(loaded.snapshot, event);
    if (refusal !== undefined) refuse(refusal);
    await checkConfiguration(tx, account, context, request.items, context.items);
    return { event };
  });
  return E.map((batch: LoadedBatch) => batchAnswerOf(batch))(added);
};
