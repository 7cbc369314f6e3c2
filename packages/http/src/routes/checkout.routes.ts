/**
 * The hosted checkout's JSON calls (no API key: the order id is the capability). The page itself
 * is served by the checkout package.
 */
import { CheckoutOrderView, PayTokenSelectionRequest } from '@payrail/core';
import { type OpenRoute, openRoute, resource } from './route.js';

export const checkoutRoutes: readonly OpenRoute[] = [
  openRoute({
    scope: 'checkout',
    method: 'get',
    path: '/checkout/api/orders/{order_id}',
    operationId: 'checkoutGetOrder',
    summary: "What the checkout page shows of an order: amounts, tokens, the payer's address",
    tag: 'checkout',
    errors: ['order_not_found', 'checkout_url_not_found'],
    response: resource('order', CheckoutOrderView, 'what the payer may see'),
    run: (engine, r) => engine.checkout.order(r.param('order_id')),
  }),
  openRoute({
    scope: 'checkout',
    method: 'post',
    path: '/checkout/api/orders/{order_id}/select',
    operationId: 'checkoutSelectToken',
    summary: 'The payer chooses a network and currency; answers the payment address',
    tag: 'checkout',
    body: PayTokenSelectionRequest,
    errors: [
      'order_not_found',
      'network_currency_required',
      'network_currency_not_allowed',
      'order_already_final',
    ],
    response: resource('order', CheckoutOrderView, 'its selected_token the payment address'),
    run: (engine, r) => engine.checkout.selectToken(r.param('order_id'), r.body),
  }),
];
