/**
 * What happens to a stored order, inside the caller's unit of work: one machine event decided,
 * the snapshot saved over the version read, and the decision's effects (ledger credit, outbox
 * rows for the order's notify webhook, expiry timer) committed with it. Payments reach an order
 * through `applyPaymentEvent` (upstream/upstream.use-cases.ts), the one door for them.
 */
import type { AcquiringOrderEvent, StoreTransaction } from '@payrail/core';
import { commitDecision, settle } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import type { TimerHandler } from '../workers/timer.worker.js';
import { findOrder, type LoadedOrder, orderRepository } from './order.persistence.js';

/**
 * Decides `event` for the order in the caller's unit of work, through the command handler; the
 * order's refusal (`orderRefusalOf`) answers an event it refuses, and an event it ignores (a
 * duplicate, an early timer) changes and writes nothing.
 */
export const applyOrderEvent = (
  deps: Pick<EngineDeps, 'ids'>,
  tx: StoreTransaction,
  order: LoadedOrder,
  event: AcquiringOrderEvent,
): Promise<LoadedOrder> => commitDecision(tx, deps.ids, orderRepository, order, event, event.at);

/**
 * The order as it stands at `now`: an order past its expire_time whose timer has not fired yet is
 * expired (or underpaid) here and now, committed with its `acquiring.order.updated`, so a read
 * never answers a status the order no longer has (the repository's `dueAt`).
 */
export const settleOrder = (
  deps: Pick<EngineDeps, 'ids'>,
  tx: StoreTransaction,
  order: LoadedOrder,
  now: number,
): Promise<LoadedOrder> => settle(tx, deps.ids, orderRepository, order, now);

/** `order.expiry`: the order expires (or is underpaid) when its expire_time comes. */
export const expiryTimer =
  (deps: Pick<EngineDeps, 'ids'>): TimerHandler =>
  async (tx, timer, now) => {
    const order = await findOrder(tx, timer.business_id, timer.account_id);
    if (order === undefined) return;
    await applyOrderEvent(deps, tx, order, { type: 'acquiring.order.expire', at: now });
  };
