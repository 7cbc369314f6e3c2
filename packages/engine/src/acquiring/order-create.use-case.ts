/**
 * `POST /payment/acquiring/orders` (interface "Acquiring", docs/spec/decisions.md §4): a pay-in order, its pay
 * tokens resolved against the account's, its deposit address handed out when the request names
 * the token, created through the command handler with its expiry timer.
 */
import {
  type AccountRecord,
  type AcquiringOrderCreateRequest,
  type AcquiringOrderInput,
  type AcquiringOrderRecord,
  type DepositAddressProvider,
  decodeAcquiringOrderCreate,
  payrailError,
  payTokenFor,
  resolveOrderPayTokens,
  type SelectedPayToken,
  type StoreTransaction,
  validateNotifyWebhook,
  type WebhookRecord,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { requirePermission } from '../access/access-control.policy.js';
import { callerAccount } from '../access/caller-account.store.js';
import {
  create,
  orRefuse,
  refuse,
  together,
  unitOfWorkRetryingConflicts,
} from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { orderAnswerOf } from './acquiring.views.js';
import {
  depositAddressProviderOf,
  recordDepositAddress,
  requestDepositAddress,
} from './deposit-addresses.store.js';
import { orderRepository } from './order.persistence.js';

/** `YYYYMMDD` (UTC) of the creation day, then the order id's own part: readable and unique. */
const platformOrderNoOf = (orderId: string, at: number): string => {
  const day = new Date(at * 1000).toISOString().slice(0, 10).replaceAll('-', '');
  return `${day}${orderId.slice(orderId.indexOf('_') + 1).toUpperCase()}`;
};

/** The token the request names, with the deposit address handed out for it; else none yet. */
const selectedTokenOf = async (
  depositAddresses: DepositAddressProvider | undefined,
  request: AcquiringOrderCreateRequest,
  order: { readonly orderId: string; readonly accountId: string },
): Promise<SelectedPayToken | null> => {
  if (request.network === undefined || request.currency === undefined) return null;
  const token = payTokenFor(request.network, request.currency);
  if (token === undefined) return null;
  return {
    network: token.network,
    currency: token.currency,
    token_id: token.id,
    address: await requestDepositAddress(depositAddresses, {
      order_id: order.orderId,
      account_id: order.accountId,
      network: token.network,
      token_id: token.id,
    }),
  };
};

/** What a new order is checked against besides its account: its webhook, its out_trade_no's holder. */
interface OrderNeighbours {
  readonly webhook: WebhookRecord | undefined;
  readonly taken: AcquiringOrderRecord | undefined;
}

/** What an order whose body is refused reads: nothing (the body's refusal is answered). */
const unread: OrderNeighbours = { webhook: undefined, taken: undefined };

/** Both reads at once: one round trip on a pipelining store. */
const neighboursOf = async (
  tx: StoreTransaction,
  accountId: string,
  request: AcquiringOrderCreateRequest,
): Promise<OrderNeighbours> => {
  const [webhook, taken] = await together([
    tx.webhooks.get(request.notify_webhook_id, accountId),
    tx.acquiringOrders.findUnique({ account_id: accountId, out_trade_no: request.out_trade_no }),
  ]);
  return { webhook, taken };
};

/** The checks of a new order against the account and what it already has. */
const checkRequest = (
  account: AccountRecord,
  request: AcquiringOrderCreateRequest,
  { webhook, taken }: OrderNeighbours,
  depositAddresses: DepositAddressProvider | undefined,
) => {
  const allowed = orRefuse(
    resolveOrderPayTokens(request, {
      enabledPayTokens: account.enabled_pay_tokens,
      defaultPayTokens: account.default_pay_tokens,
    }),
  );
  // Live without a deposit address provider: no order could ever be paid.
  if (depositAddresses === undefined) refuse(payrailError('no_available_pay_tokens'));
  orRefuse(validateNotifyWebhook(webhook));
  if (taken !== undefined) refuse(payrailError('out_trade_no_already_exists'));
  return allowed;
};

const orderInputOf = (
  request: AcquiringOrderCreateRequest,
  order: {
    readonly orderId: string;
    readonly accountId: string;
    readonly allowed: AcquiringOrderInput['allowed_pay_currencies'];
    readonly selected: SelectedPayToken | null;
    readonly now: number;
  },
): AcquiringOrderInput => ({
  order_id: order.orderId,
  platform_order_no: platformOrderNoOf(order.orderId, order.now),
  out_trade_no: request.out_trade_no,
  account_id: order.accountId,
  order_currency: request.order_currency,
  order_amount: request.order_amount,
  // 1 USD = 1 token for the stablecoins (docs/spec/decisions.md §4); a rate port may change this.
  pay_amount: request.order_amount,
  allowed_pay_currencies: order.allowed,
  underpay_tolerance: request.underpay_tolerance,
  expire_time: order.now + request.expire_seconds,
  notify_webhook_id: request.notify_webhook_id,
  checkout_type: request.checkout_type,
  mode: request.mode,
  selected_token: order.selected,
  redirect_automatically: request.redirect_automatically,
  ...(request.redirect_url === undefined ? {} : { redirect_url: request.redirect_url }),
  ...(request.logo_url === undefined ? {} : { logo_url: request.logo_url }),
  ...(request.remark === undefined ? {} : { remark: request.remark }),
  at: order.now,
});

export const createOrder = (deps: EngineDeps, caller: Caller, body: unknown) => {
  const now = deps.clock.now();
  const depositAddresses = depositAddressProviderOf(deps);
  return unitOfWorkRetryingConflicts(deps.store, async (tx) => {
    requirePermission(caller, 'payment.acquiring.create');
    const decoded = decodeAcquiringOrderCreate(body);
    // The account, the webhook and the out_trade_no's holder, read together; the account's
    // refusal still comes before the body's.
    const [account, neighbours] = await together([
      callerAccount(tx, caller, 'refused', 'acquiring'),
      E.isRight(decoded) ? neighboursOf(tx, caller.account_id, decoded.right) : unread,
    ]);
    const request = orRefuse(decoded);
    const allowed = checkRequest(account, request, neighbours, depositAddresses);
    const order = { orderId: deps.ids.next('ord'), accountId: account.account_id };
    const selected = await selectedTokenOf(depositAddresses, request, order);
    const input = orderInputOf(request, { ...order, allowed, selected, now });
    const created = await create(tx, deps.ids, orderRepository, {
      input,
      extra: undefined,
      at: now,
      afterInsert: async () => {
        if (selected === null) return;
        await recordDepositAddress(tx, deps.ids, input, selected.network, selected.address, now);
      },
    });
    return orderAnswerOf(created.snapshot, deps.settings.checkoutBaseUrl);
  });
};
