/** Every route of the app, in the order the document lists them. */
import { adminRoutes } from './admin.routes.js';
import { checkoutRoutes } from './checkout.routes.js';
import { merchantRoutes } from './merchant.routes.js';
import type { Route } from './route.js';
import { upstreamRoutes } from './upstream.routes.js';

export const routes: readonly Route[] = [
  ...merchantRoutes,
  ...adminRoutes,
  ...checkoutRoutes,
  ...upstreamRoutes,
];
