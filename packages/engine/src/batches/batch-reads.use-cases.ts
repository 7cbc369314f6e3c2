/** The merchant's batch reads (interface "Crypto mass payout"): one batch, and its items. */
import { cryptoBatchItemsView, decodeWith, PageQuery } from '@payrail/core';
import { merchantRead, type ReaderAccess } from '../access/caller-account.store.js';
import { orRefuse } from '../command/command.handler.js';
import type { Caller, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { batchRepository } from './batch.persistence.js';
import { batchAnswerOf } from './batch.views.js';

/** A batch read: `payment.payout.read`, on an account with payouts (frozen may read). */
const readable: ReaderAccess = {
  permissions: ['payment.payout.read'],
  frozen: 'allowed',
  product: 'payout',
};

export const getBatch = (deps: EngineDeps, caller: Caller, batchId: string) =>
  merchantRead(deps.store, caller, readable, async (tx) => {
    return batchAnswerOf(await batchRepository.load(tx, batchId, caller.account_id));
  });

export const batchItems = (deps: EngineDeps, caller: Caller, batchId: string, query: Query) =>
  merchantRead(deps.store, caller, readable, async (tx) => {
    const { limit, offset } = orRefuse(decodeWith(PageQuery)(query));
    const batch = await batchRepository.load(tx, batchId, caller.account_id);
    const all = cryptoBatchItemsView(batch.snapshot);
    return { items: all.slice(offset, offset + limit), total: all.length, limit, offset };
  });
