/**
 * The hosted checkout pages as a Hono sub-app, mounted at `/checkout` by the server:
 * `GET /checkout/{order_id}` (the page) and `GET /checkout/{order_id}/qr.svg` (the deposit
 * address as a QR code). The page reads and changes the order only through the checkout JSON
 * calls (`/checkout/api/orders/...`, served by @payrail/http), so this package needs no engine:
 * the server hands it the one lookup it renders from.
 */
import { webcrypto } from 'node:crypto';
import { isStoreUnavailable, isText, type PayrailError, payrailError } from '@payrail/core';
import { type Either, left } from 'fp-ts/lib/Either.js';
import { type Context, Hono } from 'hono';
import { type CheckoutOrder, checkoutOrderOf, webUrlOf } from './checkout-order.js';
import {
  checkoutPageHtml,
  faviconSvg,
  type MessagePageKey,
  messagePageHtml,
} from './checkout-page.html.js';
import type { CheckoutLocale } from './locales/checkout-locale.js';
import { negotiateLocale } from './locales/locale-registry.js';
import { qrCodeSvg } from './qr-code.svg.js';

export interface CheckoutPagesDeps {
  /** The order as the checkout JSON call answers it: the engine's `checkout.order`. */
  readonly order: (orderId: string) => Promise<Either<PayrailError, unknown>>;
  /** The service clock in Unix seconds (the sandbox's test clock moves it). */
  readonly now: () => number;
  /** How often the page asks for the order again; default 3000 ms. */
  readonly pollIntervalMs?: number;
  /**
   * How long a completed order's page says it is taking the payer back before it goes to
   * redirect_url, when the order asked for that (`redirect_automatically`); default 5000 ms.
   */
  readonly redirectDelayMs?: number;
  /** Where unexpected failures are logged; default `console.error`. */
  readonly logError?: (error: unknown) => void;
}

const defaultPollIntervalMs = 3000;
const defaultRedirectDelayMs = 5000;

const newNonce = (): string => {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  return Buffer.from(bytes).toString('base64');
};

/**
 * Only the page's own origin, its nonce-bearing inline style and script, and the merchant's logo
 * host (the one image the merchant asked for: `logo_url`) may load anything; it cannot be framed.
 */
export const contentSecurityPolicy = (nonce: string, logoUrl?: string): string => {
  const logo = webUrlOf(logoUrl);
  const images = logo === undefined ? "'self'" : `'self' ${logo.origin}`;
  return [
    "default-src 'self'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    `img-src ${images}`,
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
};

/** The payer's language: the page's `?lang=`, else `Accept-Language` (ADR 0021). */
const localeOf = (c: Context): CheckoutLocale =>
  negotiateLocale({ lang: c.req.query('lang'), acceptLanguage: c.req.header('Accept-Language') });

/** The page's words depend on the request's language: say so to caches and to the browser. */
const languageHeaders = (c: Context, locale: CheckoutLocale): void => {
  c.header('Content-Language', locale.tag);
  c.header('Vary', 'Accept-Language');
};

const securityHeaders = (c: Context, csp: string): void => {
  c.header('Content-Security-Policy', csp);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Frame-Options', 'DENY');
  // The page shows live state and a deposit address: never from a cache.
  c.header('Cache-Control', 'no-store');
};

interface MessagePage {
  readonly status: 404 | 500 | 503;
  readonly page: MessagePageKey;
}

/** The catalogue errors that have a page of their own. */
const messagePages: Readonly<Record<string, MessagePage>> = {
  order_not_found: { status: 404, page: 'order_not_found' },
  checkout_url_not_found: { status: 404, page: 'checkout_url_not_found' },
};

const noAddressPage: MessagePage = { status: 404, page: 'no_address' };

const failurePage: MessagePage = { status: 500, page: 'failure' };

/**
 * The store could not reach its database (ADR 0051: a failover's gap): 503 with `Retry-After`,
 * as the JSON API answers, on the failure page, whose words ("try again in a moment") fit.
 */
const unavailablePage: MessagePage = { status: 503, page: 'failure' };

/** When the payer's browser may ask again: the JSON API's one second (ADR 0051). */
const unavailableRetryAfterSeconds = 1;

/** Where a page's failure goes when the host gives no `logError`. */
const logToConsole = (error: unknown): void => {
  console.error('[payrail/checkout] page failed:', error);
};

export const checkoutPages = (deps: CheckoutPagesDeps): Hono => {
  const app = new Hono();
  const log = deps.logError ?? logToConsole;

  const answerMessage = (c: Context, page: MessagePage, message: string) => {
    const nonce = newNonce();
    const locale = localeOf(c);
    securityHeaders(c, contentSecurityPolicy(nonce));
    languageHeaders(c, locale);
    return c.html(messagePageHtml(page.page, message, locale, nonce), page.status);
  };

  /** The answer to what went wrong: the unavailable page for a store outage, else the failure. */
  const answerFailure = (c: Context, error: unknown, unavailable: boolean) => {
    log(error);
    if (!unavailable) return answerMessage(c, failurePage, 'internal error');
    c.header('Retry-After', String(unavailableRetryAfterSeconds));
    return answerMessage(c, unavailablePage, payrailError('service_unavailable').message);
  };

  /** The order, or the page to answer instead (unknown, direct mode, a failure). */
  const loadOrder = async (c: Context, orderId: string): Promise<CheckoutOrder | Response> => {
    // An id that is not text (`%00`) names no order, and no store is asked (ADR 0034).
    const outcome = isText(orderId)
      ? await deps.order(orderId)
      : left(payrailError('order_not_found'));
    if (outcome._tag === 'Right') return checkoutOrderOf(outcome.right);
    const error = outcome.left;
    const page = messagePages[error.key];
    if (page !== undefined) return answerMessage(c, page, error.message);
    return answerFailure(c, error, error.kind === 'unavailable');
  };

  // Before `/:order_id`: no order id looks like this.
  app.get('/favicon.svg', (c) => {
    securityHeaders(c, "default-src 'none'");
    c.header('Cache-Control', 'public, max-age=86400');
    c.header('Content-Type', 'image/svg+xml; charset=utf-8');
    return c.body(faviconSvg);
  });

  app.get('/:order_id', async (c) => {
    const order = await loadOrder(c, c.req.param('order_id'));
    if (order instanceof Response) return order;
    const nonce = newNonce();
    const locale = localeOf(c);
    securityHeaders(c, contentSecurityPolicy(nonce, order.logo_url));
    languageHeaders(c, locale);
    return c.html(
      checkoutPageHtml(
        {
          order,
          now: deps.now(),
          poll_ms: deps.pollIntervalMs ?? defaultPollIntervalMs,
          redirect_ms: deps.redirectDelayMs ?? defaultRedirectDelayMs,
        },
        locale,
        nonce,
      ),
    );
  });

  app.get('/:order_id/qr.svg', async (c) => {
    const order = await loadOrder(c, c.req.param('order_id'));
    if (order instanceof Response) return order;
    if (order.selected_token === null) {
      return answerMessage(c, noAddressPage, 'no payment address chosen');
    }
    securityHeaders(c, "default-src 'none'");
    c.header('Content-Type', 'image/svg+xml; charset=utf-8');
    return c.body(qrCodeSvg(order.selected_token.address));
  });

  app.onError((error, c) => answerFailure(c, error, isStoreUnavailable(error)));

  return app;
};
