/**
 * How an acquiring order is kept: its machine snapshot (the core's versioned, checked JSON) plus
 * the `status` column lists filter on, always written together so the two never disagree.
 */
import {
  type AcquiringOrderRecord,
  type AcquiringOrderSnapshot,
  type NewRecord,
  persistOrder,
  restoreOrder,
  type StoreTransaction,
} from '@payrail/core';

/** A new order's record. */
export const newOrderRecord = (
  snapshot: AcquiringOrderSnapshot,
): NewRecord<AcquiringOrderRecord> => {
  const c = snapshot.context;
  return {
    order_id: c.order_id,
    account_id: c.account_id,
    out_trade_no: c.out_trade_no,
    status: snapshot.value,
    snapshot: persistOrder(snapshot),
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
};

/** Writes the next snapshot over the version that was read (optimistic concurrency). */
export const saveOrder = (
  tx: StoreTransaction,
  read: AcquiringOrderRecord,
  snapshot: AcquiringOrderSnapshot,
): Promise<AcquiringOrderRecord> =>
  tx.acquiringOrders.update({
    ...read,
    status: snapshot.value,
    snapshot: persistOrder(snapshot),
    updated_at: snapshot.context.updated_at,
  });

/** An order with its snapshot, as read (or last written) in the current unit of work. */
export interface LoadedOrder {
  readonly record: AcquiringOrderRecord;
  readonly snapshot: AcquiringOrderSnapshot;
}

/** The order, if it exists (and, with `scope`, belongs to that merchant account). */
export const loadOrder = async (
  tx: StoreTransaction,
  orderId: string,
  scope?: string,
): Promise<LoadedOrder | undefined> => {
  const record = await tx.acquiringOrders.get(orderId, scope);
  return record === undefined ? undefined : { record, snapshot: restoreOrder(record.snapshot) };
};
