/**
 * @payrail/checkout: the hosted checkout page. `checkoutPages(deps)` is a Hono sub-app the server
 * mounts at `/checkout`; the page talks to the checkout JSON calls of @payrail/http.
 */
export * from './checkout-pages.js';
