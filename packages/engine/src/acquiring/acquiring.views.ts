/**
 * The builders of acquiring's answers, typed with the core's answer codecs
 * (`acquiring-answers.codecs.ts`): the merchant's `data.order` (the core's view, with no
 * checkout_url for a direct-mode order, which has no hosted page), the payment address an order
 * hands out, and the public page data of the hosted checkout (no merchant secrets, no notify
 * webhook, no note).
 */
import {
  type AcquiringOrderSnapshot,
  type AcquiringRefundSnapshot,
  acquiringOrderView,
  type CheckoutOrderView,
  type OrderAnswer,
  type OrderView,
  orderAmountsOf,
  type PaymentAddressView,
  payTokens,
  refundedAmountOf,
  refundStatusOf,
} from '@payrail/core';

/** `data.order`: a direct-mode order answers `checkout_url: ""`. */
export const orderViewOf = (
  snapshot: AcquiringOrderSnapshot,
  checkoutBaseUrl: string,
): OrderView => {
  const view = acquiringOrderView(snapshot, checkoutBaseUrl);
  return snapshot.context.mode === 'direct' ? { ...view, checkout_url: '' } : view;
};

const paymentAddressOf = (snapshot: AcquiringOrderSnapshot): PaymentAddressView | undefined => {
  const selected = snapshot.context.selected_token;
  return selected === null
    ? undefined
    : {
        network: selected.network,
        currency: selected.currency,
        token_id: selected.token_id,
        address: selected.address,
      };
};

export const orderAnswerOf = (
  snapshot: AcquiringOrderSnapshot,
  checkoutBaseUrl: string,
): OrderAnswer => {
  const address = paymentAddressOf(snapshot);
  return {
    order: orderViewOf(snapshot, checkoutBaseUrl),
    ...(address === undefined ? {} : { payment_address: address }),
  };
};

/** The payer's page: no merchant secret, no note, and of each refund only what it sends back. */
export const checkoutOrderViewOf = (
  snapshot: AcquiringOrderSnapshot,
  refunds: readonly AcquiringRefundSnapshot[] = [],
): CheckoutOrderView => {
  const c = snapshot.context;
  const { paid_amount_total, remaining_amount, overpaid_amount } = orderAmountsOf(c);
  return {
    order_id: c.order_id,
    out_trade_no: c.out_trade_no,
    status: snapshot.value,
    order_currency: c.order_currency,
    order_amount: c.order_amount,
    pay_amount: c.pay_amount,
    paid_amount_total,
    remaining_amount,
    overpaid_amount,
    expire_time: c.expire_time,
    pay_tokens: c.allowed_pay_currencies.map((id) => ({
      token_id: id,
      network: payTokens[id].network,
      currency: payTokens[id].currency,
    })),
    selected_token: paymentAddressOf(snapshot) ?? null,
    ...(c.redirect_url === undefined ? {} : { redirect_url: c.redirect_url }),
    redirect_automatically: c.redirect_automatically,
    ...(c.logo_url === undefined ? {} : { logo_url: c.logo_url }),
    refunded_amount: refundedAmountOf(c),
    refunds: refunds.map((refund) => ({
      refund_id: refund.context.refund_id,
      token_id: refund.context.token_id,
      amount: refund.context.amount,
      status: refundStatusOf(refund),
      updated_at: refund.context.updated_at,
    })),
  };
};
