/**
 * `POST /payment/acquiring/orders/{order_id}/close` (interface "Acquiring"): the merchant closes
 * an order that is not final yet; the order machine decides.
 */
import { decodeAcquiringOrderClose, type StoreTransaction } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { requirePermission } from '../access/access-control.policy.js';
import { callerAccount } from '../access/caller-account.store.js';
import { handle, orRefuse } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { orderAnswerOf } from './acquiring.views.js';
import { type LoadedOrder, orderRepository } from './order.persistence.js';

export const closeOrder = async (
  deps: EngineDeps,
  caller: Caller,
  orderId: string,
  body: unknown,
) => {
  const guard = async (tx: StoreTransaction) => {
    requirePermission(caller, 'payment.acquiring.close');
    await callerAccount(tx, caller, 'refused', 'acquiring');
    return orRefuse(decodeAcquiringOrderClose(body));
  };
  const closed = await handle(
    deps,
    orderRepository,
    { id: orderId, scope: caller.account_id, guard },
    ({ at, guarded: { reason } }) => ({
      event: { type: 'acquiring.order.close' as const, reason, at },
    }),
  );
  return E.map((order: LoadedOrder) =>
    orderAnswerOf(order.snapshot, deps.settings.checkoutBaseUrl),
  )(closed);
};
