/**
 * The hosted checkout page and its message pages (unknown order, direct-mode order, failure):
 * server-rendered HTML in the payer's language, one stylesheet and one script inlined under the
 * response's nonce. The script renders every later state from the checkout JSON calls, with
 * `textContent` only, in the same language: the server embeds its dictionary with the order.
 */
import { readFileSync } from 'node:fs';
import type { ChainNetwork, OrderStatus } from '@payrail/core';
import { type CheckoutOrder, type CheckoutToken, webUrlOf } from './checkout-order.js';
import type { CheckoutLocale, Messages } from './locales/checkout-locale.js';
import {
  fillText,
  formatAlternatives,
  formatDecimal,
  formatExpiry,
} from './locales/locale-format.js';
import { checkoutLocales } from './locales/locale-registry.js';
import { fill, html, jsonScriptContent, type Markup, ownSource } from './markup.js';

const ownFile = (name: string): string => readFileSync(new URL(name, import.meta.url), 'utf8');

const stylesheet = ownFile('./checkout-page.css');
export const clientScript = ownFile('./client/checkout-page.client.js');

/** How a language names each network: the chain and, where payers know it by one, the standard. */
const networkLabelsIn = (m: Messages) =>
  ({
    TRON: m['network.TRON'],
    ETH: m['network.ETH'],
    BSC: m['network.BSC'],
    MATIC: m['network.MATIC'],
    ARBITRUM: m['network.ARBITRUM'],
    BASE: m['network.BASE'],
    SOL: m['network.SOL'],
  }) satisfies Record<ChainNetwork, string>;

/** The headline of each state in a language; the script adds the amounts that go with it. */
const statusHeadlinesIn = (m: Messages) =>
  ({
    pending: m['status.pending'],
    processing: m['status.processing'],
    confirming: m['status.confirming'],
    partial_paid: m['status.partial_paid'],
    completed: m['status.completed'],
    underpaid: m['status.underpaid'],
    expired: m['status.expired'],
    closed: m['status.closed'],
  }) satisfies Record<OrderStatus, string>;

/** The page's icon, served from its own origin (a browser asks for one whatever the page says). */
export const faviconSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f5fd6"/><path d="M9 16.5l4.5 4.5L23 11.5" fill="none" stroke="#fff" stroke-width="3.2" stroke-linecap="round" stroke-linejoin="round"/></svg>';

/** What the script starts from: the order as the JSON call answers it, the clock, the language. */
export interface PageBootstrap {
  readonly order: CheckoutOrder;
  /** The service's clock (Unix seconds) when the page was made: the countdown's reference. */
  readonly now: number;
  readonly poll_ms: number;
  /** How long "taking you back to the merchant" shows before the page goes there. */
  readonly redirect_ms: number;
  /** The BCP 47 tag every `Intl` format of the script uses. */
  readonly locale: string;
  /** The dictionary of that language: the script never fetches one. */
  readonly messages: Messages;
}

const head = (title: string, nonce: string): Markup => html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<link rel="icon" href="favicon.svg" type="image/svg+xml">
<title>${title}</title>
<style nonce="${nonce}">${ownSource(stylesheet)}</style>
</head>`;

/**
 * Links to this same page in each language (`?lang=<tag>`): no script, no form, and the choice
 * survives a reload because it is in the address.
 */
const languageSwitch = (
  current: CheckoutLocale,
): Markup => html`<nav class="languages" aria-label="${current.messages['language.label']}">
<ul>
${checkoutLocales.map(
  (locale) =>
    html`<li><a href="?lang=${locale.tag}" hreflang="${locale.tag}" lang="${locale.tag}"${locale === current ? html` aria-current="true"` : null}>${locale.name}</a></li>
`,
)}</ul>
</nav>`;

/** Tokens grouped by currency, each group's networks in the order the merchant allowed them. */
const tokenGroups = (
  tokens: readonly CheckoutToken[],
): readonly (readonly [string, readonly CheckoutToken[]])[] => {
  const groups = new Map<string, CheckoutToken[]>();
  for (const token of tokens) {
    const group = groups.get(token.currency);
    if (group === undefined) groups.set(token.currency, [token]);
    else group.push(token);
  }
  return [...groups.entries()];
};

const tokenChoice = (order: CheckoutOrder, m: Messages): Markup => {
  const networks = networkLabelsIn(m);
  return html`<section id="choose" aria-labelledby="choose-title">
<h2 id="choose-title">${m['choose.title']}</h2>
${tokenGroups(order.pay_tokens).map(
  ([currency, tokens]) => html`<fieldset>
<legend>${currency}</legend>
<div class="options">
${tokens.map(
  (token) =>
    html`<button type="button" class="option" data-network="${token.network}" data-currency="${token.currency}">${fillText(m['choose.option'], { currency, network: networks[token.network] })}</button>
`,
)}</div>
</fieldset>
`,
)}<p id="choose-error" class="error" role="alert" hidden></p>
</section>`;
};

const paymentDetails = (
  m: Messages,
): Markup => html`<section id="pay" aria-labelledby="pay-title" hidden>
<h2 id="pay-title">${fill(m['pay.title'], {
  amount: html`<span id="send-amount"></span>`,
  currency: html`<span id="send-currency"></span>`,
  network: html`<span id="send-network"></span>`,
})}</h2>
<img id="qr" class="qr" alt="${m['pay.qr']}" width="200" height="200">
<div class="address-block" role="group" aria-labelledby="address-label">
<span class="label" id="address-label">${m['pay.address']}</span>
<div class="address-row">
<code id="address" class="address"></code>
<button id="copy" type="button" class="primary">${m['pay.copy']}</button>
</div>
</div>
<p id="copy-result" class="copied" role="status" aria-live="polite"></p>
<p class="hint warning" id="hint"></p>
<button id="change" type="button" class="link">${m['pay.change']}</button>
</section>`;

const pageTitle = (order: CheckoutOrder, locale: CheckoutLocale): string =>
  fillText(locale.messages['page.title'], {
    amount: formatDecimal(order.order_amount, locale.tag),
    currency: order.order_currency,
  });

const orderPage = (
  order: CheckoutOrder,
  bootstrap: PageBootstrap,
  locale: CheckoutLocale,
  nonce: string,
): Markup => {
  const m = locale.messages;
  const logo = webUrlOf(order.logo_url);
  const currencies = formatAlternatives(
    [...new Set(order.pay_tokens.map((t) => t.currency))],
    locale.tag,
  );
  const amountOf = (amount: string, currency: string) =>
    fillText(m.amount, { amount: formatDecimal(amount, locale.tag), currency });
  return html`${languageSwitch(locale)}
<main class="card" aria-labelledby="title">
<header class="merchant">
${logo === undefined ? null : html`<img class="logo" id="logo" src="${logo.href}" alt="${m['page.logo']}" width="48" height="48">`}
<div>
<p class="eyebrow">${fill(m['page.order'], { out_trade_no: html`<span id="out-trade-no">${order.out_trade_no}</span>` })}</p>
<h1 id="title">${pageTitle(order, locale)}</h1>
</div>
</header>
<dl class="facts">
<div><dt>${m['facts.order_amount']}</dt><dd id="order-amount">${amountOf(order.order_amount, order.order_currency)}</dd></div>
<div><dt>${m['facts.pay_amount']}</dt><dd id="pay-amount">${amountOf(order.pay_amount, currencies)}</dd></div>
<div id="paid-row" hidden><dt>${m['facts.received']}</dt><dd id="paid-amount"></dd></div>
<div id="due-row" hidden><dt>${m['facts.due']}</dt><dd id="due-amount"></dd></div>
<div id="expiry-row"><dt id="time-left-label">${m['facts.time_left']}</dt><dd><span id="countdown" role="timer" aria-labelledby="time-left-label">&ndash;</span></dd></div>
<div id="expires-row"><dt>${m['facts.expires_at']}</dt><dd><time id="expires-at" datetime="${new Date(order.expire_time * 1000).toISOString()}">${formatExpiry(order.expire_time, locale.tag)}</time></dd></div>
</dl>
<p id="status" class="status" data-status="${order.status}" role="status" aria-live="polite"><strong id="status-headline">${statusHeadlinesIn(m)[order.status]}</strong> <span id="status-detail"></span></p>
<p id="warning" class="notice" role="alert" hidden></p>
<div id="refunds" hidden><p id="refunds-title" class="notice"></p><ul id="refund-list"></ul></div>
${tokenChoice(order, m)}
${paymentDetails(m)}
<div id="done" hidden>
<p id="redirect-note" class="hint" role="status" hidden></p>
<p><a id="redirect" class="button" href="#">${m['done.return']}</a></p>
</div>
<noscript><p>${m['page.noscript']}</p></noscript>
<footer>${fillText(m['page.footer'], { order_id: order.order_id })}</footer>
</main>
<script type="application/json" id="checkout-data">${jsonScriptContent(bootstrap)}</script>
<script nonce="${nonce}">${ownSource(clientScript)}</script>`;
};

const document = (locale: CheckoutLocale, title: string, nonce: string, body: Markup): string =>
  html`<!doctype html>
<html lang="${locale.tag}">
${head(title, nonce)}
<body>
${body}
</body>
</html>
`.html;

export const checkoutPageHtml = (
  bootstrap: Omit<PageBootstrap, 'locale' | 'messages'>,
  locale: CheckoutLocale,
  nonce: string,
): string => {
  const full: PageBootstrap = { ...bootstrap, locale: locale.tag, messages: locale.messages };
  return document(
    locale,
    pageTitle(bootstrap.order, locale),
    nonce,
    orderPage(bootstrap.order, full, locale, nonce),
  );
};

/** The message pages, by the dictionary's name for each. */
export type MessagePageKey =
  | 'order_not_found'
  | 'checkout_url_not_found'
  | 'no_address'
  | 'failure';

/**
 * A page with one message: an unknown order, a direct-mode order, a failure. The catalogue's own
 * message (`order not found`) stays as it is in every language: it is what the merchant's support
 * and logs know.
 */
export const messagePageHtml = (
  page: MessagePageKey,
  catalogueMessage: string,
  locale: CheckoutLocale,
  nonce: string,
): string => {
  const m = locale.messages;
  const title = m[`message.${page}.title`];
  return document(
    locale,
    title,
    nonce,
    html`${languageSwitch(locale)}
<main class="card" aria-labelledby="title">
<h1 id="title">${title}</h1>
<p class="status" data-status="closed">${m[`message.${page}.explanation`]}</p>
<p class="hint">${fill(m['message.reference'], { message: html`<code id="message">${catalogueMessage}</code>` })}</p>
</main>`,
  );
};
