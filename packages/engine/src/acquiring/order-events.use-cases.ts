/**
 * What happens to a stored order, inside the caller's unit of work: one machine event decided,
 * the snapshot saved over the version read, and the decision's effects (ledger credit, outbox
 * rows for the order's notify webhook, expiry timer) committed with it.
 *
 * `applyPaymentEvent` is the one door for payments: the admin API's sandbox payments use it, and
 * so does the upstream webhook receiver (`POST /upstream/acquiring/{provider}`), after its
 * provider normalised the body into `ProviderPaymentEvent`s and the order was found by its
 * deposit address.
 */
import {
  type AcquiringOrderEvent,
  type ChainNetwork,
  isFinalOrder,
  isStoreFailure,
  type PaymentRecord,
  type ProviderPaymentEvent,
  payrailError,
  type StoreTransaction,
} from '@payrail/core';
import { commitDecision, refuse } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import type { TimerHandler } from '../workers/timer.worker.js';
import { findDepositAddress } from './deposit-addresses.store.js';
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
 * The order as it stands at `now`: an order past its expire_time whose timer has not fired yet
 * is expired (or underpaid) here and now, committed with its `acquiring.order.updated`, so a
 * query never answers a status the order no longer has.
 */
export const settleExpiry = (
  deps: EngineDeps,
  tx: StoreTransaction,
  order: LoadedOrder,
  now: number,
): Promise<LoadedOrder> =>
  isFinalOrder(order.snapshot) || now < order.snapshot.context.expire_time
    ? Promise.resolve(order)
    : applyOrderEvent(deps, tx, order, { type: 'acquiring.order.expire', at: now });

export interface AppliedPayment extends LoadedOrder {
  /** The payment's record after the event (unchanged when the event added nothing). */
  readonly payment: PaymentRecord | undefined;
}

/** Where a payment id's first order is kept: the store's idempotency keys, one per payment id. */
const paymentIdScope = 'acquiring.payment_id';

/**
 * Binds `paymentId` to the order that saw it first, in the caller's unit of work (so a refused
 * event binds nothing). An event naming a payment id already bound to another order is refused
 * with `invalid upstream merchant deposit payload`: a provider's id names one transfer to one
 * deposit address, and moving it would leave its first order unable ever to be credited (issue
 * 12; the ledger keys the credit by payment id). A concurrent unit of work that bound it first
 * is read back after its commit (the PostgreSQL stores wait for it).
 */
const bindPaymentId = async (
  tx: StoreTransaction,
  paymentId: string,
  orderId: string,
  at: number,
): Promise<void> => {
  let bound = await tx.idempotency.get(paymentIdScope, paymentId);
  if (bound === undefined) {
    try {
      await tx.idempotency.put({
        scope: paymentIdScope,
        key: paymentId,
        request_hash: '',
        resource_id: orderId,
        created_at: at,
      });
      return;
    } catch (error) {
      if (!(isStoreFailure(error) && error.reason === 'unique_violation')) throw error;
      bound = await tx.idempotency.get(paymentIdScope, paymentId);
    }
  }
  if (bound?.resource_id !== orderId) refuse(payrailError('invalid_upstream_deposit_payload'));
};

/**
 * Applies a provider's normalised payment event to the order at `at`: the payment record is
 * created or moved forward, the order's status follows, confirmed money is credited once
 * (`pay_in`), and a payment after expiry or close is `late` with `anomaly_tag: expired_paid`.
 * A malformed event or one contradicting the recorded transfer is refused with the machine's
 * message (`invalid upstream merchant deposit payload`).
 *
 * A payment id is the provider's id of one transfer, credited under `<payment_id>:pay_in`; one
 * transfer cannot pay two orders, so an event naming a payment id first seen on another order
 * is refused with the same message (`bindPaymentId`; for a payment recorded before ids were
 * bound, the ledger's `duplicate_journal` still refuses a second credit), on every path a
 * payment arrives by. One transfer (token, receiving address, tx_hash) is one record too: the
 * order machine refuses it reported under a second payment id with the same message
 * (`recordOfTransfer`). An address belongs to one order, so the order's own records are where a
 * transfer can be met again, and two racing reports of it under two ids are kept apart by the
 * order's version: the loser reruns on the winner's record and is refused.
 */
export const applyPaymentEvent = async (
  deps: EngineDeps,
  tx: StoreTransaction,
  order: LoadedOrder,
  payment: ProviderPaymentEvent,
  at: number,
): Promise<AppliedPayment> => {
  await bindPaymentId(tx, payment.payment_id, order.record.order_id, at);
  const next = await applyOrderEvent(deps, tx, order, {
    type: 'acquiring.payment.observed',
    payment,
    at,
  }).catch((error: unknown) => {
    if (isStoreFailure(error) && error.reason === 'duplicate_journal') {
      refuse(payrailError('invalid_upstream_deposit_payload'));
    }
    throw error;
  });
  return { ...next, payment: next.snapshot.context.payments[payment.payment_id] };
};

/** The order that handed out `address` on `network`, if any. */
export const findOrderByDepositAddress = async (
  tx: StoreTransaction,
  network: ChainNetwork,
  address: string,
): Promise<LoadedOrder | undefined> => {
  const deposit = await findDepositAddress(tx, network, address);
  return deposit === undefined ? undefined : findOrder(tx, deposit.order_id, deposit.account_id);
};

/** `order.expiry`: the order expires (or is underpaid) when its expire_time comes. */
export const expiryTimer =
  (deps: Pick<EngineDeps, 'ids'>): TimerHandler =>
  async (tx, timer, now) => {
    const order = await findOrder(tx, timer.business_id, timer.account_id);
    if (order === undefined) return;
    await applyOrderEvent(deps, tx, order, { type: 'acquiring.order.expire', at: now });
  };
