/**
 * The hosted checkout page's calls (interface "Acquiring", ADR 0016): the order as the payer sees
 * it, and the payer's choice of pay token, which hands out the deposit address on its network.
 * Only orders made for checkout are shown; a direct order is `checkout url not found`.
 */
import { decodePayTokenSelection, payrailError, type StoreTransaction } from '@payrail/core';
import { orRefuse, refuse, unitOfWorkRetryingConflicts } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import { checkoutOrderViewOf } from './acquiring.views.js';
import {
  depositAddressProviderOf,
  recordDepositAddress,
  requestDepositAddress,
} from './deposit-addresses.store.js';
import { type LoadedOrder, orderRepository } from './order.persistence.js';
import { applyOrderEvent, settleOrder } from './order-events.use-cases.js';
import { refundsOfOrder } from './refund.persistence.js';

/** An order of the hosted page: it exists and was made for checkout, not direct payment. */
const checkoutOrder = async (tx: StoreTransaction, orderId: string): Promise<LoadedOrder> => {
  const order = await orderRepository.load(tx, orderId);
  if (order.snapshot.context.mode === 'direct') refuse(payrailError('checkout_url_not_found'));
  return order;
};

/** `GET /checkout/orders/{order_id}`: the order as it stands now. */
export const checkoutView = (deps: EngineDeps, orderId: string) => {
  const now = deps.clock.now();
  return unitOfWorkRetryingConflicts(deps.store, async (tx) => {
    const order = await settleOrder(deps, tx, await checkoutOrder(tx, orderId), now);
    const refunds = await refundsOfOrder(tx, order.snapshot.context.account_id, orderId);
    return {
      order: checkoutOrderViewOf(
        order.snapshot,
        refunds.map((refund) => refund.snapshot),
      ),
    };
  });
};

/** `POST /checkout/orders/{order_id}/pay-token`: the payer picks a token; its address is shown. */
export const selectToken = (deps: EngineDeps, orderId: string, body: unknown) => {
  const now = deps.clock.now();
  const depositAddresses = depositAddressProviderOf(deps);
  return unitOfWorkRetryingConflicts(deps.store, async (tx) => {
    const order = await checkoutOrder(tx, orderId);
    const token = orRefuse(
      decodePayTokenSelection(body, order.snapshot.context.allowed_pay_currencies),
    );
    const context = order.snapshot.context;
    const address = await requestDepositAddress(depositAddresses, {
      order_id: context.order_id,
      account_id: context.account_id,
      network: token.network,
      token_id: token.id,
    });
    const selected = await applyOrderEvent(deps, tx, order, {
      type: 'acquiring.order.select_token',
      token_id: token.id,
      address,
      at: now,
    });
    await recordDepositAddress(tx, deps.ids, context, token.network, address, now);
    return { order: checkoutOrderViewOf(selected.snapshot) };
  });
};
