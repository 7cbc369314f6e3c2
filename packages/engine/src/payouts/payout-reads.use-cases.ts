/**
 * The merchant's payout reads (interface "Fiat payout"): one payout, and the list filtered by
 * reference, client_request_id, statuses and creation time. Another merchant's payout is
 * `payout not found`.
 */
import {
  decodeWith,
  type PayoutListQuery as PayoutListFilter,
  PayoutListQuery,
  payoutResourceOf,
} from '@payrail/core';
import { merchantRead } from '../access/caller-account.store.js';
import { pageView } from '../access/list-pages.views.js';
import { orRefuse } from '../command/command.handler.js';
import type { Caller, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { loadedPayoutOf, payoutRepository } from './payout.persistence.js';
import { payoutReader } from './payout-account.policy.js';

export const getPayout = (deps: EngineDeps, caller: Caller, payoutId: string) =>
  merchantRead(deps.store, caller, payoutReader('payment.payout.read'), async (tx) => {
    const { snapshot } = await payoutRepository.load(tx, payoutId, caller.account_id);
    return { payout: payoutResourceOf(snapshot) };
  });

/** The list's filters as the store's `where` (only those the query gives). */
const whereOf = (q: PayoutListFilter) => ({
  ...(q.reference === undefined ? {} : { reference: q.reference }),
  ...(q.client_request_id === undefined ? {} : { client_request_id: q.client_request_id }),
  ...(q.status === undefined ? {} : { status: q.status }),
  ...(q.review_status === undefined ? {} : { review_status: q.review_status }),
  ...(q.execution_status === undefined ? {} : { execution_status: q.execution_status }),
});

export const listPayouts = (deps: EngineDeps, caller: Caller, query: Query) =>
  merchantRead(deps.store, caller, payoutReader('payment.payout.read'), async (tx) => {
    const q = orRefuse(decodeWith(PayoutListQuery)(query));
    const page = await tx.payouts.list({
      scope: caller.account_id,
      where: whereOf(q),
      ...(q.start_at === undefined ? {} : { createdFrom: q.start_at }),
      ...(q.end_at === undefined ? {} : { createdTo: q.end_at }),
      limit: q.limit,
      offset: q.offset,
    });
    return pageView(page, (record) => payoutResourceOf(loadedPayoutOf(record).snapshot));
  });
