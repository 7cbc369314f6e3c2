/**
 * The answers of acquiring: the merchant's `data.order` (the core's `acquiringOrderView`), the
 * payment address an order hands out, its payment records, the hosted checkout's public page
 * data (no merchant secret, no notify webhook, no note) and what an upstream provider's events
 * did.
 */
import * as t from 'io-ts';
import { resolutionActions } from '../machines/acquiring-order.machine.js';
import { refundStatuses } from '../machines/acquiring-refund.machine.js';
import { orderStatuses, paymentStatuses } from '../machines/order-status.js';
import { cryptoCurrencies } from '../money/money.js';
import { chainNetworks, payTokenIds } from '../money/pay-tokens.js';
import { RefundView } from './acquiring-refund.codecs.js';
import {
  DecimalString,
  nullable,
  oneOf,
  timestamps,
  UnixSeconds,
  WholeNumber,
} from './common-answers.codecs.js';

const OrderStatusCode = oneOf('OrderStatus', orderStatuses);
const PaymentStatusCode = oneOf('PaymentStatus', paymentStatuses);
const PayTokenIdCode = oneOf('PayTokenId', payTokenIds);
const ChainNetworkCode = t.keyof(chainNetworks);
const CryptoCurrencyCode = oneOf('CryptoCurrency', cryptoCurrencies);

/** An operator's resolution of an order's exception (ADR 0044). */
export const OrderResolutionView = t.strict({
  action: oneOf('ResolutionAction', resolutionActions),
  reason: t.string,
  operator_id: t.string,
  resolved_at: UnixSeconds,
});

/** `data.order` of the interface's order answers; a direct-mode order has `checkout_url: ""`. */
export const OrderView = t.strict({
  order_id: t.string,
  platform_order_no: t.string,
  out_trade_no: t.string,
  status: OrderStatusCode,
  checkout_type: t.string,
  order_currency: t.string,
  order_amount: DecimalString,
  allowed_pay_currencies: t.readonlyArray(t.string),
  pay_amount: DecimalString,
  paid_amount_total: DecimalString,
  remaining_amount: DecimalString,
  overpaid_amount: DecimalString,
  underpay_tolerance: DecimalString,
  checkout_url: t.string,
  notify_webhook_id: t.string,
  /** Beyond the interface (ADR 0021): the hosted page redirects by itself once completed. */
  redirect_automatically: t.boolean,
  /** Beyond the interface (ADR 0044): refunds requested, on their way or sent, in tokens. */
  refunded_amount: DecimalString,
  /** Beyond the interface (ADR 0044): an operator's resolution, null while there is none. */
  resolution: nullable(OrderResolutionView),
  expire_time: UnixSeconds,
  ...timestamps,
});
export type OrderView = t.TypeOf<typeof OrderView>;

/** A token and the address it is paid to: a payment address, and each payment to it. */
const tokenAddress = {
  network: ChainNetworkCode,
  currency: CryptoCurrencyCode,
  token_id: PayTokenIdCode,
  address: t.string,
};

/** `data.payment_address`: where the payer sends the tokens, once a token is chosen. */
export const PaymentAddressView = t.strict(tokenAddress);
export type PaymentAddressView = t.TypeOf<typeof PaymentAddressView>;

/**
 * The answer of order create, get and close: `{order}`, plus `payment_address` once chosen; an
 * order's read and an operator's resolution add its refunds, oldest first (ADR 0044).
 */
export const OrderAnswer = t.exact(
  t.intersection([
    t.type({ order: OrderView }),
    t.partial({ payment_address: PaymentAddressView, refunds: t.readonlyArray(RefundView) }),
  ]),
);
export type OrderAnswer = t.TypeOf<typeof OrderAnswer>;

/** A payment record of an order: docs/spec/decisions.md §4's fields, nothing internal. */
export const PaymentView = t.strict({
  payment_id: t.string,
  order_id: t.string,
  ...tokenAddress,
  /** At the pay scale (6 decimals). */
  amount: DecimalString,
  tx_hash: t.string,
  confirmations: WholeNumber,
  required_confirmations: WholeNumber,
  status: PaymentStatusCode,
  detected_at: UnixSeconds,
  confirmed_at: nullable(UnixSeconds),
  ...timestamps,
});
export type PaymentView = t.TypeOf<typeof PaymentView>;

/** An operator's view of an order: its answer, every payment record (late ones too), its refunds. */
export const AdminOrderAnswer = t.exact(
  t.intersection([
    t.type({
      order: OrderView,
      payments: t.readonlyArray(PaymentView),
      refunds: t.readonlyArray(RefundView),
    }),
    t.partial({ payment_address: PaymentAddressView }),
  ]),
);
export type AdminOrderAnswer = t.TypeOf<typeof AdminOrderAnswer>;

/** One token the payer may choose on the hosted page. */
const CheckoutPayToken = t.strict({
  token_id: PayTokenIdCode,
  network: ChainNetworkCode,
  currency: CryptoCurrencyCode,
});

/** A refund as the payer's page shows it: how much, in which token, how far it got. */
const CheckoutRefund = t.strict({
  refund_id: t.string,
  token_id: PayTokenIdCode,
  amount: DecimalString,
  status: oneOf('RefundStatus', refundStatuses),
  updated_at: UnixSeconds,
});

/** `data.order` of the checkout page's calls: what the payer's page may know. */
export const CheckoutOrderView = t.exact(
  t.intersection([
    t.type({
      order_id: t.string,
      out_trade_no: t.string,
      status: OrderStatusCode,
      order_currency: t.string,
      order_amount: DecimalString,
      pay_amount: DecimalString,
      paid_amount_total: DecimalString,
      remaining_amount: DecimalString,
      /** Above zero once more than pay_amount was confirmed: the page tells the payer. */
      overpaid_amount: DecimalString,
      expire_time: UnixSeconds,
      pay_tokens: t.readonlyArray(CheckoutPayToken),
      /** `null` until the payer chose a token; then the token and the payer's address. */
      selected_token: nullable(PaymentAddressView),
      /** Once completed, the page goes to redirect_url by itself (ADR 0021). */
      redirect_automatically: t.boolean,
      /** What the merchant refunds the payer, and each refund as it stands (ADR 0044). */
      refunded_amount: DecimalString,
      refunds: t.readonlyArray(CheckoutRefund),
    }),
    t.partial({ redirect_url: t.string, logo_url: t.string }),
  ]),
);
export type CheckoutOrderView = t.TypeOf<typeof CheckoutOrderView>;

/** What one event of a provider's request did. */
export const UpstreamEventResult = t.strict({
  /** The provider's payment id. */
  payment_id: t.string,
  order_id: t.string,
  /** The payment record's status after the event (`late` after expiry or close). */
  payment_status: PaymentStatusCode,
  /** The order's status after the event. */
  order_status: OrderStatusCode,
  /** False when the event told nothing new (a duplicate, or older than what is recorded). */
  changed: t.boolean,
});
export type UpstreamEventResult = t.TypeOf<typeof UpstreamEventResult>;

/** `data` of an upstream provider's call: what each event did, in the order sent. */
export const UpstreamEventsAnswer = t.strict({ events: t.readonlyArray(UpstreamEventResult) });
export type UpstreamEventsAnswer = t.TypeOf<typeof UpstreamEventsAnswer>;
