/**
 * Acquiring (interface "Acquiring", decisions §4 and §8): pay-in orders for merchants, the hosted
 * checkout page's calls, the sandbox provider's payments and the expiry timer. Each use case is one
 * unit of work; time is read once per use case.
 *
 * Reads are authoritative (interface: "Query endpoints give the authoritative state"): an order
 * read past its expire_time whose timer has not fired yet is expired in the read's own unit of
 * work, with its webhook, instead of answering a status it no longer has.
 */
import {
  type AcquiringOrderInput,
  AcquiringOrderListQuery,
  type AcquiringOrderRecord,
  acquiringOrderMachine,
  decodeAcquiringOrderClose,
  decodeAcquiringOrderCreate,
  decodePayTokenSelection,
  decodeSandboxPayment,
  decodeWith,
  isStoreFailure,
  type NewRecord,
  paymentRecordView,
  paymentRecordViews,
  payrailError,
  payTokenFor,
  payTokens,
  recordOfTransfer,
  resolveOrderPayTokens,
  restoreOrder,
  type SelectedPayToken,
  type StoreTransaction,
  start,
  validateNotifyWebhook,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { requirePermission } from '../access-control.js';
import { commitEffects } from '../commit-effects.js';
import { unitOfWorkRetryingConflicts } from '../conflict-retry.js';
import type { AdminUseCases, Caller, Engine, Query } from '../engine-api.js';
import type { EngineDeps } from '../engine-deps.js';
import { noteStart } from '../inspection.js';
import { callerAccount } from '../store-reads.js';
import { type Outcome, orRefuse, refuse } from '../unit-of-work.js';
import type { TimerHandler } from '../workers/timer-worker.js';
import { checkoutOrderViewOf, orderAnswerOf, orderViewOf } from './acquiring.views.js';
import {
  depositAddressProviderOf,
  recordDepositAddress,
  requestDepositAddress,
} from './deposit-addresses.js';
import { type LoadedOrder, loadOrder, newOrderRecord } from './order.store.js';
import { applyOrderEvent, applyPaymentEvent, orderRouting, settleExpiry } from './order-events.js';
import { sandboxPaymentEvent } from './sandbox-payments.js';

export interface AcquiringUseCases {
  readonly acquiring: Engine['acquiring'];
  readonly checkout: Engine['checkout'];
  readonly admin: Pick<AdminUseCases, 'sandboxPayment'>;
  readonly timerHandlers: { readonly 'order.expiry': TimerHandler };
}

/** `YYYYMMDD` (UTC) of the creation day, then the order id's own part: readable and unique. */
const platformOrderNoOf = (orderId: string, at: number): string => {
  const day = new Date(at * 1000).toISOString().slice(0, 10).replaceAll('-', '');
  return `${day}${orderId.slice(orderId.indexOf('_') + 1).toUpperCase()}`;
};

const insertOrder = async (
  tx: StoreTransaction,
  record: NewRecord<AcquiringOrderRecord>,
): Promise<AcquiringOrderRecord> => {
  try {
    return await tx.acquiringOrders.insert(record);
  } catch (error) {
    if (isStoreFailure(error) && error.reason === 'unique_violation') {
      refuse(payrailError('out_trade_no_already_exists'));
    }
    throw error;
  }
};

export const acquiringUseCases = (deps: EngineDeps): AcquiringUseCases => {
  const checkoutBaseUrl = deps.settings.checkoutBaseUrl;
  const depositAddresses = depositAddressProviderOf(deps);
  const run = <T>(work: (tx: StoreTransaction) => Promise<T>): Promise<Outcome<T>> =>
    unitOfWorkRetryingConflicts(deps.store, work);

  /** The caller's order as it stands now; another merchant's is `order not found` too. */
  const merchantOrder = async (
    tx: StoreTransaction,
    caller: Caller,
    orderId: string,
    now: number,
  ): Promise<LoadedOrder> => {
    const order =
      (await loadOrder(tx, orderId, caller.account_id)) ?? refuse(payrailError('order_not_found'));
    return settleExpiry(deps, tx, order, now);
  };

  /** An order of the hosted page: it exists and was made for checkout, not direct payment. */
  const checkoutOrder = async (tx: StoreTransaction, orderId: string): Promise<LoadedOrder> => {
    const order = (await loadOrder(tx, orderId)) ?? refuse(payrailError('order_not_found'));
    if (order.snapshot.context.mode === 'direct') refuse(payrailError('checkout_url_not_found'));
    return order;
  };

  const create = (caller: Caller, body: unknown) => {
    const now = deps.clock.now();
    return run(async (tx) => {
      requirePermission(caller, 'payment.acquiring.create');
      const account = await callerAccount(tx, caller, 'refused', 'acquiring');
      const request = orRefuse(decodeAcquiringOrderCreate(body));
      const allowed = orRefuse(
        resolveOrderPayTokens(request, {
          enabledPayTokens: account.enabled_pay_tokens,
          defaultPayTokens: account.default_pay_tokens,
        }),
      );
      // Live without a deposit address provider: no order could ever be paid.
      if (depositAddresses === undefined) refuse(payrailError('no_available_pay_tokens'));
      orRefuse(
        validateNotifyWebhook(await tx.webhooks.get(request.notify_webhook_id, account.account_id)),
      );
      const taken = await tx.acquiringOrders.findUnique({
        account_id: account.account_id,
        out_trade_no: request.out_trade_no,
      });
      if (taken !== undefined) refuse(payrailError('out_trade_no_already_exists'));

      const orderId = deps.ids.next('ord');
      const token =
        request.network === undefined || request.currency === undefined
          ? undefined
          : payTokenFor(request.network, request.currency);
      const selected: SelectedPayToken | null =
        token === undefined
          ? null
          : {
              network: token.network,
              currency: token.currency,
              token_id: token.id,
              address: await requestDepositAddress(depositAddresses, {
                order_id: orderId,
                account_id: account.account_id,
                network: token.network,
                token_id: token.id,
              }),
            };
      const input: AcquiringOrderInput = {
        order_id: orderId,
        platform_order_no: platformOrderNoOf(orderId, now),
        out_trade_no: request.out_trade_no,
        account_id: account.account_id,
        order_currency: request.order_currency,
        order_amount: request.order_amount,
        // 1 USD = 1 token for the stablecoins (decisions §4); a rate port may change this.
        pay_amount: request.order_amount,
        allowed_pay_currencies: allowed,
        underpay_tolerance: request.underpay_tolerance,
        expire_time: now + request.expire_seconds,
        notify_webhook_id: request.notify_webhook_id,
        checkout_type: request.checkout_type,
        mode: request.mode,
        selected_token: selected,
        redirect_automatically: request.redirect_automatically,
        ...(request.redirect_url === undefined ? {} : { redirect_url: request.redirect_url }),
        ...(request.logo_url === undefined ? {} : { logo_url: request.logo_url }),
        ...(request.remark === undefined ? {} : { remark: request.remark }),
        at: now,
      };
      const { snapshot, effects } = start(acquiringOrderMachine, input);
      noteStart(tx, { machine: acquiringOrderMachine, id: orderId, input, snapshot });
      await insertOrder(tx, newOrderRecord(snapshot));
      if (selected !== null) {
        await recordDepositAddress(tx, deps.ids, input, selected.network, selected.address, now);
      }
      await commitEffects(tx, deps.ids, effects, orderRouting(snapshot), now);
      return orderAnswerOf(snapshot, checkoutBaseUrl);
    });
  };

  const get = (caller: Caller, orderId: string) => {
    const now = deps.clock.now();
    return run(async (tx) => {
      requirePermission(caller, 'payment.acquiring.read');
      await callerAccount(tx, caller, 'allowed', 'acquiring');
      const order = await merchantOrder(tx, caller, orderId, now);
      return orderAnswerOf(order.snapshot, checkoutBaseUrl);
    });
  };

  const list = (caller: Caller, query: Query) => {
    const now = deps.clock.now();
    return run(async (tx) => {
      requirePermission(caller, 'payment.acquiring.read');
      await callerAccount(tx, caller, 'allowed', 'acquiring');
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
        const order = await settleExpiry(
          deps,
          tx,
          { record, snapshot: restoreOrder(record.snapshot) },
          now,
        );
        items.push(orderViewOf(order.snapshot, checkoutBaseUrl));
      }
      return { items, total: page.total, limit: page.limit, offset: page.offset };
    });
  };

  const payments = (caller: Caller, orderId: string) => {
    const now = deps.clock.now();
    return run(async (tx) => {
      requirePermission(caller, 'payment.acquiring.read');
      await callerAccount(tx, caller, 'allowed', 'acquiring');
      const order = await merchantOrder(tx, caller, orderId, now);
      const items = paymentRecordViews(order.snapshot);
      return { items, total: items.length, limit: items.length, offset: 0 };
    });
  };

  const close = (caller: Caller, orderId: string, body: unknown) => {
    const now = deps.clock.now();
    return run(async (tx) => {
      requirePermission(caller, 'payment.acquiring.close');
      await callerAccount(tx, caller, 'refused', 'acquiring');
      const { reason } = orRefuse(decodeAcquiringOrderClose(body));
      const order =
        (await loadOrder(tx, orderId, caller.account_id)) ??
        refuse(payrailError('order_not_found'));
      const closed = await applyOrderEvent(deps, tx, order, {
        type: 'acquiring.order.close',
        reason,
        at: now,
      });
      return orderAnswerOf(closed.snapshot, checkoutBaseUrl);
    });
  };

  const checkoutView = (orderId: string) => {
    const now = deps.clock.now();
    return run(async (tx) => {
      const order = await settleExpiry(deps, tx, await checkoutOrder(tx, orderId), now);
      return { order: checkoutOrderViewOf(order.snapshot) };
    });
  };

  const selectToken = (orderId: string, body: unknown) => {
    const now = deps.clock.now();
    return run(async (tx) => {
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

  const sandboxPayment = (orderId: string, body: unknown) => {
    if (deps.settings.environment !== 'sandbox') {
      return Promise.resolve(E.left(payrailError('forbidden')));
    }
    const now = deps.clock.now();
    return run(async (tx) => {
      const request = orRefuse(decodeSandboxPayment(body));
      const order = (await loadOrder(tx, orderId)) ?? refuse(payrailError('order_not_found'));
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
      // Unnamed, a report of a transfer the order holds is that payment's, as the sandbox
      // provider names every report of one transfer alike: a repeat updates it, never a second
      // record (issue 19, L1). Named, the id is the caller's word, and a second id is refused.
      const paymentId =
        request.payment_id ??
        (request.tx_hash === undefined
          ? undefined
          : recordOfTransfer(context.payments, {
              token_id: request.token_id,
              address,
              tx_hash: request.tx_hash,
            })?.payment_id) ??
        deps.ids.next('pay');
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

  const expiryTimer: TimerHandler = async (tx, timer, now) => {
    const order = await loadOrder(tx, timer.business_id, timer.account_id);
    if (order === undefined) return;
    await applyOrderEvent(deps, tx, order, { type: 'acquiring.order.expire', at: now });
  };

  return {
    acquiring: { create, get, list, payments, close },
    checkout: { order: checkoutView, selectToken },
    admin: { sandboxPayment },
    timerHandlers: { 'order.expiry': expiryTimer },
  };
};
