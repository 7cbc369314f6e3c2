/**
 * The hosted checkout page and its message pages (unknown order, direct-mode order, failure):
 * server-rendered HTML, one stylesheet and one script inlined under the response's nonce. The
 * script renders every later state from the checkout JSON calls, with `textContent` only.
 */
import { readFileSync } from 'node:fs';
import type { ChainNetwork, OrderStatus } from '@payrail/core';
import { type CheckoutOrder, type CheckoutToken, webUrlOf } from './checkout-order.js';
import { html, jsonScriptContent, type Markup, ownSource } from './markup.js';

const ownFile = (name: string): string => readFileSync(new URL(name, import.meta.url), 'utf8');

const stylesheet = ownFile('./checkout-page.css');
export const clientScript = ownFile('./client/checkout-page.client.js');

/** How the page names a network: the chain and, where payers know it by one, the token standard. */
export const networkLabels = {
  TRON: 'TRON (TRC-20)',
  ETH: 'Ethereum (ERC-20)',
  BSC: 'BNB Smart Chain (BEP-20)',
  MATIC: 'Polygon',
  ARBITRUM: 'Arbitrum One',
  BASE: 'Base',
  SOL: 'Solana',
} as const satisfies Record<ChainNetwork, string>;

/** The headline of each state, in plain words; the script adds the amounts that go with it. */
export const statusHeadlines = {
  pending: 'Waiting for your payment',
  processing: 'Payment seen on the network',
  confirming: 'Payment received, waiting for confirmations',
  partial_paid: 'Part of the payment has arrived',
  completed: 'Payment complete',
  underpaid: 'The order expired before the full amount arrived',
  expired: 'This order has expired',
  closed: 'This order was closed',
} as const satisfies Record<OrderStatus, string>;

/** The page's icon, served from its own origin (a browser asks for one whatever the page says). */
export const faviconSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f5fd6"/><path d="M9 16.5l4.5 4.5L23 11.5" fill="none" stroke="#fff" stroke-width="3.2" stroke-linecap="round" stroke-linejoin="round"/></svg>';

/** What the script starts from: the order as the JSON call answers it, and the service clock. */
export interface PageBootstrap {
  readonly order: CheckoutOrder;
  /** The service's clock (Unix seconds) when the page was made: the countdown's reference. */
  readonly now: number;
  readonly poll_ms: number;
  readonly networks: Readonly<Record<ChainNetwork, string>>;
  readonly headlines: Readonly<Record<OrderStatus, string>>;
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

/** Tokens grouped by currency, each group's networks in the order the merchant allowed them. */
export const tokenGroups = (
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

const tokenChoice = (
  order: CheckoutOrder,
): Markup => html`<section id="choose" aria-labelledby="choose-title">
<h2 id="choose-title">Choose what to pay with</h2>
${tokenGroups(order.pay_tokens).map(
  ([currency, tokens]) => html`<fieldset>
<legend>${currency}</legend>
<div class="options">
${tokens.map(
  (token) =>
    html`<button type="button" class="option" data-network="${token.network}" data-currency="${token.currency}">${currency} on ${networkLabels[token.network]}</button>
`,
)}</div>
</fieldset>
`,
)}<p id="choose-error" class="error" role="alert" hidden></p>
</section>`;

const paymentDetails = html`<section id="pay" aria-labelledby="pay-title" hidden>
<h2 id="pay-title">Send <span id="send-amount"></span> <span id="send-currency"></span> on <span id="send-network"></span></h2>
<img id="qr" class="qr" alt="QR code of the deposit address" width="200" height="200">
<span class="label" id="address-label">Deposit address</span>
<div class="address-row">
<code id="address" class="address" aria-labelledby="address-label"></code>
<button id="copy" type="button" class="primary">Copy</button>
</div>
<p id="copy-result" class="copied" role="status" aria-live="polite"></p>
<p class="hint" id="hint"></p>
<button id="change" type="button" class="link">Choose another token</button>
</section>`;

const orderPage = (order: CheckoutOrder, bootstrap: PageBootstrap, nonce: string): Markup => {
  const logo = webUrlOf(order.logo_url);
  const currencies = [...new Set(order.pay_tokens.map((t) => t.currency))].join(' or ');
  return html`<main class="card" aria-labelledby="title">
<header class="merchant">
${logo === undefined ? null : html`<img class="logo" id="logo" src="${logo.href}" alt="Merchant logo" width="48" height="48">`}
<div>
<p class="eyebrow">Order <span id="out-trade-no">${order.out_trade_no}</span></p>
<h1 id="title">Pay ${order.order_amount} ${order.order_currency}</h1>
</div>
</header>
<dl class="facts">
<div><dt>Order amount</dt><dd id="order-amount">${order.order_amount} ${order.order_currency}</dd></div>
<div><dt>Amount to pay</dt><dd id="pay-amount">${order.pay_amount} ${currencies}</dd></div>
<div id="paid-row" hidden><dt>Received</dt><dd id="paid-amount"></dd></div>
<div id="due-row" hidden><dt>Still due</dt><dd id="due-amount"></dd></div>
<div id="expiry-row"><dt>Time left</dt><dd><span id="countdown" role="timer">&ndash;</span></dd></div>
</dl>
<p id="status" class="status" data-status="${order.status}" role="status" aria-live="polite"><strong id="status-headline">${statusHeadlines[order.status]}</strong> <span id="status-detail"></span></p>
${tokenChoice(order)}
${paymentDetails}
<p id="done" hidden><a id="redirect" class="button" href="#">Return to the merchant</a></p>
<noscript><p>This page needs JavaScript to choose a token and to follow your payment.</p></noscript>
<footer>Order ${order.order_id} &middot; hosted checkout by payrail</footer>
</main>
<script type="application/json" id="checkout-data">${jsonScriptContent(bootstrap)}</script>
<script nonce="${nonce}">${ownSource(clientScript)}</script>`;
};

const document = (title: string, nonce: string, body: Markup): string =>
  html`<!doctype html>
<html lang="en">
${head(title, nonce)}
<body>
${body}
</body>
</html>
`.html;

export const checkoutPageHtml = (bootstrap: PageBootstrap, nonce: string): string =>
  document(
    `Pay ${bootstrap.order.order_amount} ${bootstrap.order.order_currency}`,
    nonce,
    orderPage(bootstrap.order, bootstrap, nonce),
  );

/** A page with one message: an unknown order, a direct-mode order, a failure. */
export const messagePageHtml = (
  title: string,
  message: string,
  explanation: string,
  nonce: string,
): string =>
  document(
    title,
    nonce,
    html`<main class="card" aria-labelledby="title">
<h1 id="title">${title}</h1>
<p class="status" data-status="closed" id="message">${message}</p>
<p class="hint">${explanation}</p>
</main>`,
  );
