/**
 * The page in a real Chromium (the system's, driven by playwright-core; no browser is ever
 * downloaded) against a real HTTP server on 127.0.0.1, once in English and once in Simplified
 * Chinese (the browser context's locale sends its Accept-Language): the payer opens
 * checkout_url, chooses TRON_USDT, copies the address, and watches the page follow the sandbox's
 * payments to `completed`; another order changes token and is closed; another runs out of time.
 * axe-core checks every state the test visits. Without /usr/bin/chromium the test is skipped
 * locally and fails in CI (CI=true), where .ci/run installs it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import type { AxeResults } from 'axe-core';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CheckoutHarness, checkoutHarness, operatorToken } from './checkout.test-support.js';
import type { CheckoutLocale, MessageKey } from './locales/checkout-locale.js';
import { en } from './locales/en.js';
import { fillText } from './locales/locale-format.js';
import { zhCN } from './locales/zh-CN.js';

const chromiumPath = '/usr/bin/chromium';
const inCi = process.env.CI === 'true';
const runBrowser = existsSync(chromiumPath) || inCi;
if (!runBrowser) {
  console.warn(
    `[checkout] ${chromiumPath} is missing: the Chromium test is skipped (apt-get install chromium to run it; in CI it fails instead).`,
  );
}

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/** Listens first, so the engine can be built with checkout_url naming the real port. */
const listen = async (fetch: (request: Request) => Response | Promise<Response>) =>
  new Promise<{ server: ServerType; url: string }>((resolve, reject) => {
    const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({ server, url: `http://127.0.0.1:${info.port}` });
    });
    server.once('error', reject);
  });

const headline = (page: Page) => page.locator('#status-headline');

/**
 * Waits for the state the page shows, through a locator: the page's CSP forbids the string
 * evaluation `waitForFunction` would need.
 */
const statusBecomes = (page: Page, status: string) =>
  page.locator(`#status[data-status="${status}"]`).waitFor();

/**
 * axe-core on the page as it is. Its source goes in through Playwright's `evaluate`, which the
 * DevTools protocol runs outside the page's CSP, so the page keeps its real policy (no
 * `bypassCSP` context); axe itself needs no eval. Every finding is reported; the serious and
 * critical ones fail the test, the violations and also what axe could not decide (the old
 * `aria-labelledby` on the address's `<code>` was such a one).
 */
const accessibilityProblems = async (page: Page, state: string) => {
  const loaded = await page.evaluate('typeof window.axe === "object"');
  if (loaded !== true) await page.evaluate(axeSource);
  const results = (await page.evaluate(
    'axe.run(document, { resultTypes: ["violations", "incomplete"] })',
  )) as AxeResults;
  const findings = [
    ...results.violations.map((v) => ({ ...v, kind: 'violation' })),
    ...results.incomplete.map((v) => ({ ...v, kind: 'needs review' })),
  ];
  if (findings.length > 0) {
    console.info(
      findings
        .map(
          (v) =>
            `[checkout] axe ${state}: ${v.kind} ${v.impact ?? 'unknown'} ${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`,
        )
        .join('\n'),
    );
  }
  return findings
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${state}: ${v.kind} ${v.impact} ${v.id}: ${v.help}`);
};

interface Language {
  readonly locale: CheckoutLocale;
  /** What the payer's text must look like: Chinese characters in zh-CN. */
  readonly script: RegExp;
}

const languages: readonly Language[] = [
  { locale: en, script: /^[\p{Script=Latin}\p{P}\p{Zs}\d]+$/u },
  { locale: zhCN, script: /\p{Script=Han}/u },
];

describe.skipIf(!runBrowser)('the checkout page in Chromium', () => {
  let harness: CheckoutHarness | undefined;
  let server: ServerType | undefined;
  let baseUrl = '';
  let browser: Browser | undefined;
  const shots: string[] = [];

  beforeAll(async () => {
    expect(
      existsSync(chromiumPath),
      `${chromiumPath} missing: install it (apt-get install chromium) before the tests`,
    ).toBe(true);
    const listening = await listen((request) => {
      if (harness === undefined) return new Response('starting', { status: 503 });
      return harness.app.fetch(request);
    });
    server = listening.server;
    baseUrl = listening.url;
    harness = checkoutHarness({ checkoutBaseUrl: `${baseUrl}/checkout`, pollIntervalMs: 400 });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: chromiumArgs,
      headless: true,
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => {
      if (server === undefined) resolve();
      else server.close(() => resolve());
    });
    if (shots.length > 0) console.info(`[checkout] screenshots: ${shots.join(' ')}`);
  });

  /** A browser whose language is `locale`: it sends that Accept-Language, as a payer's would. */
  const contextIn = async (locale: string): Promise<BrowserContext> => {
    if (browser === undefined) throw new Error('no browser');
    return browser.newContext({
      locale,
      viewport: { width: 400, height: 860 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
  };

  /** A page that records every request it makes and every error or CSP complaint it logs. */
  const openPage = async (context: BrowserContext) => {
    const page = await context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    return { page, requests, problems };
  };

  const screenshot = async (page: Page, name: string) => {
    const path = join(tmpdir(), `payrail-checkout-${name}.png`);
    await page.screenshot({ path, fullPage: true });
    const png = await readFile(path);
    expect(png.byteLength).toBeGreaterThan(5_000);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    shots.push(path);
    return path;
  };

  describe.each(languages)('in $locale.name', ({ locale, script }) => {
    const t = (key: MessageKey, values: Record<string, string> = {}) =>
      fillText(locale.messages[key], values);
    const option = (currency: string, network: 'TRON' | 'BASE') =>
      t('choose.option', { currency, network: t(`network.${network}`) });
    const tag = locale.tag;

    it('takes a payer from choosing TRON_USDT to completed, polling as the sandbox pays', async () => {
      if (harness === undefined) throw new Error('no harness');
      const h = harness;
      const seller = await h.merchant();
      const order = await h.order(seller, {
        out_trade_no: 'INV-<7>&"x"',
        redirect_url: 'https://shop.example/thanks?order=INV-7',
      });
      expect(order.checkout_url).toBe(`${baseUrl}/checkout/${order.order_id}`);

      const context = await contextIn(tag);
      const { page, requests, problems } = await openPage(context);
      const a11y: string[] = [];
      const response = await page.goto(order.checkout_url);
      expect(response?.status()).toBe(200);
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe(tag);
      await expect(page.title()).resolves.toBe(
        t('page.title', { amount: '25.00', currency: 'USD' }),
      );
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        t('page.title', { amount: '25.00', currency: 'USD' }),
      );
      // The merchant's reference is text, not markup.
      await expect(page.locator('#out-trade-no').textContent()).resolves.toBe('INV-<7>&"x"');
      const waiting = (await headline(page).textContent()) ?? '';
      expect(waiting).toBe(t('status.pending'));
      expect(waiting).toMatch(script);
      if (tag === 'zh-CN') {
        expect(waiting).toBe('等待您付款');
        await expect(page.locator('#pay-amount').textContent()).resolves.toBe(
          '25.000000 USDT或USDC',
        );
      } else {
        await expect(page.locator('#pay-amount').textContent()).resolves.toBe(
          '25.000000 USDT or USDC',
        );
      }
      await expect(page.locator('#status-detail').textContent()).resolves.toBe(
        t('detail.pending.choose'),
      );
      await expect(page.locator('#countdown').textContent()).resolves.toMatch(/^1[45]:\d\d$/);
      // The browser writes the expiry in its own time zone and language.
      await expect(page.locator('#expires-at').textContent()).resolves.toMatch(
        tag === 'zh-CN' ? /^2027年1月15日/ : /^Jan 15, 2027/,
      );
      const groups = await page.locator('#choose legend').allTextContents();
      expect(groups).toEqual(['USDT', 'USDC']);
      a11y.push(...(await accessibilityProblems(page, 'choose')));
      await screenshot(page, `${tag}-choose`);

      const qrLoaded = page.waitForResponse((r) => r.url().includes('/qr.svg?'));
      await page.getByRole('button', { name: option('USDT', 'TRON') }).click();
      await page.locator('#pay').waitFor({ state: 'visible' });
      expect(await page.locator('#choose').isVisible()).toBe(false);
      const shown = (await page.locator('#address').textContent()) ?? '';
      const chosen = await h.call('GET', `/checkout/api/orders/${order.order_id}`);
      expect(chosen.order.selected_token).toMatchObject({ token_id: 'TRON_USDT', address: shown });
      expect(shown).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      await expect(page.locator('#pay-title').textContent()).resolves.toBe(
        t('pay.title', { amount: '25.000000', currency: 'USDT', network: t('network.TRON') }),
      );
      await expect(page.locator('#hint').textContent()).resolves.toBe(
        t('pay.warning', { currency: 'USDT', network: t('network.TRON') }),
      );
      const qr = await qrLoaded;
      expect(qr.status()).toBe(200);
      expect(qr.headers()['content-type']).toBe('image/svg+xml; charset=utf-8');
      expect(qr.url()).toBe(
        `${baseUrl}/checkout/${order.order_id}/qr.svg?address=${encodeURIComponent(shown)}`,
      );
      await expect
        .poll(() =>
          page.locator('#qr').evaluate((img) => (img as { naturalWidth: number }).naturalWidth),
        )
        .toBeGreaterThan(0);

      await page.getByRole('button', { name: t('pay.copy'), exact: true }).click();
      await page.locator('#copy-result', { hasText: t('pay.copied') }).waitFor();
      await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(shown);
      a11y.push(...(await accessibilityProblems(page, 'address')));
      await screenshot(page, `${tag}-address`);

      // Part of the money, then the rest: the page follows by polling, nothing reloads it.
      const first = await h.pay(order.order_id, {
        token_id: 'TRON_USDT',
        amount: '10.000000',
        status: 'confirmed',
        tx_hash: `0xaaa1${tag}`,
      });
      expect(first.payment.address).toBe(shown);
      await statusBecomes(page, 'partial_paid');
      await expect(headline(page).textContent()).resolves.toBe(t('status.partial_paid'));
      expect(await page.locator('#due-row').isVisible()).toBe(true);
      await expect(page.locator('#due-amount').textContent()).resolves.toBe('15.000000 USDT');
      await expect(page.locator('#status-detail').textContent()).resolves.toBe(
        t('detail.partial_paid', { amount: '15.000000', currency: 'USDT' }),
      );
      expect(await page.locator('#change').isVisible()).toBe(false);
      a11y.push(...(await accessibilityProblems(page, 'partial_paid')));

      // One more token than asked: the page completes and says what was paid too much.
      await h.pay(order.order_id, {
        token_id: 'TRON_USDT',
        amount: '16.000000',
        status: 'confirmed',
        tx_hash: `0xaaa2${tag}`,
      });
      await statusBecomes(page, 'completed');
      await expect(headline(page).textContent()).resolves.toBe(t('status.completed'));
      expect(await page.locator('#pay').isVisible()).toBe(false);
      expect(await page.locator('#expiry-row').isVisible()).toBe(false);
      expect(await page.locator('#due-row').isVisible()).toBe(false);
      await expect(page.locator('#paid-amount').textContent()).resolves.toBe('26.000000 USDT');
      await expect(page.locator('#warning').textContent()).resolves.toBe(
        t('warning.overpaid', { amount: '1.000000', currency: 'USDT' }),
      );
      const back = page.getByRole('link', { name: t('done.return') });
      await expect(back.getAttribute('href')).resolves.toBe(
        'https://shop.example/thanks?order=INV-7',
      );
      // Without redirect_automatically the page stays, and says nothing of leaving.
      expect(await page.locator('#redirect-note').isVisible()).toBe(false);
      a11y.push(...(await accessibilityProblems(page, 'completed')));
      await screenshot(page, `${tag}-completed`);

      expect(a11y).toEqual([]);
      expect(problems).toEqual([]);
      expect(requests.filter((url) => !url.startsWith(`${baseUrl}/`))).toEqual([]);
      expect(requests.some((url) => url.includes('/checkout/api/orders/'))).toBe(true);
      expect(page.url()).toBe(order.checkout_url);
      await context.close();
    });

    it('lets the payer change token, and says so when the merchant closed the order meanwhile', async () => {
      if (harness === undefined) throw new Error('no harness');
      const h = harness;
      const seller = await h.merchant();
      const order = await h.order(seller, { out_trade_no: 'INV-9' });
      const context = await contextIn(tag);
      const { page, problems } = await openPage(context);
      await page.goto(order.checkout_url);
      await page.getByRole('button', { name: option('USDT', 'TRON') }).click();
      await page.locator('#pay').waitFor({ state: 'visible' });
      const tron = await page.locator('#address').textContent();

      await page.getByRole('button', { name: t('pay.change') }).click();
      await page.locator('#choose').waitFor({ state: 'visible' });
      await page.getByRole('button', { name: option('USDC', 'BASE') }).click();
      await page.locator('#send-network', { hasText: 'Base' }).waitFor();
      const base = (await page.locator('#address').textContent()) ?? '';
      expect(base).toMatch(/^0x[0-9a-fA-F]{40}$/);
      expect(base).not.toBe(tron);
      await expect(page.locator('#qr').getAttribute('src')).resolves.toContain(
        `qr.svg?address=${base}`,
      );

      // The page's polls fail (a flaky network) while the merchant closes the order: choosing
      // again is refused, in the payer's words; once polls get through, the page says why.
      await page.route('**/checkout/api/orders/*', (route) =>
        route.request().method() === 'GET' ? route.abort() : route.continue(),
      );
      await h.call('POST', `/payment/acquiring/orders/${order.order_id}/close`, seller.token, {
        reason: 'customer cancelled',
      });
      await page.getByRole('button', { name: t('pay.change') }).click();
      await page.getByRole('button', { name: option('USDT', 'TRON') }).click();
      await page.locator('#choose-error', { hasText: t('choose.error.final') }).waitFor();
      await page.unroute('**/checkout/api/orders/*');
      await statusBecomes(page, 'closed');
      await expect(headline(page).textContent()).resolves.toBe(t('status.closed'));
      expect(await page.locator('#choose').isVisible()).toBe(false);
      expect(await page.locator('#pay').isVisible()).toBe(false);
      expect(await accessibilityProblems(page, 'closed')).toEqual([]);
      // Besides the aborted polls, the refused choice is the one failure the page saw.
      expect(problems.filter((p) => !p.endsWith('net::ERR_FAILED'))).toEqual([
        `400 ${baseUrl}/checkout/api/orders/${order.order_id}/select`,
        'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
      ]);
      await context.close();
    });

    it('tells the payer when the order has expired and stops offering tokens', async () => {
      if (harness === undefined) throw new Error('no harness');
      const h = harness;
      const seller = await h.merchant();
      const order = await h.order(seller, { out_trade_no: 'INV-8', expire_seconds: 300 });
      const context = await contextIn(tag);
      const { page, problems } = await openPage(context);
      await page.goto(order.checkout_url);
      await expect(page.locator('#countdown').textContent()).resolves.toMatch(/^[45]:\d\d$/);
      expect(await page.locator('#warning').isVisible()).toBe(false);
      // With under two minutes left the page warns that time is running out.
      await h.call('POST', '/admin/sandbox/clock/advance', operatorToken, { seconds: 200 });
      await page.reload();
      await page
        .locator('#warning', { hasText: t('warning.expiring', { minutes: '2' }) })
        .waitFor();
      expect(await accessibilityProblems(page, 'expiring')).toEqual([]);
      await h.call('POST', '/admin/sandbox/clock/advance', operatorToken, { seconds: 101 });
      await statusBecomes(page, 'expired');
      await expect(headline(page).textContent()).resolves.toBe(t('status.expired'));
      await expect(page.locator('#status-detail').textContent()).resolves.toBe(t('detail.expired'));
      expect(await page.locator('#choose').isVisible()).toBe(false);
      expect(await page.locator('#done').isVisible()).toBe(false);
      expect(await page.locator('#warning').isVisible()).toBe(false);
      expect(await accessibilityProblems(page, 'expired')).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });

    it('shows the payer what the merchant refunds, and how far each refund got', async () => {
      if (harness === undefined) throw new Error('no harness');
      const h = harness;
      const seller = await h.merchant();
      const order = await h.order(seller, { out_trade_no: 'INV-12' });
      const context = await contextIn(tag);
      const { page, problems } = await openPage(context);
      await page.goto(order.checkout_url);
      await page.getByRole('button', { name: option('USDT', 'TRON') }).click();
      await page.locator('#pay').waitFor({ state: 'visible' });
      await h.pay(order.order_id, {
        token_id: 'TRON_USDT',
        amount: '30.000000',
        status: 'confirmed',
        tx_hash: '0xccc1',
      });
      await statusBecomes(page, 'completed');
      expect(await page.locator('#refunds').isVisible()).toBe(false);
      // The merchant gives back the 5 USDT paid over the order, after an operator's review.
      const { refund } = await h.call(
        'POST',
        `/payment/acquiring/orders/${order.order_id}/refunds`,
        seller.token,
        { refund_type: 'overpaid', address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' },
      );
      await page.reload();
      await page.locator('#refunds').waitFor({ state: 'visible' });
      await expect(page.locator('#refunds-title').textContent()).resolves.toMatch(/5.*USDT/);
      await expect(page.locator('#refund-list li').textContent()).resolves.toContain(
        t('refund.status.requested'),
      );
      await h.call('POST', `/admin/acquiring/refunds/${refund.refund_id}/review`, operatorToken, {
        action: 'approve',
      });
      await h.call(
        'POST',
        `/admin/sandbox/acquiring/refunds/${refund.refund_id}/execution`,
        operatorToken,
        { outcome: 'completed' },
      );
      await page.reload();
      await expect(page.locator('#refund-list li').textContent()).resolves.toContain(
        t('refund.status.completed'),
      );
      const shown = (await page.locator('#refunds').textContent()) ?? '';
      expect(shown).not.toContain('TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7');
      expect(shown).toMatch(script);
      expect(await accessibilityProblems(page, 'refunded')).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });

    it('answers an unknown order with an accessible page in the language', async () => {
      const context = await contextIn(tag);
      const { page } = await openPage(context);
      const response = await page.goto(`${baseUrl}/checkout/ord_missing`);
      expect(response?.status()).toBe(404);
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe(tag);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        t('message.order_not_found.title'),
      );
      await expect(page.locator('#message').textContent()).resolves.toBe('order not found');
      expect(await accessibilityProblems(page, 'not found')).toEqual([]);
      await context.close();
    });
  });

  it('switches language with the visible control, and keeps the choice over a reload', async () => {
    if (harness === undefined) throw new Error('no harness');
    const h = harness;
    const order = await h.order(await h.merchant(), { out_trade_no: 'INV-10' });
    const context = await contextIn('zh-CN');
    const { page, problems } = await openPage(context);
    await page.goto(order.checkout_url);
    const title = page.getByRole('heading', { level: 1 });
    await expect(title.textContent()).resolves.toBe('支付 25.00 USD');
    const languagesNav = page.getByRole('navigation', { name: '语言' });
    await expect(
      languagesNav.getByRole('link', { name: '简体中文' }).getAttribute('aria-current'),
    ).resolves.toBe('true');

    await languagesNav.getByRole('link', { name: 'English' }).click();
    await page.waitForURL(`${order.checkout_url}?lang=en`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await expect(title.textContent()).resolves.toBe('Pay 25.00 USD');
    await expect(headline(page).textContent()).resolves.toBe('Waiting for your payment');
    // The script speaks the new language too, and its calls still find the order.
    await page.getByRole('button', { name: 'USDT on TRON (TRC-20)' }).click();
    await page.locator('#pay-title', { hasText: 'Send 25.000000 USDT on TRON (TRC-20)' }).waitFor();

    await page.reload();
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await expect(title.textContent()).resolves.toBe('Pay 25.00 USD');
    await page
      .getByRole('navigation', { name: 'Language' })
      .getByRole('link', { name: '简体中文' })
      .click();
    await page.waitForURL(`${order.checkout_url}?lang=zh-CN`);
    await expect(title.textContent()).resolves.toBe('支付 25.00 USD');
    await expect(page.locator('#pay-title').textContent()).resolves.toBe(
      '通过 TRON (TRC-20) 发送 25.000000 USDT',
    );
    expect(problems).toEqual([]);
    await context.close();
  });

  it('goes back to the merchant by itself when the order asked for it, after saying so', async () => {
    if (harness === undefined) throw new Error('no harness');
    const h = harness;
    const order = await h.order(await h.merchant(), {
      out_trade_no: 'INV-11',
      redirect_url: 'https://shop.example/thanks?order=INV-11',
      redirect_automatically: true,
    });
    const context = await contextIn('zh-CN');
    // The merchant's shop, answered in the browser: the test leaves 127.0.0.1 for nothing.
    await context.route('https://shop.example/**', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>shop</title>' }),
    );
    const { page, problems } = await openPage(context);
    await page.goto(order.checkout_url);
    await page.getByRole('button', { name: 'TRON (TRC-20) 上的 USDT' }).click();
    await page.locator('#pay').waitFor({ state: 'visible' });
    await h.pay(order.order_id, {
      token_id: 'TRON_USDT',
      amount: '25.000000',
      status: 'confirmed',
      tx_hash: '0xbbb1',
    });
    await statusBecomes(page, 'completed');
    await expect(page.locator('#redirect-note').textContent()).resolves.toBe(
      '5 秒后将带您返回商户。',
    );
    // The button stays for a payer who does not want to wait.
    expect(await page.getByRole('link', { name: '返回商户' }).isVisible()).toBe(true);
    expect(await accessibilityProblems(page, 'redirecting')).toEqual([]);
    await page.waitForURL('https://shop.example/thanks?order=INV-11');
    expect(problems).toEqual([]);
    await context.close();
  });
});
