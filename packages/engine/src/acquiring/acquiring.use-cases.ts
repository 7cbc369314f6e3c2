/**
 * Acquiring (interface "Acquiring", decisions §4 and §8): pay-in orders for merchants, the hosted
 * checkout page's calls, the sandbox provider's payments and the expiry timer, each in its own
 * file; every change of an order goes through the command handler (`command/command.handler.ts`).
 */
import type { AdminUseCases, Engine } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import type { TimerHandler } from '../workers/timer.worker.js';
import { checkoutView, selectToken } from './checkout.use-cases.js';
import { closeOrder } from './order-close.use-case.js';
import { createOrder } from './order-create.use-case.js';
import { expiryTimer } from './order-events.use-cases.js';
import { getOrder, listOrders, orderPayments } from './order-reads.use-cases.js';
import { sandboxPayment } from './sandbox-payment.use-case.js';

export interface AcquiringUseCases {
  readonly acquiring: Engine['acquiring'];
  readonly checkout: Engine['checkout'];
  readonly admin: Pick<AdminUseCases, 'sandboxPayment'>;
  readonly timerHandlers: { readonly 'order.expiry': TimerHandler };
}

export const acquiringUseCases = (deps: EngineDeps): AcquiringUseCases => ({
  acquiring: {
    create: (caller, body) => createOrder(deps, caller, body),
    get: (caller, orderId) => getOrder(deps, caller, orderId),
    list: (caller, query) => listOrders(deps, caller, query),
    payments: (caller, orderId) => orderPayments(deps, caller, orderId),
    close: (caller, orderId, body) => closeOrder(deps, caller, orderId, body),
  },
  checkout: {
    order: (orderId) => checkoutView(deps, orderId),
    selectToken: (orderId, body) => selectToken(deps, orderId, body),
  },
  admin: { sandboxPayment: (orderId, body) => sandboxPayment(deps, orderId, body) },
  timerHandlers: { 'order.expiry': expiryTimer(deps) },
});
