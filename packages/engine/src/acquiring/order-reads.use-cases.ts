/**
 * The merchant's order reads (interface "Acquiring"): one order, the list, and an order's payment
 * records. Reads are authoritative (interface: "Query endpoints give the authoritative state"):
 * an order read past its expire_time whose timer has not fired yet is expired in the read's own
 * unit of work, with its webhook, instead of answering a status it no longer has. One order's
 * read carries its refunds too (ADR 0044).
 */
import {
  AcquiringOrderListQuery,
  acquiringRefundView,
  decodeWith,
  paymentRecordViews,
  type StoreTransaction,
} from '@payrail/core';
import { requirePermission } from '../access/access-control.policy.js';
import { callerAccount } from '../access/caller-account.store.js';
import { orRefuse, unitOfWorkRetryingConflicts } from '../command/command.handler.js';
import type { Caller, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { orderAnswerOf, orderViewOf } from './acquiring.views.js';
import { type LoadedOrder, loadedOrderOf, orderRepository } from './order.persistence.js';
import { settleOrder } from './order-events.use-cases.js';
import { refundsOfOrder } from './refund.persistence.js';

/** An acquiring read: `payment.acquiring.read`, on an account with acquiring (frozen may read). */
const readable = async (tx: StoreTransaction, caller: Caller) => {
  requirePermission(caller, 'payment.acquiring.read');
  await callerAccount(tx, caller, 'allowed', 'acquiring');
};

/** The caller's order as it stands now; another merchant's is `order not found` too. */
const merchantOrder = async (
  deps: EngineDeps,
  tx: StoreTransaction,
  caller: Caller,
  orderId: string,
  now: number,
): Promise<LoadedOrder> =>
  settleOrder(deps, tx, await orderRepository.load(tx, orderId, caller.account_id), now);

export const getOrder = (deps: EngineDeps, caller: Caller, orderId: string) => {
  const now = deps.clock.now();
  return unitOfWorkRetryingConflicts(deps.store, async (tx) => {
    await readable(tx, caller);
    const order = await merchantOrder(deps, tx, caller, orderId, now);
    const refunds = await refundsOfOrder(tx, caller.account_id, orderId);
    return {
      ...orderAnswerOf(order.snapshot, deps.settings.checkoutBaseUrl),
      refunds: refunds.map((refund) => acquiringRefundView(refund.snapshot)),
    };
  });
};

export const listOrders = (deps: EngineDeps, caller: Caller, query: Query) => {
  const now = deps.clock.now();
  return unitOfWorkRetryingConflicts(deps.store, async (tx) => {
    await readable(tx, caller);
    const q = orRefuse(decodeWith(AcquiringOrderListQuery)(query));
    const page = await tx.acquiringOrders.list({
      scope: caller.account_id,
      where: {
        ...(q.out_trade_no === undefined ? {} : { out_trade_no: q.out_trade_no }),
        ...(q.status === undefined ? {} : { status: q.status }),
      },
      ...(q.start_at === undefined ? {} : { createdFrom: q.start_at }),
      ...(q.end_at === undefined ? {} : { createdTo: q.end_at }),
      limit: q.limit,
      offset: q.offset,
    });
    const items = [];
    for (const record of page.items) {
      const order = await settleOrder(deps, tx, loadedOrderOf(record), now);
      items.push(orderViewOf(order.snapshot, deps.settings.checkoutBaseUrl));
    }
    return { items, total: page.total, limit: page.limit, offset: page.offset };
  });
};

export const orderPayments = (deps: EngineDeps, caller: Caller, orderId: string) => {
  const now = deps.clock.now();
  return unitOfWorkRetryingConflicts(deps.store, async (tx) => {
    await readable(tx, caller);
    const order = await merchantOrder(deps, tx, caller, orderId, now);
    const items = paymentRecordViews(order.snapshot);
    return { items, total: items.length, limit: items.length, offset: 0 };
  });
};
