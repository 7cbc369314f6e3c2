/**
 * How an acquiring order is kept: its machine snapshot (the core's versioned, checked JSON) plus
 * the `status` column lists filter on, always written together so the two never disagree; read
 * and written through `orderRepository`, the command handler's contract for the order aggregate,
 * and found by the deposit address it handed out (`findDepositAddress`, `orderOfDeposit`).
 */
import {
  type AcquiringOrderEvent,
  type AcquiringOrderInput,
  type AcquiringOrderRecord,
  type AcquiringOrderSnapshot,
  type ChainNetwork,
  canonicalAddress,
  type DepositAddressRecord,
  isFinalOrder,
  isStoreFailure,
  type NewRecord,
  payrailError,
  persistOrder,
  restoreOrder,
  type StoreReads,
  type StoreTransaction,
} from '@payrail/core';
import {
  type EventRouting,
  orderDecider,
  type Repository,
  refuse,
} from '../command/command.handler.js';

/** An order with its snapshot, as read (or last written) in the current unit of work. */
export interface LoadedOrder {
  readonly record: AcquiringOrderRecord;
  readonly snapshot: AcquiringOrderSnapshot;
}

/** A new order's record. */
const newOrderRecord = (snapshot: AcquiringOrderSnapshot): NewRecord<AcquiringOrderRecord> => {
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

/** The order of a record; a corrupt snapshot throws `CorruptSnapshotError` (internal error). */
export const loadedOrderOf = (record: AcquiringOrderRecord): LoadedOrder => ({
  record,
  snapshot: restoreOrder(record.snapshot),
});

/** The order, if it exists (and, with `scope`, belongs to that merchant account). */
export const findOrder = async (
  tx: StoreReads,
  orderId: string,
  scope?: string,
): Promise<LoadedOrder | undefined> => {
  const record = await tx.acquiringOrders.get(orderId, scope);
  return record === undefined ? undefined : loadedOrderOf(record);
};

/**
 * The deposit address handed out as `address` on `network` (spelt as it was recorded: an EVM
 * address is reported in any letter case); `merchant deposit address not found` when no order
 * handed it out.
 */
export const findDepositAddress = async (
  tx: StoreTransaction,
  network: ChainNetwork,
  address: string,
): Promise<DepositAddressRecord> =>
  (await tx.depositAddresses.findUnique({
    network,
    address: canonicalAddress(network, address),
  })) ?? refuse(payrailError('merchant_deposit_address_not_found'));

/** The order that handed `deposit` out; `acquiring order not found` when it is gone. */
export const orderOfDeposit = async (
  tx: StoreTransaction,
  deposit: DepositAddressRecord,
): Promise<LoadedOrder> =>
  (await findOrder(tx, deposit.order_id, deposit.account_id)) ??
  refuse(payrailError('acquiring_order_not_found'));

/** An open order past its expire_time expires (or is underpaid) now, timer or not. */
const expiryDue = (
  snapshot: AcquiringOrderSnapshot,
  now: number,
): AcquiringOrderEvent | undefined =>
  isFinalOrder(snapshot) || now < snapshot.context.expire_time
    ? undefined
    : { type: 'acquiring.order.expire', at: now };

/** A new order; its out_trade_no taken by a concurrent order is `out_trade_no already exists`. */
const insertOrder = async (
  tx: StoreTransaction,
  snapshot: AcquiringOrderSnapshot,
): Promise<LoadedOrder> => {
  try {
    return { record: await tx.acquiringOrders.insert(newOrderRecord(snapshot)), snapshot };
  } catch (error) {
    if (isStoreFailure(error) && error.reason === 'unique_violation') {
      refuse(payrailError('out_trade_no_already_exists'));
    }
    throw error;
  }
};

/** Acquiring events go to the order's notify webhook (when it still subscribes to them). */
const orderRouting = (order: AcquiringOrderSnapshot): EventRouting => ({
  accountId: order.context.account_id,
  webhookId: order.context.notify_webhook_id,
});

/** The acquiring order aggregate for the command handler. */
export const orderRepository: Repository<
  AcquiringOrderSnapshot,
  AcquiringOrderEvent,
  AcquiringOrderInput,
  LoadedOrder,
  undefined
> = {
  decider: orderDecider,
  idOf: (snapshot) => snapshot.context.order_id,
  load: async (tx, orderId, scope) =>
    (await findOrder(tx, orderId, scope)) ?? refuse(payrailError('order_not_found')),
  insert: (tx, snapshot) => insertOrder(tx, snapshot),
  save: async (tx, loaded, snapshot) => ({
    record: await tx.acquiringOrders.update({
      ...loaded.record,
      status: snapshot.value,
      snapshot: persistOrder(snapshot),
      updated_at: snapshot.context.updated_at,
    }),
    snapshot,
  }),
  routing: orderRouting,
  dueAt: expiryDue,
};
