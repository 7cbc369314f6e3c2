/**
 * What acquiring answers show: the merchant's `data.order` (the core's view, with no checkout_url
 * for a direct-mode order, which has no hosted page), the payment address an order hands out,
 * and the public page data of the hosted checkout (no merchant secrets, no notify webhook, no
 * note).
 */
import {
  type AcquiringOrderSnapshot,
  type AcquiringOrderView,
  acquiringOrderView,
  type ChainNetwork,
  type CryptoCurrency,
  type OrderStatus,
  orderAmountsOf,
  type PayTokenId,
  payTokens,
} from '@payrail/core';

/** `data.order`: a direct-mode order answers `checkout_url: ""`. */
export const orderViewOf = (
  snapshot: AcquiringOrderSnapshot,
  checkoutBaseUrl: string,
): AcquiringOrderView => {
  const view = acquiringOrderView(snapshot, checkoutBaseUrl);
  return snapshot.context.mode === 'direct' ? { ...view, checkout_url: '' } : view;
};

/** `data.payment_address`: where the payer sends the tokens, once a token is chosen. */
export interface PaymentAddressView {
  readonly network: ChainNetwork;
  readonly currency: CryptoCurrency;
  readonly token_id: PayTokenId;
  readonly address: string;
}

export const paymentAddressOf = (
  snapshot: AcquiringOrderSnapshot,
): PaymentAddressView | undefined => {
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

/** The answer of order create, get and close: `{order}`, plus `payment_address` once chosen. */
export type OrderAnswer = {
  readonly order: AcquiringOrderView;
  readonly payment_address?: PaymentAddressView;
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

/** One token the payer may choose on the page. */
export interface CheckoutPayToken {
  readonly token_id: PayTokenId;
  readonly network: ChainNetwork;
  readonly currency: CryptoCurrency;
}

/** `data.order` of the checkout page's calls. */
export interface CheckoutOrderView {
  readonly order_id: string;
  readonly out_trade_no: string;
  readonly status: OrderStatus;
  readonly order_currency: string;
  readonly order_amount: string;
  readonly pay_amount: string;
  readonly paid_amount_total: string;
  readonly remaining_amount: string;
  /** Above zero once more than pay_amount was confirmed: the page tells the payer. */
  readonly overpaid_amount: string;
  readonly expire_time: number;
  readonly pay_tokens: readonly CheckoutPayToken[];
  readonly selected_token: PaymentAddressView | null;
  readonly redirect_url?: string;
  /** Once completed, the page goes to redirect_url by itself (ADR 0021). */
  readonly redirect_automatically: boolean;
  readonly logo_url?: string;
}

export const checkoutOrderViewOf = (snapshot: AcquiringOrderSnapshot): CheckoutOrderView => {
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
  };
};
