/**
 * Exception handling of acquiring orders (issue 21, ADR 0044): an operator sees an order with its
 * payment records (late ones included) and refunds, and resolves an `underpaid`, `expired` or
 * `expired_paid` order: accepted as paid (`completed`, with the reason), or refused (`closed`)
 * with everything it was credited refunded, token by token, to the address the operator names,
 * each refund waiting for a second operator's approval.
 * The resolution and its refunds are one unit of work and one audited act; the order sends
 * `acquiring.order.updated`, each refund its `acquiring.refund.*`.
 */
import {
  acquiringRefundView,
  creditedByToken,
  decodeOrderResolve,
  type IdGenerator,
  paymentRecordViews,
  payrailError,
  refundableOf,
  type StoreTransaction,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import {
  clockedUnitOfWork,
  commitDecision,
  refuse,
  unitOfWorkRetryingConflicts,
} from '../command/command.handler.js';
import type { Operator } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { orderAnswerOf } from './acquiring.views.js';
import { type LoadedOrder, orderRepository } from './order.persistence.js';
import { settleOrder } from './order-events.use-cases.js';
import { type LoadedRefund, refundsOfOrder } from './refund.persistence.js';
import { refundDecision } from './refund.use-cases.js';

/**
 * Refunds all that every token of a refused order can still give back, to `address` (`refund_address
 * required` when there is anything to refund and no address). Each waits for another operator's
 * approval: the one who named the address may not also send the money there.
 */
const refundEverything = async (
  tx: StoreTransaction,
  ids: IdGenerator,
  refused: LoadedOrder,
  address: string | undefined,
  operator: Operator,
  at: number,
  created: (refund: LoadedRefund) => void,
): Promise<LoadedOrder> => {
  let order = refused;
  // Four eyes: another operator approves where the money goes (ADR 0044).
  const requester = { requested_by: `operator:${operator.operator_id}`, review_required: true };
  // Token by token in id order: a stored order's payments come back in any key order (JSONB), and
  // the refunds (their ids, and which refusal answers first) must not depend on the store.
  for (const token of [...creditedByToken(order.snapshot.context).keys()].sort()) {
    if (refundableOf(order.snapshot.context, token).lessThanOrEqualTo(0)) continue;
    const to = address ?? refuse(payrailError('field_required', { field: 'refund_address' }));
    const request = { refund_type: 'full' as const, token_id: token, address: to };
    const { event, beforeSave } = await refundDecision(
      tx,
      ids,
      order,
      request,
      requester,
      at,
      created,
    );
    order = await commitDecision(tx, ids, orderRepository, order, event, at, beforeSave);
  }
  return order;
};

/** `POST /admin/acquiring/orders/{order_id}/resolve`. */
export const resolveOrder = async (
  deps: EngineDeps,
  operator: Operator,
  orderId: string,
  body: unknown,
) => {
  const resolution = decodeOrderResolve(body);
  if (E.isLeft(resolution)) return resolution;
  const { action, reason, refund_address } = resolution.right;
  let refunds: LoadedRefund[] = [];
  const resolved = await clockedUnitOfWork(deps, async (tx, at) => {
    refunds = [];
    const order = await orderRepository.load(tx, orderId);
    const event = {
      type: 'acquiring.order.resolve' as const,
      action,
      reason,
      operator_id: operator.operator_id,
      at,
    };
    const decided = await commitDecision(tx, deps.ids, orderRepository, order, event, at);
    return action === 'accept'
      ? decided
      : refundEverything(tx, deps.ids, decided, refund_address, operator, at, (refund) => {
          refunds.push(refund);
        });
  });
  return E.map((order: LoadedOrder) => ({
    ...orderAnswerOf(order.snapshot, deps.settings.checkoutBaseUrl),
    refunds: refunds.map((refund) => acquiringRefundView(refund.snapshot)),
  }))(resolved);
};

/** `GET /admin/acquiring/orders/{order_id}`: any merchant's order, its payments and refunds. */
export const adminOrder = (deps: EngineDeps, orderId: string) => {
  const now = deps.clock.now();
  return unitOfWorkRetryingConflicts(deps.store, async (tx) => {
    const order = await settleOrder(deps, tx, await orderRepository.load(tx, orderId), now);
    const { account_id } = order.snapshot.context;
    return {
      ...orderAnswerOf(order.snapshot, deps.settings.checkoutBaseUrl),
      payments: paymentRecordViews(order.snapshot),
      refunds: (await refundsOfOrder(tx, account_id, orderId)).map((refund) =>
        acquiringRefundView(refund.snapshot),
      ),
    };
  });
};
