/**
 * What the page reads of the checkout call's answer (`data.order` of
 * `GET /checkout/api/orders/{order_id}`). The page is an adapter that takes the answer as JSON,
 * exactly as the browser does, so it checks the shape instead of trusting a type.
 */
import { type ChainNetwork, chainNetworks, type OrderStatus, orderStatuses } from '@payrail/core';

export interface CheckoutToken {
  readonly token_id: string;
  readonly network: ChainNetwork;
  readonly currency: string;
}

export interface CheckoutSelection extends CheckoutToken {
  readonly address: string;
}

export interface CheckoutOrder {
  readonly order_id: string;
  readonly out_trade_no: string;
  readonly status: OrderStatus;
  readonly order_currency: string;
  readonly order_amount: string;
  readonly pay_amount: string;
  readonly paid_amount_total: string;
  readonly remaining_amount: string;
  readonly overpaid_amount: string;
  readonly expire_time: number;
  readonly pay_tokens: readonly CheckoutToken[];
  readonly selected_token: CheckoutSelection | null;
  readonly redirect_url?: string;
  /** Once completed, the page goes to redirect_url by itself (ADR 0021). */
  readonly redirect_automatically: boolean;
  readonly logo_url?: string;
}

type Json = Readonly<Record<string, unknown>>;

const isObject = (u: unknown): u is Json =>
  typeof u === 'object' && u !== null && !Array.isArray(u);

const isNetwork = (u: unknown): u is ChainNetwork =>
  typeof u === 'string' && Object.hasOwn(chainNetworks, u);

const isStatus = (u: unknown): u is OrderStatus =>
  typeof u === 'string' && orderStatuses.some((status) => status === u);

class UnexpectedAnswer extends Error {
  constructor(field: string) {
    super(`checkout order answer: unexpected ${field}`);
    this.name = 'UnexpectedAnswer';
  }
}

const text = (o: Json, field: string): string => {
  const value = o[field];
  if (typeof value !== 'string') throw new UnexpectedAnswer(field);
  return value;
};

const optionalText = (o: Json, field: string): string | undefined =>
  o[field] === undefined ? undefined : text(o, field);

const tokenOf = (u: unknown): CheckoutToken => {
  if (!isObject(u) || !isNetwork(u.network)) throw new UnexpectedAnswer('pay_tokens');
  return { token_id: text(u, 'token_id'), network: u.network, currency: text(u, 'currency') };
};

const selectionOf = (u: unknown): CheckoutSelection | null => {
  if (u === null || u === undefined) return null;
  if (!isObject(u)) throw new UnexpectedAnswer('selected_token');
  return { ...tokenOf(u), address: text(u, 'address') };
};

/** `data.order` of a checkout answer; throws on anything else (the page answers 500). */
export const checkoutOrderOf = (data: unknown): CheckoutOrder => {
  const order = isObject(data) ? data.order : undefined;
  if (!isObject(order)) throw new UnexpectedAnswer('data');
  if (!isStatus(order.status)) throw new UnexpectedAnswer('status');
  if (typeof order.expire_time !== 'number') throw new UnexpectedAnswer('expire_time');
  if (!Array.isArray(order.pay_tokens)) throw new UnexpectedAnswer('pay_tokens');
  if (typeof order.redirect_automatically !== 'boolean') {
    throw new UnexpectedAnswer('redirect_automatically');
  }
  const redirectUrl = optionalText(order, 'redirect_url');
  const logoUrl = optionalText(order, 'logo_url');
  return {
    order_id: text(order, 'order_id'),
    out_trade_no: text(order, 'out_trade_no'),
    status: order.status,
    order_currency: text(order, 'order_currency'),
    order_amount: text(order, 'order_amount'),
    pay_amount: text(order, 'pay_amount'),
    paid_amount_total: text(order, 'paid_amount_total'),
    remaining_amount: text(order, 'remaining_amount'),
    overpaid_amount: text(order, 'overpaid_amount'),
    expire_time: order.expire_time,
    pay_tokens: order.pay_tokens.map(tokenOf),
    selected_token: selectionOf(order.selected_token),
    ...(redirectUrl === undefined ? {} : { redirect_url: redirectUrl }),
    redirect_automatically: order.redirect_automatically,
    ...(logoUrl === undefined ? {} : { logo_url: logoUrl }),
  };
};

/** An http(s) URL or nothing: a `javascript:` or `data:` link never reaches an `href`. */
export const webUrlOf = (raw: string | undefined): URL | undefined => {
  if (raw === undefined || !URL.canParse(raw)) return undefined;
  const url = new URL(raw);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
};
