/**
 * @payrail/checkout: the hosted checkout page. `checkoutPages(deps)` is a Hono sub-app the server
 * mounts at `/checkout`; the page talks to the checkout JSON calls of @payrail/http.
 */
export type { CheckoutOrder, CheckoutSelection, CheckoutToken } from './checkout-order.js';
export { checkoutOrderOf } from './checkout-order.js';
export { networkLabels, statusHeadlines } from './checkout-page.html.js';
export * from './checkout-pages.js';
export { qrCodeSvg } from './qr-code.svg.js';
