/** The merchant's batch reads (interface "Crypto mass payout"): one batch, and its items. */
import { cryptoBatchItemsView, decodeWith, PageQuery, type StoreReads } from '@payrail/core';
import { requirePermission } from '../access/access-control.policy.js';
import { callerAccount } from '../access/caller-account.store.js';
import { orRefuse, readUnit } from '../command/command.handler.js';
import type { Caller, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { batchRepository } from './batch.persistence.js';
import { batchAnswerOf } from './batch.views.js';

/** A batch read: `payment.payout.read`, on an account with payouts (frozen may read). */
const readable = async (tx: StoreReads, caller: Caller) => {
  requirePermission(caller, 'payment.payout.read');
  await callerAccount(tx, caller, 'allowed', 'payout');
};

export const getBatch = (deps: EngineDeps, caller: Caller, batchId: string) =>
  readUnit(deps.store, async (tx) => {
    await readable(tx, caller);
    return batchAnswerOf(await batchRepository.load(tx, batchId, caller.account_id));
  });

export const batchItems = (deps: EngineDeps, caller: Caller, batchId: string, query: Query) =>
  readUnit(deps.store, async (tx) => {
    await readable(tx, caller);
    const { limit, offset } = orRefuse(decodeWith(PageQuery)(query));
    const batch = await batchRepository.load(tx, batchId, caller.account_id);
    const all = cryptoBatchItemsView(batch.snapshot);
    return { items: all.slice(offset, offset + limit), total: all.length, limit, offset };
  });
