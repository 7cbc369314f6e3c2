/**
 * The README's picture of the checkout page: a sandbox order served from memory, opened at phone
 * size (390 x 844 CSS pixels) in English and in Simplified Chinese once TRON_USDT is chosen, the
 * two screens side by side in docs/images/checkout-phone.png. Run from packages/checkout:
 *
 *   npx tsx --conditions=@payrail/source scripts/screenshot.ts
 *
 * It drives the system's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) with playwright-core.
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { chromium } from 'playwright-core';
import { type CheckoutHarness, checkoutHarness } from '../src/checkout.test-support.js';
import { checkoutLocales } from '../src/locales/locale-registry.js';

const phone = { width: 390, height: 844 };
const gap = 16;
const output = new URL('../../../docs/images/checkout-phone.png', import.meta.url);
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const listen = (fetch: (request: Request) => Response | Promise<Response>) =>
  new Promise<{ server: ServerType; url: string }>((resolve, reject) => {
    const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({ server, url: `http://127.0.0.1:${info.port}` });
    });
    server.once('error', reject);
  });

let harness: CheckoutHarness | undefined;
const { server, url } = await listen((request) =>
  harness === undefined ? new Response('starting', { status: 503 }) : harness.app.fetch(request),
);
harness = checkoutHarness({ checkoutBaseUrl: `${url}/checkout` });
const seller = await harness.merchant();
const order = await harness.order(seller, { out_trade_no: 'SHOP-1042' });
await harness.call('POST', `/checkout/api/orders/${order.order_id}/select`, undefined, {
  network: 'TRON',
  currency: 'USDT',
});

const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  headless: true,
});
try {
  const screens: string[] = [];
  for (const locale of checkoutLocales) {
    const context = await browser.newContext({ locale: locale.tag, viewport: phone });
    const page = await context.newPage();
    await page.goto(`${order.checkout_url}?lang=${locale.tag}`);
    await page.locator('#pay').waitFor({ state: 'visible' });
    await page
      .locator('#qr')
      .evaluate((img) =>
        (img as unknown as { decode: () => Promise<void> }).decode().catch(() => undefined),
      );
    screens.push((await page.screenshot({ type: 'png' })).toString('base64'));
    await context.close();
  }
  // The screens side by side, laid out by the browser itself: no image library needed.
  const board = await browser.newPage({
    viewport: {
      width: phone.width * screens.length + gap * (screens.length - 1),
      height: phone.height,
    },
  });
  await board.setContent(
    `<body style="margin:0;display:flex;gap:${gap}px;background:#ffffff">${screens
      .map(
        (png) =>
          `<img width="${phone.width}" height="${phone.height}" src="data:image/png;base64,${png}">`,
      )
      .join('')}</body>`,
  );
  mkdirSync(new URL('.', output), { recursive: true });
  await board.screenshot({ path: output.pathname, type: 'png' });
  console.info(`[checkout] wrote ${output.pathname}`);
} finally {
  await browser.close();
  server.close();
}
