/**
 * The server registers the built-in `sandbox` acquiring provider in the sandbox, signing with
 * PAYRAIL_UPSTREAM_SANDBOX_SECRET (or the one `main` generated), allowed from
 * PAYRAIL_UPSTREAM_SANDBOX_SOURCES (default loopback), and none in live. Through a real socket
 * on 127.0.0.1, so the source check sees the socket's address, as a same-host reverse proxy's
 * requests would be seen (issue 12, finding 1).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { permissions } from '@payrail/engine';
import { generateSandboxUpstreamSecret, signSandboxUpstream } from '@payrail/sandbox';
import { createMemoryStore } from '@payrail/store-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EnvRecord, parseConfig } from './config.js';
import { type PayrailServer, startPayrail } from './payrail-server.js';
import { call, ok } from './server-process.test-support.js';

const operatorToken = 'operator-token-0123456789';
const secret = generateSandboxUpstreamSecret();

let dir = '';
let servers: PayrailServer[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payrail-upstream-'));
  servers = [];
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await rm(dir, { recursive: true, force: true });
});

const start = async (env: EnvRecord = {}, logged: string[] = []) => {
  const parsed = parseConfig(
    { PORT: '0', PAYRAIL_DATA_DIR: dir, PAYRAIL_UPSTREAM_SANDBOX_SECRET: secret, ...env },
    dir,
  );
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  const server = await startPayrail({
    config: parsed.config,
    adminToken: operatorToken,
    keySecret: new Uint8Array(32).fill(7),
    store: createMemoryStore(),
    log: (line) => logged.push(line),
    timerIntervalMs: 50,
    ...(parsed.config.upstreamSandboxSecret === undefined
      ? {}
      : { upstreamSandboxSecret: parsed.config.upstreamSandboxSecret }),
  });
  servers.push(server);
  return server;
};

/** A POST to the sandbox provider as sent, signed with `secret` unless `headers` say otherwise. */
const post = async (
  server: PayrailServer,
  body: string,
  headers: Record<string, string> = {
    'Content-Type': 'application/json',
    ...signSandboxUpstream(secret, body),
  },
) => {
  const res = await fetch(`${server.url}/upstream/acquiring/sandbox`, {
    method: 'POST',
    headers,
    body,
  });
  return { status: res.status, ...((await res.json()) as object) };
};

const refusal = (status: number, code: number, message: string) => ({
  status,
  code,
  message,
  data: null,
});

/** A merchant with a direct TRON_USDT order of 30 USD, through the operator and merchant API. */
const directOrder = async (server: PayrailServer) => {
  const { merchant } = await ok(server.url, 'POST', '/admin/merchants', operatorToken, {
    name: 'Acme',
  });
  const { api_key } = await ok(
    server.url,
    'POST',
    `/admin/accounts/${merchant.account_id}/api-keys`,
    operatorToken,
    { permissions: [...permissions] },
  );
  const token = api_key.token as string;
  const { webhook } = await ok(server.url, 'POST', '/payment/webhooks', token, {
    url: 'https://merchant.example/hooks',
    events: ['acquiring.*'],
  });
  const created = await ok(server.url, 'POST', '/payment/acquiring/orders', token, {
    out_trade_no: 'UP-1',
    order_currency: 'USD',
    order_amount: '30.00',
    allowed_pay_currencies: ['TRON_USDT'],
    expire_seconds: 600,
    underpay_tolerance: '0',
    notify_webhook_id: webhook.webhook_id,
    mode: 'direct',
    network: 'TRON',
    currency: 'USDT',
  });
  const orderId = created.order.order_id as string;
  const paid = JSON.stringify({
    events: [
      {
        network: 'TRON',
        address: created.payment_address.address,
        token_id: 'TRON_USDT',
        tx_hash: 'tx-1',
        amount: '30',
        status: 'confirmed',
      },
    ],
  });
  const state = async () => ({
    order: (await ok(server.url, 'GET', `/payment/acquiring/orders/${orderId}`, token)).order
      .status,
    balances: (await ok(server.url, 'GET', '/payment/balances?currency=USDT', token)).items,
  });
  return { paid, state };
};

describe('the sandbox upstream provider of the server', () => {
  it('answers a signed report from loopback by default', async () => {
    const server = await start();
    expect(await post(server, '{"events":[]}')).toEqual(
      refusal(400, 51, 'empty upstream webhook event'),
    );
  });

  it('refuses loopback when the sources name other addresses, signed or not', async () => {
    const server = await start({ PAYRAIL_UPSTREAM_SANDBOX_SOURCES: '192.0.2.0/24' });
    expect(await post(server, '{"events":[]}')).toEqual(refusal(403, 61, 'webhook ip not allowed'));
  });

  it('is not there in live', async () => {
    const server = await start({ PAYRAIL_ENV: 'live', PAYRAIL_UPSTREAM_SANDBOX_SECRET: '' });
    expect(await post(server, '{"events":[]}')).toEqual(
      refusal(404, 65, 'unsupported acquiring webhook provider: sandbox'),
    );
  });
});

describe('forged provider events through the server (issue 12, finding 1)', () => {
  it('a forged event from loopback, through a same-host proxy or as a form post leaves the order pending and the balance unchanged; the signed one completes it', async () => {
    const logged: string[] = [];
    const server = await start({}, logged);
    const { paid, state } = await directOrder(server);
    const before = await state();
    expect(before.order).toBe('pending');
    const json = { 'Content-Type': 'application/json' };
    const forgeries: [string, Record<string, string>, unknown][] = [
      ['unsigned, local', json, refusal(401, 61, 'unauthorized')],
      [
        'another secret',
        { ...json, ...signSandboxUpstream(generateSandboxUpstreamSecret(), paid) },
        refusal(401, 61, 'unauthorized'),
      ],
      [
        'through a proxy on this host',
        { ...json, 'X-Forwarded-For': '203.0.113.7' },
        refusal(401, 61, 'unauthorized'),
      ],
      [
        'a form post',
        { 'Content-Type': 'application/x-www-form-urlencoded' },
        refusal(401, 61, 'unauthorized'),
      ],
      ['a text/plain post', { 'Content-Type': 'text/plain' }, refusal(401, 61, 'unauthorized')],
      [
        'signed, as text/plain',
        { 'Content-Type': 'text/plain', ...signSandboxUpstream(secret, paid) },
        refusal(400, 51, 'invalid upstream merchant deposit payload'),
      ],
      [
        'replayed: signed 10 minutes ago',
        {
          ...json,
          ...signSandboxUpstream(secret, paid, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
        },
        refusal(401, 61, 'unauthorized'),
      ],
    ];
    for (const [label, headers, answer] of forgeries) {
      expect(await post(server, paid, headers), label).toEqual(answer);
    }
    expect(await state()).toEqual(before);

    expect(await post(server, paid)).toMatchObject({ status: 200, code: 0 });
    expect(await state()).toEqual({
      order: 'completed',
      balances: [
        { currency: 'USDT', available: '30.000000', held: '0.000000', total: '30.000000' },
      ],
    });
  });

  it('warns once on its log when a forwarded header comes from a peer that is not a trusted proxy', async () => {
    const logged: string[] = [];
    const server = await start({}, logged);
    await call(server.url, 'GET', '/payment/account', 'no-key');
    expect(logged.filter((line) => line.includes('Forwarded'))).toEqual([]);
    for (const header of [{ 'X-Forwarded-For': '198.51.100.4' }, { Forwarded: 'for=192.0.2.9' }]) {
      await fetch(`${server.url}/payment/account`, { headers: header });
    }
    const warnings = logged.filter((line) => line.includes('Forwarded'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('127.0.0.1 is not a trusted proxy (PAYRAIL_TRUSTED_PROXIES)');
    expect(warnings[0]).toContain('ip_whitelist');
    // The header's value is the client's to write: it is never logged.
    expect(warnings[0]).not.toContain('198.51.100.4');
  });

  it('does not warn about forwarded headers from a trusted proxy', async () => {
    const logged: string[] = [];
    const server = await start({ PAYRAIL_TRUSTED_PROXIES: '127.0.0.1' }, logged);
    await fetch(`${server.url}/payment/account`, {
      headers: { 'X-Forwarded-For': '198.51.100.4' },
    });
    expect(logged.filter((line) => line.includes('Forwarded'))).toEqual([]);
  });
});
