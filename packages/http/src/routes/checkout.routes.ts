/**
 * The hosted checkout's JSON calls (no API key: the order id is the capability). The page itself
 * is served by the checkout package.
 */
import { answerOf, CheckoutOrderView, PayTokenSelectionRequest } from '@payrail/core';
import { type OpenRoute, openRoute } from './route.js';

export const checkoutRoutes: readonly OpenRoute[] = [
  openRoute({
    scope: 'checkout',
    method: 'get',
    path: '/checkout/api/orders/{order_id}',
    operationId: 'checkoutGetOrder',
    summary: "What the checkout page shows of an order: amounts, tokens, the payer's address",
    tag: 'checkout',
    errors: ['order_not_found', 'checkout_url_not_found'],
    response: {
      description: 'data.order: what the payer may see',
      codec: answerOf({ order: CheckoutOrderView }),
    },
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
    response: {
      description: 'data.order, its selected_token the payment address',
      codec: answerOf({ order: CheckoutOrderView }),
    },
    run: (engine, r) => engine.checkout.selectToken(r.param('order_id'), r.body),
  }),
];
