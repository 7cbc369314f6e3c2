import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@payrail/core';
import { permissions } from '@payrail/engine';
import { createMemoryStore } from '@payrail/store-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EnvRecord, parseConfig } from './config.js';
import { type PayrailServer, startPayrail } from './payrail-server.js';
import { call } from './server-process.test-support.js';

const adminToken = 'operator-token-0123456789';
const keySecret = new Uint8Array(32).fill(7);

let dir = '';
let servers: PayrailServer[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payrail-server-'));
  servers = [];
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await rm(dir, { recursive: true, force: true });
});

const start = async (store: Store, env: EnvRecord = {}, log: string[] = []) => {
  const parsed = parseConfig({ PORT: '0', PAYRAIL_DATA_DIR: dir, ...env }, dir);
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  const server = await startPayrail({
    config: parsed.config,
    adminToken,
    keySecret,
    store,
    log: (line) => log.push(line),
    timerIntervalMs: 50,
  });
  servers.push(server);
  return server;
};

/** A store whose units of work wait while the gate is closed. */
const gatedStore = () => {
  const inner = createMemoryStore();
  let gate: Promise<void> | undefined;
  let open = (): void => undefined;
  const store: Store = {
    transaction: async (work) => {
      if (gate !== undefined) await gate;
      return inner.transaction(work);
    },
    claimEnvironment: (environment) => inner.claimEnvironment(environment),
    close: () => inner.close(),
  };
  return {
    store,
    inner,
    close: () => {
      gate = new Promise((resolve) => {
        open = resolve;
      });
    },
    open: () => {
      gate = undefined;
      open();
    },
  };
};

describe('startPayrail', () => {
  it('serves the admin and merchant APIs, with checkout_url on the port it listens on', async () => {
    const server = await start(createMemoryStore(), { PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1' });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.url).not.toMatch(/:0$/);
    expect(server.publicUrl).toBe(server.url);

    const created = await call(server.url, 'POST', '/admin/merchants', adminToken, {
      name: 'Acme',
    });
    expect(created).toMatchObject({ status: 200, code: 0 });
    const accountId = created.data.merchant.account_id as string;
    const key = await call(
      server.url,
      'POST',
      `/admin/accounts/${accountId}/api-keys`,
      adminToken,
      {
        permissions,
      },
    );
    const token = key.data.api_key.token as string;
    // http and loopback are accepted only because PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1 reached the engine.
    const webhook = await call(server.url, 'POST', '/payment/webhooks', token, {
      url: 'http://127.0.0.1:9/hooks',
      events: ['acquiring.*'],
    });
    expect(webhook).toMatchObject({ code: 0 });
    const order = await call(server.url, 'POST', '/payment/acquiring/orders', token, {
      out_trade_no: 'O1',
      order_currency: 'USD',
      order_amount: '10.00',
      expire_seconds: 600,
      underpay_tolerance: '0',
      notify_webhook_id: webhook.data.webhook.webhook_id,
    });
    expect(order.data.order.checkout_url).toBe(
      `${server.url}/checkout/${order.data.order.order_id}`,
    );
    // The sandbox catalogue was seeded: method 1 is there.
    const methods = await call(server.url, 'GET', '/payment/payout-methods?currency=USD', token);
    expect(JSON.stringify(methods.data)).toContain('"method_id":1');
  });

  it('refuses insecure webhook targets unless configured', async () => {
    const server = await start(createMemoryStore());
    const { data } = await call(server.url, 'POST', '/admin/merchants', adminToken, { name: 'A' });
    const key = await call(
      server.url,
      'POST',
      `/admin/accounts/${data.merchant.account_id}/api-keys`,
      adminToken,
      { permissions },
    );
    const webhook = await call(server.url, 'POST', '/payment/webhooks', key.data.api_key.token, {
      url: 'http://127.0.0.1:9/hooks',
      events: ['acquiring.*'],
    });
    expect(webhook).toMatchObject({ status: 400, code: 51, message: 'invalid webhook url' });
  });

  it('uses PAYRAIL_PUBLIC_URL for checkout_url and answers the rate limit it was given', async () => {
    const server = await start(createMemoryStore(), {
      PAYRAIL_PUBLIC_URL: 'https://pay.example.com',
      PAYRAIL_RATE_LIMIT: '1',
    });
    expect(server.publicUrl).toBe('https://pay.example.com');
    const { data } = await call(server.url, 'POST', '/admin/merchants', adminToken, { name: 'A' });
    const key = await call(
      server.url,
      'POST',
      `/admin/accounts/${data.merchant.account_id}/api-keys`,
      adminToken,
      { permissions },
    );
    const token = key.data.api_key.token as string;
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push(await call(server.url, 'GET', '/payment/account', token));
    // A burst of twice the rate, then 429.
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
  });

  it('refuses the admin API without the operator token', async () => {
    const server = await start(createMemoryStore());
    expect(await call(server.url, 'POST', '/admin/merchants', 'wrong-token', {})).toMatchObject({
      status: 401,
      code: 61,
    });
  });

  it('fires due timers in the background', async () => {
    const memory = createMemoryStore();
    const server = await start(memory);
    const { data } = await call(server.url, 'POST', '/admin/merchants', adminToken, { name: 'A' });
    const token = (
      await call(
        server.url,
        'POST',
        `/admin/accounts/${data.merchant.account_id}/api-keys`,
        adminToken,
        {
          permissions,
        },
      )
    ).data.api_key.token as string;
    const { data: created } = await call(server.url, 'POST', '/payment/quickpayout', token, {
      client_request_id: 'cr-1',
      currency: 'USD',
      amount: '25.00',
      method_id: 1,
      reference: 'R1',
      notify_url: 'https://merchant.example/payouts',
      beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
      beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'j@example.com' } },
    });
    const payoutId = created.payout.payout_id as string;
    await call(server.url, 'POST', `/admin/payouts/${payoutId}/review`, adminToken, {
      action: 'approve',
    });
    // Approval sets a `payout.execute` timer due now; the loop (every 50 ms here) fires it.
    const pending = async () =>
      memory.transaction((tx) =>
        tx.timers.claimDue({ worker: 'probe', now: 4_000_000_000, limit: 10, leaseSeconds: 0 }),
      );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await pending()).toEqual([]);
  });

  it('finishes a request in flight when stopped, and takes no new one', async () => {
    const gated = gatedStore();
    const server = await start(gated.store);
    gated.close();
    const inFlight = call(server.url, 'POST', '/admin/merchants', adminToken, { name: 'Late' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    let stopped = false;
    const stopping = server.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(fetch(`${server.url}/openapi.json`)).rejects.toThrow();
    expect(stopped).toBe(false);
    gated.open();
    expect(await inFlight).toMatchObject({ status: 200, code: 0 });
    await stopping;
    expect(stopped).toBe(true);
    // A store the host gave is left open.
    expect(gated.inner.closed).toBe(false);
  });

  it('logs an unexpected failure by its message only', async () => {
    const log: string[] = [];
    const broken: Store = {
      transaction: async () => {
        throw new Error('connection reset');
      },
      claimEnvironment: async (environment) => environment,
      close: async () => undefined,
    };
    const server = await start(broken, { PAYRAIL_ENV: 'live' }, log);
    const answer = await call(server.url, 'POST', '/admin/merchants', adminToken, { name: 'A' });
    expect(answer).toMatchObject({ status: 500, code: 50, message: 'internal error' });
    expect(log).toContain('POST /admin/merchants failed: Error: connection reset');
    expect(log.join('\n')).not.toContain(adminToken);
  });
});
