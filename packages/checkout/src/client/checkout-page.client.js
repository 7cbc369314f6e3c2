// @ts-check
/**
 * The hosted checkout page's script, inlined under the response's CSP nonce (no build step, no
 * framework). It reads the order the server embedded, lets the payer choose a token
 * (POST .../select), shows the deposit address, and asks for the order every few seconds until
 * it is final. Everything it writes goes through `textContent` or a checked attribute, never HTML.
 */
(() => {
  /** @typedef {{ token_id: string, network: string, currency: string }} Token */
  /** @typedef {Token & { address: string }} Selection */
  /**
   * @typedef {{
   *   order_id: string, out_trade_no: string, status: string, order_currency: string,
   *   order_amount: string, pay_amount: string, paid_amount_total: string,
   *   remaining_amount: string, expire_time: number, pay_tokens: Token[],
   *   selected_token: Selection | null, redirect_url?: string, logo_url?: string
   * }} Order
   */
  /**
   * @typedef {{
   *   order: Order, now: number, poll_ms: number,
   *   networks: Record<string, string>, headlines: Record<string, string>
   * }} Bootstrap
   */

  const finalStatuses = ['completed', 'underpaid', 'expired', 'closed'];

  /** @param {string} id @returns {HTMLElement} */
  const byId = (id) => {
    const element = document.getElementById(id);
    if (element === null) throw new Error(`checkout page: #${id} missing`);
    return element;
  };

  /** @param {string} id @param {boolean} visible */
  const show = (id, visible) => {
    byId(id).hidden = !visible;
  };

  /** @param {string} id @param {string} text */
  const setText = (id, text) => {
    byId(id).textContent = text;
  };

  /** A decimal string is above zero when any of its digits is: no float ever touches money. */
  /** @param {string} amount */
  const aboveZero = (amount) => /[1-9]/.test(amount);

  /**
   * An http(s) link, or nothing (never a `javascript:` one). redirect_url may be a path on this
   * service's origin.
   * @param {string | undefined} raw @returns {URL | undefined}
   */
  const webUrl = (raw) => {
    if (raw === undefined) return undefined;
    try {
      const url = new URL(raw, window.location.origin);
      return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
    } catch {
      return undefined;
    }
  };

  /** @type {Bootstrap} */
  const boot = JSON.parse(byId('checkout-data').textContent ?? '{}');
  // The service clock, not the device's: the countdown agrees with the order's expiry.
  const clockOffset = boot.now - Date.now() / 1000;
  const serviceNow = () => Date.now() / 1000 + clockOffset;

  let order = boot.order;
  /** The payer asked to choose again while a token is selected. */
  let choosing = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let pollTimer;
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let countdownTimer;
  let askedAtExpiry = false;

  const orderPath = encodeURIComponent(order.order_id);
  const apiUrl = new URL(`api/orders/${orderPath}`, window.location.href).href;

  /** @param {Order} o */
  const isFinal = (o) => finalStatuses.includes(o.status);

  /** @param {Order} o */
  const payCurrency = (o) =>
    o.selected_token !== null
      ? o.selected_token.currency
      : [...new Set(o.pay_tokens.map((t) => t.currency))].join(' or ');

  /** @param {Order} o @returns {string} */
  const detailOf = (o) => {
    const currency = payCurrency(o);
    switch (o.status) {
      case 'pending':
        return o.selected_token === null
          ? 'Choose a currency and network below.'
          : 'Send the amount below to the address shown. This page updates by itself.';
      case 'processing':
        return 'It is being processed. Keep this page open; it updates by itself.';
      case 'confirming':
        return 'The network is confirming it. This usually takes a few minutes.';
      case 'partial_paid':
        return `Still due: ${o.remaining_amount} ${currency}. Send it to the same address before the time runs out.`;
      case 'completed':
        return 'Thank you. The merchant has received your payment.';
      case 'underpaid':
        return `Received ${o.paid_amount_total} of ${o.pay_amount} ${currency}. Contact the merchant about the amount paid.`;
      case 'expired':
        return "Do not send anything to this order's address. Ask the merchant for a new order.";
      case 'closed':
        return 'The merchant closed this order. Do not send a payment.';
      default:
        return '';
    }
  };

  /** @param {number} seconds */
  const clockText = (seconds) => {
    const h = Math.floor(seconds / 3600);
    const m = Math.floor((seconds % 3600) / 60);
    const s = seconds % 60;
    const mm = h > 0 ? String(m).padStart(2, '0') : String(m);
    return `${h > 0 ? `${h}:` : ''}${mm}:${String(s).padStart(2, '0')}`;
  };

  const renderCountdown = () => {
    const left = Math.max(0, Math.floor(order.expire_time - serviceNow()));
    setText('countdown', clockText(left));
    if (left === 0 && !isFinal(order) && !askedAtExpiry) {
      askedAtExpiry = true;
      schedulePoll(0);
    }
  };

  /** @param {Selection} selected */
  const renderPayment = (selected) => {
    const network = boot.networks[selected.network] ?? selected.network;
    setText('send-amount', order.remaining_amount);
    setText('send-currency', selected.currency);
    setText('send-network', network);
    setText('address', selected.address);
    setText(
      'hint',
      `Send only ${selected.currency} on ${network} to this address. Another token, or ${selected.currency} on another network, cannot be credited.`,
    );
    const qr = /** @type {HTMLImageElement} */ (byId('qr'));
    const source = new URL(
      `${orderPath}/qr.svg?address=${encodeURIComponent(selected.address)}`,
      window.location.href,
    ).href;
    if (qr.src !== source) qr.src = source;
    show('change', order.status === 'pending');
  };

  const render = () => {
    const o = order;
    const final = isFinal(o);
    const currency = payCurrency(o);
    const status = byId('status');
    status.dataset.status = o.status;
    setText('status-headline', boot.headlines[o.status] ?? o.status);
    setText('status-detail', detailOf(o));
    setText('pay-amount', `${o.pay_amount} ${currency}`);
    setText('paid-amount', `${o.paid_amount_total} ${currency}`);
    setText('due-amount', `${o.remaining_amount} ${currency}`);
    show('paid-row', aboveZero(o.paid_amount_total));
    show('due-row', !final && aboveZero(o.paid_amount_total) && aboveZero(o.remaining_amount));
    show('expiry-row', !final);

    const selected = o.selected_token;
    show('choose', !final && (selected === null || choosing));
    show('pay', !final && selected !== null && !choosing);
    if (selected !== null) renderPayment(selected);

    const redirect = webUrl(o.redirect_url);
    show('done', o.status === 'completed' && redirect !== undefined);
    if (redirect !== undefined) byId('redirect').setAttribute('href', redirect.href);

    if (final) {
      clearTimeout(pollTimer);
      clearInterval(countdownTimer);
    }
  };

  /**
   * The checkout call's `data.order`, or an Error with the catalogue's message.
   * @param {string} url @param {RequestInit} [init] @returns {Promise<Order>}
   */
  const call = async (url, init = {}) => {
    const response = await fetch(url, {
      ...init,
      cache: 'no-store',
      credentials: 'omit',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    });
    /** @type {{ code: number, message: string, data: { order: Order } }} */
    const body = await response.json();
    if (body.code !== 0) throw new Error(body.message);
    return body.data.order;
  };

  const poll = async () => {
    try {
      order = await call(apiUrl);
      render();
    } catch {
      // A dropped connection or a restart: the next round asks again.
    }
    if (!isFinal(order)) schedulePoll(boot.poll_ms);
  };

  /** @param {number} delay */
  function schedulePoll(delay) {
    clearTimeout(pollTimer);
    pollTimer = setTimeout(poll, delay);
  }

  const options = () =>
    /** @type {HTMLButtonElement[]} */ ([...document.querySelectorAll('.option')]);

  /** @param {HTMLButtonElement} button */
  const choose = async (button) => {
    const chosen = { network: button.dataset.network, currency: button.dataset.currency };
    for (const option of options()) option.disabled = true;
    show('choose-error', false);
    try {
      order = await call(`${apiUrl}/select`, { method: 'POST', body: JSON.stringify(chosen) });
      choosing = false;
      render();
      byId('pay-title').focus();
    } catch (error) {
      setText('choose-error', error instanceof Error ? error.message : 'Please try again.');
      show('choose-error', true);
      schedulePoll(0);
    } finally {
      for (const option of options()) option.disabled = false;
    }
  };

  for (const option of options()) {
    option.addEventListener('click', () => {
      void choose(option);
    });
  }

  byId('change').addEventListener('click', () => {
    choosing = true;
    render();
    options()[0]?.focus();
  });

  /** The fallback where the Clipboard API is missing or refused: select and copy. */
  const selectAndCopy = () => {
    const selection = window.getSelection();
    if (selection === null) return false;
    const range = document.createRange();
    range.selectNodeContents(byId('address'));
    selection.removeAllRanges();
    selection.addRange(range);
    return document.execCommand('copy');
  };

  byId('copy').addEventListener('click', async () => {
    const address = byId('address').textContent ?? '';
    let copied = false;
    try {
      await navigator.clipboard.writeText(address);
      copied = true;
    } catch {
      copied = selectAndCopy();
    }
    setText('copy-result', copied ? 'Address copied.' : 'Select the address and copy it.');
  });

  const logo = /** @type {HTMLImageElement | null} */ (document.getElementById('logo'));
  if (logo !== null) {
    const hide = () => {
      logo.hidden = true;
    };
    logo.addEventListener('error', hide);
  }

  byId('pay-title').tabIndex = -1;
  render();
  if (!isFinal(order)) {
    renderCountdown();
    countdownTimer = setInterval(renderCountdown, 1000);
    schedulePoll(boot.poll_ms);
  }
})();
