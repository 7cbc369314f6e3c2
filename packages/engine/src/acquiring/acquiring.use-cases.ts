/**
 * Acquiring (interface "Acquiring", docs/spec/decisions.md §4 and §8): pay-in orders for merchants, the hosted
 * checkout page's calls, the sandbox provider's payments and the expiry timer, each in its own
 * file; every change of an order goes through the command handler (`command/command.handler.ts`).
 */
import type { AdminUseCases, Engine, Operator } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import type { TimerHandler } from '../workers/timer.worker.js';
import { checkoutView, selectToken } from './checkout.use-cases.js';
import { closeOrder } from './order-close.use-case.js';
import { createOrder } from './order-create.use-case.js';
import { expiryTimer } from './order-events.use-cases.js';
import { getOrder, listOrders, orderPayments } from './order-reads.use-cases.js';
import { adminOrder, resolveOrder } from './order-resolution.use-cases.js';
import {
  createRefund,
  getRefund,
  orderRefunds,
  refundExecuteTimer,
  refundExecutionReport,
  reviewRefund,
  sandboxRefundExecution,
} from './refund.use-cases.js';
import { sandboxPayment } from './sandbox-payment.use-case.js';

export interface AcquiringUseCases {
  readonly acquiring: Engine['acquiring'];
  readonly checkout: Engine['checkout'];
  readonly admin: Pick<AdminUseCases, 'sandboxPayment' | 'getOrder' | 'sandboxRefundExecution'>;
  /** The operator's acts that name the operator on what they decide (`actAs`). */
  readonly operatorActs: {
    readonly resolveOrder: (
      operator: Operator,
      orderId: string,
      body: unknown,
    ) => ReturnType<Engine['admin']['resolveOrder']>;
    readonly reviewRefund: (
      operator: Operator,
      refundId: string,
      body: unknown,
    ) => ReturnType<Engine['admin']['reviewRefund']>;
  };
  readonly executions: Pick<Engine['executions'], 'reportRefund'>;
  readonly timerHandlers: {
    readonly 'order.expiry': TimerHandler;
    readonly 'refund.execute': TimerHandler;
  };
}

export const acquiringUseCases = (deps: EngineDeps): AcquiringUseCases => ({
  acquiring: {
    create: (caller, body) => createOrder(deps, caller, body),
    get: (caller, orderId) => getOrder(deps, caller, orderId),
    list: (caller, query) => listOrders(deps, caller, query),
    payments: (caller, orderId) => orderPayments(deps, caller, orderId),
    close: (caller, orderId, body) => closeOrder(deps, caller, orderId, body),
    refund: (caller, orderId, body) => createRefund(deps, caller, orderId, body),
    refunds: (caller, orderId) => orderRefunds(deps, caller, orderId),
    getRefund: (caller, refundId) => getRefund(deps, caller, refundId),
  },
  checkout: {
    order: (orderId) => checkoutView(deps, orderId),
    selectToken: (orderId, body) => selectToken(deps, orderId, body),
  },
  admin: {
    sandboxPayment: (orderId, body) => sandboxPayment(deps, orderId, body),
    getOrder: (orderId) => adminOrder(deps, orderId),
    sandboxRefundExecution: (refundId, body) => sandboxRefundExecution(deps, refundId, body),
  },
  operatorActs: {
    resolveOrder: (operator, orderId, body) => resolveOrder(deps, operator, orderId, body),
    reviewRefund: (operator, refundId, body) => reviewRefund(deps, operator, refundId, body),
  },
  executions: { reportRefund: (refundId, body) => refundExecutionReport(deps, refundId, body) },
  timerHandlers: { 'order.expiry': expiryTimer(deps), 'refund.execute': refundExecuteTimer(deps) },
});
