// @ts-check
/**
 * The hosted checkout page's script, inlined under the response's CSP nonce (no build step, no
 * framework). It reads the order and the payer's dictionary the server embedded, lets the payer
 * choose a token (POST .../select), shows the deposit address, and asks for the order every few
 * seconds until it is final. Everything it writes goes through `textContent` or a checked
 * attribute, never HTML; every word comes from the dictionary, every number and time from `Intl`
 * in the page's language.
 */
(() => {
  /** @typedef {import('../locales/en.js').Messages} Messages */
  /** @typedef {import('../locales/en.js').MessageKey} MessageKey */
  /** @typedef {{ token_id: string, network: string, currency: string }} Token */
  /** @typedef {Token & { address: string }} Selection */
  /**
   * @typedef {{
   *   order_id: string, out_trade_no: string, status: string, order_currency: string,
   *   order_amount: string, pay_amount: string, paid_amount_total: string,
   *   remaining_amount: string, overpaid_amount: string, expire_time: number,
   *   pay_tokens: Token[], selected_token: Selection | null, redirect_url?: string,
   *   redirect_automatically: boolean, logo_url?: string, refunded_amount: string,
   *   refunds: { refund_id: string, token_id: string, amount: string, status: string }[]
   * }} Order
   */
  /**
   * @typedef {{
   *   order: Order, now: number, poll_ms: number, redirect_ms: number,
   *   locale: string, messages: Messages
   * }} Bootstrap
   */

  const finalStatuses = ['completed', 'underpaid', 'expired', 'closed'];
  /** Below this many seconds left, the page warns that time is almost up. */
  const expiringSeconds = 120;

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
  const locale = boot.locale;
  // The service clock, not the device's: the countdown agrees with the order's expiry.
  const clockOffset = boot.now - Date.now() / 1000;
  const serviceNow = () => Date.now() / 1000 + clockOffset;

  /**
   * A dictionary text with its `{name}` placeholders filled.
   * @param {MessageKey} key @param {Record<string, string>} [values] @returns {string}
   */
  const t = (key, values = {}) =>
    boot.messages[key].replace(/\{([a-z_]+)\}/g, (whole, name) =>
      Object.hasOwn(values, name) ? (values[name] ?? whole) : whole,
    );

  const integers = new Intl.NumberFormat(locale, { useGrouping: true });
  const twoDigits = new Intl.NumberFormat(locale, { minimumIntegerDigits: 2, useGrouping: false });
  const decimalSeparator =
    new Intl.NumberFormat(locale, { minimumFractionDigits: 1 })
      .formatToParts(0.5)
      .find((part) => part.type === 'decimal')?.value ?? '.';
  const alternatives = new Intl.ListFormat(locale, { type: 'disjunction' });
  const expiryFormat = new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
  });

  /**
   * "1234.500000" in the page's language, every digit kept: the whole part is formatted as a
   * BigInt, the fraction digit by digit (as the server does, locale-format.ts).
   * @param {string} amount
   */
  const formatDecimal = (amount) => {
    const match = /^(\d+)(?:\.(\d+))?$/.exec(amount);
    if (match === null) return amount;
    const whole = integers.format(BigInt(match[1] ?? '0'));
    const fraction = match[2];
    if (fraction === undefined) return whole;
    return `${whole}${decimalSeparator}${fraction.replace(/\d/g, (d) => integers.format(Number(d)))}`;
  };

  /** @param {string} amount @param {string} currency */
  const amountText = (amount, currency) => t('amount', { amount: formatDecimal(amount), currency });

  let order = boot.order;
  /** The payer asked to choose again while a token is selected. */
  let choosing = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let pollTimer;
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let countdownTimer;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let redirectTimer;
  let askedAtExpiry = false;

  const orderPath = encodeURIComponent(order.order_id);
  const apiUrl = new URL(`api/orders/${orderPath}`, window.location.href).href;

  /** @param {Order} o */
  const isFinal = (o) => finalStatuses.includes(o.status);

  /** @param {string} network */
  const networkName = (network) => {
    const key = /** @type {MessageKey} */ (`network.${network}`);
    return Object.hasOwn(boot.messages, key) ? t(key) : network;
  };

  /** @param {Order} o */
  const payCurrency = (o) =>
    o.selected_token !== null
      ? o.selected_token.currency
      : alternatives.format([...new Set(o.pay_tokens.map((token) => token.currency))]);

  /** @param {Order} o @returns {string} */
  const detailOf = (o) => {
    const currency = payCurrency(o);
    switch (o.status) {
      case 'pending':
        return o.selected_token === null ? t('detail.pending.choose') : t('detail.pending.send');
      case 'processing':
        return t('detail.processing');
      case 'confirming':
        return t('detail.confirming');
      case 'partial_paid':
        return t('detail.partial_paid', {
          amount: formatDecimal(o.remaining_amount),
          currency,
        });
      case 'completed':
        return t('detail.completed');
      case 'underpaid':
        return t('detail.underpaid', {
          paid: formatDecimal(o.paid_amount_total),
          due: formatDecimal(o.pay_amount),
          currency,
        });
      case 'expired':
        return t('detail.expired');
      case 'closed':
        return t('detail.closed');
      default:
        return '';
    }
  };

  /** @param {Order} o */
  const headlineOf = (o) => {
    const key = /** @type {MessageKey} */ (`status.${o.status}`);
    return Object.hasOwn(boot.messages, key) ? t(key) : o.status;
  };

  /** @param {number} seconds */
  const clockText = (seconds) => {
    const h = Math.floor(seconds / 3600);
    const m = Math.floor((seconds % 3600) / 60);
    const s = seconds % 60;
    const mm = h > 0 ? twoDigits.format(m) : integers.format(m);
    return `${h > 0 ? `${integers.format(h)}:` : ''}${mm}:${twoDigits.format(s)}`;
  };

  const secondsLeft = () => Math.max(0, Math.floor(order.expire_time - serviceNow()));

  /** The one warning the page shows at a time: money beyond the order, or time running out. */
  const renderWarning = () => {
    const o = order;
    const currency = payCurrency(o);
    let warning = '';
    if (aboveZero(o.overpaid_amount)) {
      warning = t('warning.overpaid', { amount: formatDecimal(o.overpaid_amount), currency });
    } else if (!isFinal(o) && secondsLeft() > 0 && secondsLeft() < expiringSeconds) {
      warning = t('warning.expiring', { minutes: integers.format(expiringSeconds / 60) });
    }
    const element = byId('warning');
    if (element.textContent !== warning) element.textContent = warning;
    element.hidden = warning === '';
  };

  /** What the merchant sends back to the payer, and how far each refund got (ADR 0044). */
  const renderRefunds = () => {
    const o = order;
    const refunds = o.refunds ?? [];
    show('refunds', refunds.length > 0);
    if (refunds.length === 0) return;
    const currency = payCurrency(o);
    setText(
      'refunds-title',
      t('refund.title', { amount: formatDecimal(o.refunded_amount), currency }),
    );
    const list = byId('refund-list');
    list.replaceChildren(
      ...refunds.map((refund) => {
        const item = document.createElement('li');
        const key = /** @type {MessageKey} */ (`refund.status.${refund.status}`);
        const status = Object.hasOwn(boot.messages, key) ? t(key) : refund.status;
        item.textContent = t('refund.line', {
          amount: formatDecimal(refund.amount),
          currency: refund.token_id.slice(refund.token_id.lastIndexOf('_') + 1),
          status,
        });
        return item;
      }),
    );
  };

  const renderCountdown = () => {
    const left = secondsLeft();
    setText('countdown', clockText(left));
    renderWarning();
    if (left === 0 && !isFinal(order) && !askedAtExpiry) {
      askedAtExpiry = true;
      schedulePoll(0);
    }
  };

  /** @param {Selection} selected */
  const renderPayment = (selected) => {
    const network = networkName(selected.network);
    setText('send-amount', formatDecimal(order.remaining_amount));
    setText('send-currency', selected.currency);
    setText('send-network', network);
    setText('address', selected.address);
    setText('hint', t('pay.warning', { currency: selected.currency, network }));
    const qr = /** @type {HTMLImageElement} */ (byId('qr'));
    const source = new URL(
      `${orderPath}/qr.svg?address=${encodeURIComponent(selected.address)}`,
      window.location.href,
    ).href;
    if (qr.src !== source) qr.src = source;
    show('change', order.status === 'pending');
  };

  /**
   * A completed order whose merchant asked for it goes back to redirect_url by itself, once,
   * after saying so; the button stays for a payer who does not want to wait.
   * @param {URL} redirect
   */
  const redirectSoon = (redirect) => {
    if (redirectTimer !== undefined) return;
    setText(
      'redirect-note',
      t('done.redirecting', { seconds: integers.format(Math.round(boot.redirect_ms / 1000)) }),
    );
    show('redirect-note', true);
    redirectTimer = setTimeout(() => {
      window.location.assign(redirect.href);
    }, boot.redirect_ms);
  };

  const render = () => {
    const o = order;
    const final = isFinal(o);
    const currency = payCurrency(o);
    const status = byId('status');
    status.dataset.status = o.status;
    setText('status-headline', headlineOf(o));
    setText('status-detail', detailOf(o));
    setText('pay-amount', amountText(o.pay_amount, currency));
    setText('paid-amount', amountText(o.paid_amount_total, currency));
    setText('due-amount', amountText(o.remaining_amount, currency));
    show('paid-row', aboveZero(o.paid_amount_total));
    show('due-row', !final && aboveZero(o.paid_amount_total) && aboveZero(o.remaining_amount));
    show('expiry-row', !final);
    show('expires-row', !final);
    renderWarning();
    renderRefunds();

    const selected = o.selected_token;
    show('choose', !final && (selected === null || choosing));
    show('pay', !final && selected !== null && !choosing);
    if (selected !== null) renderPayment(selected);

    const redirect = webUrl(o.redirect_url);
    show('done', o.status === 'completed' && redirect !== undefined);
    if (redirect !== undefined) byId('redirect').setAttribute('href', redirect.href);
    if (o.status === 'completed' && redirect !== undefined && o.redirect_automatically) {
      redirectSoon(redirect);
    }

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

  /**
   * The payer's words for a refused choice; the catalogue's message is English for the merchant.
   * @param {unknown} error
   */
  const refusalText = (error) =>
    error instanceof Error && error.message === 'order already final'
      ? t('choose.error.final')
      : t('choose.error.retry');

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
      setText('choose-error', refusalText(error));
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
    setText('copy-result', copied ? t('pay.copied') : t('pay.copy_failed'));
  });

  const logo = /** @type {HTMLImageElement | null} */ (document.getElementById('logo'));
  if (logo !== null) {
    const hide = () => {
      logo.hidden = true;
    };
    logo.addEventListener('error', hide);
  }

  setText('expires-at', expiryFormat.format(order.expire_time * 1000));
  byId('pay-title').tabIndex = -1;
  render();
  if (!isFinal(order)) {
    renderCountdown();
    countdownTimer = setInterval(renderCountdown, 1000);
    schedulePoll(boot.poll_ms);
  }
})();
