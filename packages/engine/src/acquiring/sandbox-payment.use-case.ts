/**
 * `POST /admin/sandbox/acquiring/orders/{order_id}/payments` (sandbox only, else `forbidden`):
 * an operator reports a payment to an order as the sandbox provider would, through the one door
 * for payments (`applyPaymentEvent`).
 */
import {
  decodeSandboxPayment,
  type PaymentRecord,
  paymentRecordView,
  payrailError,
  payTokens,
  recordOfTransfer,
  type SandboxPaymentRequest,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { orRefuse, refuse, unitOfWorkRetryingConflicts } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import { applyPaymentEvent } from '../upstream/upstream.use-cases.js';
import {
  depositAddressProviderOf,
  recordDepositAddress,
  requestDepositAddress,
} from './deposit-addresses.store.js';
import { orderRepository } from './order.persistence.js';
import { sandboxPaymentEvent } from './sandbox-payment-event.policy.js';

/**
 * Unnamed, a report of a transfer the order holds is that payment's, as the sandbox provider
 * names every report of one transfer alike: a repeat updates it, never a second record (issue 19,
 * L1). Named, the id is the caller's word, and a second id is refused.
 */
const paymentIdOf = (
  deps: EngineDeps,
  request: SandboxPaymentRequest,
  payments: Readonly<Record<string, PaymentRecord>>,
  address: string,
): string =>
  request.payment_id ??
  (request.tx_hash === undefined
    ? undefined
    : recordOfTransfer(payments, {
        token_id: request.token_id,
        address,
        tx_hash: request.tx_hash,
      })?.payment_id) ??
  deps.ids.next('pay');

export const sandboxPayment = (deps: EngineDeps, orderId: string, body: unknown) => {
  if (deps.settings.environment !== 'sandbox') {
    return Promise.resolve(E.left(payrailError('forbidden')));
  }
  const now = deps.clock.now();
  const depositAddresses = depositAddressProviderOf(deps);
  return unitOfWorkRetryingConflicts(deps.store, async (tx) => {
    const request = orRefuse(decodeSandboxPayment(body));
    const order = await orderRepository.load(tx, orderId);
    const context = order.snapshot.context;
    if (!context.allowed_pay_currencies.includes(request.token_id)) {
      refuse(payrailError('network_currency_not_allowed'));
    }
    const network = payTokens[request.token_id].network;
    // The address the order already shows on that network, else the provider's.
    const address =
      context.selected_token?.network === network
        ? context.selected_token.address
        : await requestDepositAddress(depositAddresses, {
            order_id: context.order_id,
            account_id: context.account_id,
            network,
            token_id: request.token_id,
          });
    await recordDepositAddress(tx, deps.ids, context, network, address, now);
    const paymentId = paymentIdOf(deps, request, context.payments, address);
    const event = sandboxPaymentEvent(request, {
      payment_id: paymentId,
      address,
      existing: context.payments[paymentId],
    });
    const applied = await applyPaymentEvent(deps, tx, order, event, now);
    const payment = applied.payment ?? refuse(payrailError('internal_error'));
    return { payment: paymentRecordView(payment) };
  });
};
