import { type PayrailError, payrailError, StoreUnavailable } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { checkoutHarness, testNow } from './checkout.test-support.js';
import type { CheckoutOrder } from './checkout-order.js';
import { clientScript } from './checkout-page.html.js';
import { checkoutPages, contentSecurityPolicy } from './checkout-pages.js';
import { en } from './locales/en.js';
import { zhCN } from './locales/zh-CN.js';

const pollMs = 3000;

/** The parts of a page a test reads: status, headers, the embedded data and the nonces used. */
const fetchPage = async (
  app: { request: (path: string, init?: RequestInit) => Response | Promise<Response> },
  path: string,
  acceptLanguage?: string,
) => {
  const res = await app.request(
    path,
    acceptLanguage === undefined ? {} : { headers: { 'Accept-Language': acceptLanguage } },
  );
  const body = await res.text();
  const data = /<script type="application\/json" id="checkout-data">(.*?)<\/script>/s.exec(body);
  return {
    status: res.status,
    headers: res.headers,
    body,
    data: data?.[1] === undefined ? undefined : JSON.parse(data[1]),
    nonces: [...body.matchAll(/ nonce="([^"]*)"/g)].map((m) => m[1]),
  };
};

const sampleOrder = (overrides: Partial<CheckoutOrder> = {}): CheckoutOrder => ({
  order_id: 'ord_9',
  out_trade_no: 'SHOP-9',
  status: 'pending',
  order_currency: 'USD',
  order_amount: '12.50',
  pay_amount: '12.500000',
  paid_amount_total: '0.000000',
  remaining_amount: '12.500000',
  overpaid_amount: '0.000000',
  expire_time: testNow + 600,
  pay_tokens: [
    { token_id: 'TRON_USDT', network: 'TRON', currency: 'USDT' },
    { token_id: 'SOL_USDC', network: 'SOL', currency: 'USDC' },
    { token_id: 'ETH_USDT', network: 'ETH', currency: 'USDT' },
  ],
  selected_token: null,
  redirect_automatically: false,
  refunded_amount: '0.000000',
  refunds: [],
  ...overrides,
});

/** The pages over a lookup that answers what the test says (no engine). */
const pagesAnswering = (answer: () => Promise<E.Either<PayrailError, unknown>>) => {
  const logged: unknown[] = [];
  const app = checkoutPages({
    order: answer,
    now: () => testNow,
    logError: (error) => logged.push(error),
  });
  return { app, logged };
};

const hostile = '"><script>alert(1)</script><!--';

describe('GET /checkout/{order_id}', () => {
  it('serves the page of a checkout order under a strict, per-response CSP', async () => {
    const h = checkoutHarness();
    const order = await h.order(await h.merchant());
    expect(order.checkout_url).toBe('http://localhost/checkout/ord_1');

    const page = await fetchPage(h.app, '/checkout/ord_1');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    const [nonce] = page.nonces;
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    // One nonce for the one stylesheet and the one script; nothing else carries it.
    expect(page.nonces).toEqual([nonce, nonce]);
    expect(page.headers.get('content-security-policy')).toBe(
      `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect((await fetchPage(h.app, '/checkout/ord_1')).nonces[0]).not.toBe(nonce);

    expect(page.body).toContain('<h1 id="title">Pay 25.00 USD</h1>');
    expect(page.body).toContain('<dd id="pay-amount">25.000000 USDT or USDC</dd>');
    expect(page.body).toContain('<strong id="status-headline">Waiting for your payment</strong>');
    // The bootstrap is exactly the checkout call's order, plus the service clock.
    const api = await h.call('GET', '/checkout/api/orders/ord_1');
    expect(page.data).toMatchObject({ order: api.order, now: testNow, poll_ms: pollMs });
    expect(h.errors).toEqual([]);
  });

  it('groups the allowed tokens by currency, keeping the order the merchant gave', async () => {
    const { app } = pagesAnswering(async () => E.right({ order: sampleOrder() }));
    const page = await fetchPage(app, '/ord_9');
    const legends = [...page.body.matchAll(/<legend>([^<]*)<\/legend>/g)].map((m) => m[1]);
    expect(legends).toEqual(['USDT', 'USDC']);
    const buttons = [...page.body.matchAll(/data-network="(\w+)" data-currency="(\w+)">([^<]*)</g)];
    expect(buttons.map((m) => [m[1], m[2], m[3]])).toEqual([
      ['TRON', 'USDT', 'USDT on TRON (TRC-20)'],
      ['ETH', 'USDT', 'USDT on Ethereum (ERC-20)'],
      ['SOL', 'USDC', 'USDC on Solana'],
    ]);
  });

  it("escapes every merchant string: no markup of theirs reaches the page's HTML", async () => {
    const { app } = pagesAnswering(async () =>
      E.right({
        order: sampleOrder({
          order_id: `ord_${hostile}`,
          out_trade_no: hostile,
          order_currency: `U<b>SD`,
          logo_url: `https://logo.example/a.png?x=${hostile}`,
          redirect_url: `https://shop.example/?r=${hostile}`,
        }),
      }),
    );
    const page = await fetchPage(app, '/ord_9');
    expect(page.status).toBe(200);
    expect(page.body).not.toContain('<script>alert(1)');
    expect(page.body).not.toContain('<b>SD');
    expect(page.body).not.toContain('<!--');
    // Only the page's own two scripts: the data block and the nonce-bearing one.
    expect(page.body.match(/<script/g)).toHaveLength(2);
    expect(page.body).toContain(
      'Order <span id="out-trade-no">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!--</span>',
    );
    expect(page.body).toContain(
      'src="https://logo.example/a.png?x=%22%3E%3Cscript%3Ealert(1)%3C/script%3E%3C!--"',
    );
    // The data block keeps the strings exactly, with no `<` a parser could act on.
    const block = /id="checkout-data">(.*?)<\/script>/s.exec(page.body)?.[1] ?? '';
    expect(block).not.toContain('<');
    expect(page.data.order.out_trade_no).toBe(hostile);
    expect(page.data.order.redirect_url).toBe(`https://shop.example/?r=${hostile}`);
    // The logo's host, and only it, may serve an image.
    expect(page.headers.get('content-security-policy')).toContain(
      "img-src 'self' https://logo.example;",
    );
  });

  it('shows no logo and allows no foreign image for a logo_url that is not a web address', async () => {
    const { app } = pagesAnswering(async () =>
      E.right({ order: sampleOrder({ logo_url: 'javascript:alert(1)' }) }),
    );
    const page = await fetchPage(app, '/ord_9');
    expect(page.body).not.toContain('id="logo"');
    expect(page.headers.get('content-security-policy')).toContain("img-src 'self';");
  });

  it('answers an unknown order with a 404 page', async () => {
    const h = checkoutHarness();
    const page = await fetchPage(h.app, '/checkout/ord_404');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'self'; script-src/);
    expect(page.body).toContain('<h1 id="title">Order not found</h1>');
    expect(page.body).toContain('<code id="message">order not found</code>');
    expect(page.body).toContain('Check the link you were given');
    expect(page.body).not.toContain('ord_404');
    expect(page.data).toBeUndefined();
  });

  it("answers a direct-mode order with the catalogue's `checkout_url not found` page", async () => {
    const h = checkoutHarness();
    const order = await h.order(await h.merchant(), {
      mode: 'direct',
      network: 'TRON',
      currency: 'USDT',
    });
    expect(order.checkout_url).toBe('');
    const page = await fetchPage(h.app, `/checkout/${order.order_id}`);
    expect(page.status).toBe(404);
    expect(page.body).toContain('<h1 id="title">No checkout page for this order</h1>');
    expect(page.body).toContain('<code id="message">checkout_url not found</code>');
  });

  it('answers a failure with a 500 page that shows nothing of it, and logs it', async () => {
    const failure = payrailError('internal_error');
    const refused = pagesAnswering(async () => E.left(failure));
    const page = await fetchPage(refused.app, '/ord_9');
    expect(page.status).toBe(500);
    expect(page.body).toContain('<h1 id="title">Something went wrong</h1>');
    expect(page.body).toContain('<code id="message">internal error</code>');
    expect(refused.logged).toEqual([failure]);

    const thrown = pagesAnswering(async () => {
      throw new Error('connection reset by db at 10.0.0.7');
    });
    const crashed = await fetchPage(thrown.app, '/ord_9');
    expect(crashed.status).toBe(500);
    expect(crashed.body).not.toContain('10.0.0.7');
    expect(crashed.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
    expect(thrown.logged).toHaveLength(1);

    const odd = pagesAnswering(async () => E.right({ order: { order_id: 'ord_9' } }));
    expect((await fetchPage(odd.app, '/ord_9')).status).toBe(500);
    expect(odd.logged).toHaveLength(1);
  });

  it('answers a store outage (a failover) with a 503 page and Retry-After, the page and its QR code alike', async () => {
    const outage = new StoreUnavailable('no host accepts writes');
    const down = pagesAnswering(async () => {
      throw outage;
    });
    for (const path of ['/ord_9', '/ord_9/qr.svg']) {
      const page = await fetchPage(down.app, path);
      expect(page.status).toBe(503);
      expect(page.headers.get('retry-after')).toBe('1');
      expect(page.headers.get('content-type')).toBe('text/html; charset=UTF-8');
      expect(page.body).toContain('<h1 id="title">Something went wrong</h1>');
      expect(page.body).toContain('<code id="message">service unavailable</code>');
      expect(page.body).not.toContain('no host accepts writes');
    }
    expect(down.logged).toEqual([outage, outage]);

    const refused = pagesAnswering(async () => E.left(payrailError('service_unavailable')));
    const page = await fetchPage(refused.app, '/ord_9');
    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).toBe('1');
  });

  it('leaves the checkout JSON calls and the other routes where they were', async () => {
    const h = checkoutHarness();
    await h.order(await h.merchant());
    const selected = await h.call('POST', '/checkout/api/orders/ord_1/select', undefined, {
      network: 'ETH',
      currency: 'USDC',
    });
    expect(selected.order.selected_token).toMatchObject({ token_id: 'ETH_USDC' });
    const missing = await h.app.request('/checkout/ord_1/elsewhere');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 65, message: 'route not found' });
  });
});

describe("the page in the payer's language", () => {
  it('speaks Simplified Chinese to a zh-CN browser: markup, dictionary, formats, headers', async () => {
    const h = checkoutHarness();
    await h.order(await h.merchant(), { redirect_url: '/thanks', redirect_automatically: true });
    const page = await fetchPage(h.app, '/checkout/ord_1', 'zh-CN,zh;q=0.9,en;q=0.8');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-language')).toBe('zh-CN');
    expect(page.headers.get('vary')).toContain('Accept-Language');
    expect(page.body).toContain('<html lang="zh-CN">');
    expect(page.body).toContain('<title>支付 25.00 USD</title>');
    expect(page.body).toContain('<h1 id="title">支付 25.00 USD</h1>');
    expect(page.body).toContain(
      '<p class="eyebrow">订单 <span id="out-trade-no">ORDER-1001</span></p>',
    );
    expect(page.body).toContain('<dd id="pay-amount">25.000000 USDT或USDC</dd>');
    expect(page.body).toContain('<strong id="status-headline">等待您付款</strong>');
    expect(page.body).toContain('>TRON (TRC-20) 上的 USDT</button>');
    expect(page.body).toContain(
      '<h2 id="pay-title">通过 <span id="send-network"></span> 发送 <span id="send-amount"></span> <span id="send-currency"></span></h2>',
    );
    expect(page.body).toContain(
      '<time id="expires-at" datetime="2027-01-15T08:15:00.000Z">2027年1月15日 UTC 08:15</time>',
    );
    // No English word of the page is left (the network names and tokens are names, not words).
    for (const key of ['choose.title', 'pay.copy', 'facts.time_left', 'done.return'] as const) {
      expect(page.body).not.toContain(`>${en.messages[key]}<`);
    }
    // The script gets the dictionary it speaks and the order's redirect choice; it fetches none.
    expect(page.data).toMatchObject({
      locale: 'zh-CN',
      messages: zhCN.messages,
      redirect_ms: 5000,
      order: { redirect_url: '/thanks', redirect_automatically: true },
    });
  });

  it('offers every language as a link to the same page, marking the current one', async () => {
    const h = checkoutHarness();
    await h.order(await h.merchant());
    const page = await fetchPage(h.app, '/checkout/ord_1', 'zh');
    expect(page.body).toContain('<nav class="languages" aria-label="语言">');
    expect(page.body).toContain('<a href="?lang=en" hreflang="en" lang="en">English</a>');
    expect(page.body).toContain(
      '<a href="?lang=zh-CN" hreflang="zh-CN" lang="zh-CN" aria-current="true">简体中文</a>',
    );
    // No handler attribute anywhere: the links work without script.
    expect(page.body).not.toMatch(/\son[a-z]+=/);
  });

  it('lets ?lang= win over Accept-Language, and ignores a lang it does not know', async () => {
    const h = checkoutHarness();
    await h.order(await h.merchant());
    const english = await fetchPage(h.app, '/checkout/ord_1?lang=en', 'zh-CN');
    expect(english.body).toContain('<html lang="en">');
    expect(english.body).toContain('<h1 id="title">Pay 25.00 USD</h1>');
    const chinese = await fetchPage(h.app, '/checkout/ord_1?lang=zh-CN', 'en-US');
    expect(chinese.body).toContain('<h1 id="title">支付 25.00 USD</h1>');
    const unknown = await fetchPage(h.app, '/checkout/ord_1?lang=xx', 'zh-SG');
    expect(unknown.body).toContain('<html lang="zh-CN">');
    const neither = await fetchPage(h.app, '/checkout/ord_1', 'fr-FR, de;q=0.8');
    expect(neither.body).toContain('<html lang="en">');
    expect(neither.data.messages).toEqual(en.messages);
  });

  it('answers the message pages in the language too, keeping the catalogue message', async () => {
    const h = checkoutHarness();
    const missing = await fetchPage(h.app, '/checkout/ord_404', 'zh-Hans');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-language')).toBe('zh-CN');
    expect(missing.body).toContain('<html lang="zh-CN">');
    expect(missing.body).toContain('<title>未找到订单</title>');
    expect(missing.body).toContain('<h1 id="title">未找到订单</h1>');
    expect(missing.body).toContain('告知商户的参考信息：<code id="message">order not found</code>');
    const qr = await h.app.request('/checkout/ord_404/qr.svg?lang=zh-CN');
    expect(await qr.text()).toContain('<h1 id="title">未找到订单</h1>');
    const failed = pagesAnswering(async () => E.left(payrailError('internal_error')));
    const crashed = await fetchPage(failed.app, '/ord_9', 'zh-CN');
    expect(crashed.body).toContain('<h1 id="title">出错了</h1>');
  });
});

describe('GET /checkout/{order_id}/qr.svg', () => {
  it('draws the chosen address once there is one', async () => {
    const h = checkoutHarness();
    await h.order(await h.merchant());
    const before = await h.app.request('/checkout/ord_1/qr.svg');
    expect(before.status).toBe(404);
    expect(await before.text()).toContain('no payment address chosen');

    const { order } = await h.call('POST', '/checkout/api/orders/ord_1/select', undefined, {
      network: 'TRON',
      currency: 'USDT',
    });
    const res = await h.app.request('/checkout/ord_1/qr.svg');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'");
    const svg = await res.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 37 37"/);
    // The address is drawn, never written into the document.
    expect(svg).not.toContain(order.selected_token.address);
  });

  it('has no QR code for an unknown order', async () => {
    const h = checkoutHarness();
    const res = await h.app.request('/checkout/ord_404/qr.svg');
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('order not found');
  });
});

describe('GET /checkout/favicon.svg', () => {
  it('is served from the page origin, so the browser asks no one else', async () => {
    const h = checkoutHarness();
    const res = await h.app.request('/checkout/favicon.svg');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(await res.text()).toMatch(/^<svg /);
  });
});

describe('contentSecurityPolicy', () => {
  it('adds only the origin of an https or http logo', () => {
    expect(contentSecurityPolicy('n', 'https://cdn.example:8443/l.png?a=1')).toContain(
      "img-src 'self' https://cdn.example:8443;",
    );
    expect(contentSecurityPolicy('n', 'data:image/png;base64,AAAA')).toContain("img-src 'self';");
    expect(contentSecurityPolicy('n')).toContain("script-src 'nonce-n';");
  });
});

describe('the inline script', () => {
  it('cannot end its own element, writes no HTML, and asks only relative URLs', () => {
    expect(clientScript).not.toMatch(/<\/script/i);
    expect(clientScript).not.toMatch(
      /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/,
    );
    expect(clientScript).not.toMatch(/https?:\/\//);
  });
});
