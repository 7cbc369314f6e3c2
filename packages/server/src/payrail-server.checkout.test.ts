/**
 * The server serves the hosted checkout page at the checkout_url its orders answer (decisions
 * §10), beside the checkout JSON calls the page uses.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { permissions } from '@payrail/engine';
import { createMemoryStore } from '@payrail/store-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EnvRecord, parseConfig } from './config.js';
import { type PayrailServer, startPayrail } from './payrail-server.js';
import { ok } from './server-process.test-support.js';

const adminToken = 'operator-token-0123456789';

let dir = '';
let servers: PayrailServer[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payrail-checkout-'));
  servers = [];
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await rm(dir, { recursive: true, force: true });
});

const start = async (env: EnvRecord = {}, store: 'memory' | 'embedded' = 'memory') => {
  const parsed = parseConfig({ PORT: '0', PAYRAIL_DATA_DIR: dir, ...env }, dir);
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  const server = await startPayrail({
    config: parsed.config,
    adminToken,
    keySecret: new Uint8Array(32).fill(7),
    ...(store === 'memory' ? { store: createMemoryStore() } : {}),
    log: () => undefined,
  });
  servers.push(server);
  return server;
};

/** A merchant with a key and an acquiring webhook, through the admin and merchant APIs. */
const merchant = async (url: string) => {
  const { merchant: created } = await ok(url, 'POST', '/admin/merchants', adminToken, {
    name: 'Acme',
  });
  const { api_key } = await ok(
    url,
    'POST',
    `/admin/accounts/${created.account_id}/api-keys`,
    adminToken,
    { permissions },
  );
  const token = api_key.token as string;
  const { webhook } = await ok(url, 'POST', '/payment/webhooks', token, {
    url: 'https://merchant.example/hooks',
    events: ['acquiring.*'],
  });
  return { token, webhookId: webhook.webhook_id as string };
};

const newOrder = (seller: { webhookId: string }, fields: Record<string, unknown> = {}) => ({
  out_trade_no: 'O-1',
  order_currency: 'USD',
  order_amount: '10.00',
  expire_seconds: 600,
  underpay_tolerance: '0',
  notify_webhook_id: seller.webhookId,
  ...fields,
});

describe('the hosted checkout page', () => {
  it('is served at checkout_url, and the page finds its JSON calls beside it', async () => {
    const server = await start();
    const seller = await merchant(server.url);
    const { order } = await ok(
      server.url,
      'POST',
      '/payment/acquiring/orders',
      seller.token,
      newOrder(seller),
    );
    expect(order.checkout_url).toBe(`${server.url}/checkout/${order.order_id}`);

    const page = await fetch(order.checkout_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=UTF-8');
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'self'; script-src 'nonce-[A-Za-z0-9+/=]+'; /,
    );
    expect(await page.text()).toContain('<h1 id="title">Pay 10.00 USD</h1>');
    // The page asks `api/orders/<id>` relative to itself.
    const api = await fetch(new URL(`api/orders/${order.order_id}`, order.checkout_url));
    expect(await api.json()).toMatchObject({ code: 0, data: { order: { status: 'pending' } } });
  });

  it('answers a direct-mode order and an unknown one with a 404 page', async () => {
    const server = await start();
    const seller = await merchant(server.url);
    const { order } = await ok(
      server.url,
      'POST',
      '/payment/acquiring/orders',
      seller.token,
      newOrder(seller, { mode: 'direct', network: 'TRON', currency: 'USDT' }),
    );
    const direct = await fetch(`${server.url}/checkout/${order.order_id}`);
    expect(direct.status).toBe(404);
    expect(await direct.text()).toContain('checkout_url not found');
    const unknown = await fetch(`${server.url}/checkout/ord_missing`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('order not found');
  });

  it('finding 5: a page path with NUL is an unknown order (404 page), on the embedded PostgreSQL store', async () => {
    const server = await start({}, 'embedded');
    for (const path of ['/checkout/ord_%00', '/checkout/ord_%00/qr.svg']) {
      const page = await fetch(`${server.url}${path}`);
      expect(page.status, path).toBe(404);
      expect(await page.text()).toContain('order not found');
    }
    const api = await fetch(`${server.url}/checkout/api/orders/ord_%00`);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ code: 65, message: 'order not found', data: null });
  });

  it('puts checkout_url under PAYRAIL_PUBLIC_URL', async () => {
    const server = await start({ PAYRAIL_PUBLIC_URL: 'https://pay.example.com' });
    const seller = await merchant(server.url);
    const { order } = await ok(
      server.url,
      'POST',
      '/payment/acquiring/orders',
      seller.token,
      newOrder(seller),
    );
    expect(order.checkout_url).toBe(`https://pay.example.com/checkout/${order.order_id}`);
    // Behind the public URL's proxy the same path reaches this server.
    const page = await fetch(`${server.url}${new URL(order.checkout_url).pathname}`);
    expect(page.status).toBe(200);
  });
});
