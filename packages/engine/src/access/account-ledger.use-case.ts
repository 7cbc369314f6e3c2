/**
 * `accounts.ledger`: the caller's ledger records, each with the merchant's reference of the
 * payout it belongs to (interface "Account (read-only)").
 */
import {
  decodeWith,
  type LedgerEntry,
  LedgerListQuery,
  type LedgerQuery,
  type StoreReads,
} from '@payrail/core';
import { orRefuse, readUnit } from '../command/command.handler.js';
import type { Caller, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { ledgerEntryView } from './access.views.js';
import { requirePermission } from './access-control.policy.js';
import { createdWithin, definedOf } from './list-filters.store.js';
import { pageView } from './list-pages.views.js';

/**
 * The merchant's reference of each payout on a page of ledger records. Pay-ins are journalled
 * per payment (business_id is the payment_id, found through the order's payments) and deposits
 * have no merchant number, so only payouts have one.
 */
export const payoutReferencesOf = async (
  tx: StoreReads,
  accountId: string,
  entries: readonly LedgerEntry[],
): Promise<ReadonlyMap<string, string>> => {
  const references = new Map<string, string>();
  for (const entry of entries) {
    if (entry.business_type !== 'payout' || references.has(entry.business_id)) continue;
    const payout = await tx.payouts.get(entry.business_id, accountId);
    if (payout) references.set(entry.business_id, payout.reference);
  }
  return references;
};

const ledgerQuery = (caller: Caller, query: LedgerListQuery): LedgerQuery => ({
  accountId: caller.account_id,
  ...definedOf(query, ['currency']),
  ...(query.record_type === undefined ? {} : { recordType: query.record_type }),
  ...createdWithin(query),
  sort: query.sort_order,
  limit: query.limit,
  offset: query.offset,
});

export const accountLedger = (deps: EngineDeps, caller: Caller, raw: Query) =>
  readUnit(deps.store, async (tx) => {
    requirePermission(caller, 'payment.ledger.read');
    const query = orRefuse(decodeWith(LedgerListQuery)(raw));
    const page = await tx.ledger.entries(ledgerQuery(caller, query));
    const references = await payoutReferencesOf(tx, caller.account_id, page.items);
    return pageView(page, (entry) =>
      ledgerEntryView(
        entry,
        entry.business_type === 'payout' ? (references.get(entry.business_id) ?? null) : null,
      ),
    );
  });
