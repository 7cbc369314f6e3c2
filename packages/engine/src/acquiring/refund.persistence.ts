/**
 * How a refund of an order's pay-in is kept (ADR 0044): its machine snapshot (the core's
 * versioned, checked JSON) plus the order and status columns its lists filter on, written
 * together; read and written through `refundRepository`, the command handler's contract for the
 * refund aggregate. Its events go where its order's go (the order's notify webhook).
 */
import {
  type AcquiringRefundEvent,
  type AcquiringRefundInput,
  type AcquiringRefundRecord,
  type AcquiringRefundSnapshot,
  type NewRecord,
  payrailError,
  persistRefund,
  refundStatusOf,
  restoreRefund,
  type StoreReads,
  type StoreTransaction,
} from '@payrail/core';
import { listAll } from '../access/caller-account.store.js';
import { type Repository, refundDecider, refuse } from '../command/command.handler.js';

/** A refund with its snapshot, as read (or last written) in the current unit of work. */
export interface LoadedRefund {
  readonly record: AcquiringRefundRecord;
  readonly snapshot: AcquiringRefundSnapshot;
}

const newRefundRecord = (snapshot: AcquiringRefundSnapshot): NewRecord<AcquiringRefundRecord> => {
  const c = snapshot.context;
  return {
    refund_id: c.refund_id,
    account_id: c.account_id,
    order_id: c.order_id,
    status: refundStatusOf(snapshot),
    client_refund_id: c.client_refund_id,
    snapshot: persistRefund(snapshot),
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
};

const loadedRefundOf = (record: AcquiringRefundRecord): LoadedRefund => ({
  record,
  snapshot: restoreRefund(record.snapshot),
});

/** The refund the account made under `clientRefundId`, if any. */
export const refundOfClientId = async (
  tx: StoreTransaction,
  accountId: string,
  clientRefundId: string,
): Promise<LoadedRefund | undefined> => {
  const record = await tx.acquiringRefunds.findUnique({
    account_id: accountId,
    client_refund_id: clientRefundId,
  });
  return record === undefined ? undefined : loadedRefundOf(record);
};

/** The refunds of an order, oldest first. */
export const refundsOfOrder = async (
  tx: StoreReads,
  accountId: string,
  orderId: string,
): Promise<readonly LoadedRefund[]> =>
  (
    await listAll(tx.acquiringRefunds, {
      scope: accountId,
      where: { order_id: orderId },
      sort: 'asc',
    })
  ).map(loadedRefundOf);

/** The refund aggregate for the command handler. */
export const refundRepository: Repository<
  AcquiringRefundSnapshot,
  AcquiringRefundEvent,
  AcquiringRefundInput,
  LoadedRefund,
  undefined
> = {
  decider: refundDecider,
  idOf: (snapshot) => snapshot.context.refund_id,
  load: async (tx, refundId, scope) => {
    const record = await tx.acquiringRefunds.get(refundId, scope);
    return record === undefined ? refuse(payrailError('refund_not_found')) : loadedRefundOf(record);
  },
  insert: async (tx, snapshot) => ({
    record: await tx.acquiringRefunds.insert(newRefundRecord(snapshot)),
    snapshot,
  }),
  save: async (tx, loaded, snapshot) => ({
    record: await tx.acquiringRefunds.update({
      ...loaded.record,
      status: refundStatusOf(snapshot),
      snapshot: persistRefund(snapshot),
      updated_at: snapshot.context.updated_at,
    }),
    snapshot,
  }),
  routing: ({ context }) => ({
    accountId: context.account_id,
    webhookId: context.notify_webhook_id,
  }),
};
