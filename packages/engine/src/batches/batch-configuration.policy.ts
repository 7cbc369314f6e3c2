/**
 * What a crypto batch's items must satisfy in storage (docs/spec/decisions.md §6): an active crypto method,
 * no order_no taken by the merchant's payouts or open batches, and one route that serves every
 * item. The pure rules are the core's (`cryptoBatchConfigurationRefusal`); this reads what they
 * are checked against.
 */
import {
  type AccountRecord,
  type CryptoBatchItem,
  type CryptoCurrency,
  cryptoBatchConfigurationRefusal,
  cryptoMethodRefusal,
  type StoreTransaction,
} from '@payrail/core';
import { refuse } from '../command/command.handler.js';
import {
  batchItemRouter,
  batchRoute,
  loadBatchRoutes,
  takenReferences,
} from './batch-payouts.use-cases.js';

/** The storage-backed rules of new items: method, duplicates, references, one route. */
export const checkConfiguration = async (
  tx: StoreTransaction,
  account: AccountRecord,
  batch: {
    readonly currency: CryptoCurrency;
    readonly method_id: number;
    readonly batch_id?: string;
  },
  items: readonly CryptoBatchItem[],
  existing: readonly CryptoBatchItem[],
): Promise<void> => {
  const method = await tx.payoutMethods.get(batch.method_id);
  if (items.length === 0 && existing.length === 0) {
    // An empty draft (created without items): nothing to route yet, but the method must be
    // a crypto one already. Approving or submitting it is `batch has no items`.
    const refusal = cryptoMethodRefusal(
      method?.status === 'active' ? method.currency_type : undefined,
    );
    if (refusal !== undefined) refuse(refusal);
    return;
  }
  const routes = await loadBatchRoutes(tx, batch.currency, batch.method_id);
  const refusal = cryptoBatchConfigurationRefusal({
    items,
    existing_items: existing,
    method_currency_type: method?.status === 'active' ? method.currency_type : undefined,
    taken_references: await takenReferences(tx, account.account_id, items, batch.batch_id),
    route_of: batchItemRouter(routes, account.account_id),
  });
  if (refusal !== undefined) refuse(refusal);
  batchRoute(routes, account.account_id, [...existing, ...items]);
};
