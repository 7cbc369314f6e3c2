/**
 * The server's log as `main` writes it (issue 22, ADR 0047): pino JSON lines, an access record
 * per request carrying the request id the client sent (and echoed), its route template and who
 * called; a failure at error with its message only; and, over a whole session of requests that
 * carry tokens and secrets in headers, bodies, queries and answers, none of them in the log.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@payrail/core';
import { permissions } from '@payrail/engine';
import { createMemoryStore } from '@payrail/store-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { type PayrailServer, startPayrail } from './payrail-server.js';
import { createServerLogger } from './pino-logger.js';
import { ok } from './server-process.test-support.js';

const adminToken = 'operator-token-logs-0123456789';
const keySecret = new Uint8Array(32).fill(9);

let dir = '';
let servers: PayrailServer[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payrail-logs-'));
  servers = [];
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await rm(dir, { recursive: true, force: true });
});

/** A server logging JSON lines into `lines`, as `main` does on stdout. */
const start = async (store: Store, env: Record<string, string> = {}) => {
  const lines: string[] = [];
  const parsed = parseConfig({ PORT: '0', PAYRAIL_DATA_DIR: dir, ...env }, dir);
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  const logger = createServerLogger({
    level: 'info',
    format: 'json',
    write: (line) => lines.push(line),
  });
  const server = await startPayrail({
    config: parsed.config,
    adminToken,
    keySecret,
    store,
    log: logger,
    timerIntervalMs: 50,
  });
  servers.push(server);
  const records = () =>
    lines
      .join('')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
  return { server, lines, records };
};

const get = (url: string, path: string, headers: Record<string, string>) =>
  fetch(`${url}${path}`, { headers });

describe('the access log', () => {
  it('carries the request id the client sent, which the answer echoes, with the route template and the API key', async () => {
    const { server, records } = await start(createMemoryStore());
    const { merchant } = await ok(server.url, 'POST', '/admin/merchants', adminToken, {
      name: 'Logs Co',
    });
    const { api_key } = await ok(
      server.url,
      'POST',
      `/admin/accounts/${merchant.account_id}/api-keys`,
      adminToken,
      { permissions },
    );
    const res = await get(server.url, `/payment/payouts/po_nope`, {
      Authorization: `Bearer ${api_key.token}`,
      'X-Request-Id': 'abc-123',
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    const line = records().find((record) => record.request_id === 'abc-123');
    expect(line).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      pid: process.pid,
      msg: 'request',
      request_id: 'abc-123',
      method: 'GET',
      route: '/payment/payouts/:payout_id',
      status: 404,
      duration_ms: expect.any(Number),
      principal_id: api_key.key_id,
      account_id: merchant.account_id,
    });
    // Every request has its record: the two admin calls, named by the bootstrap operator.
    expect(
      records()
        .filter((record) => record.msg === 'request')
        .map((record) => [record.method, record.route, record.principal_id]),
    ).toEqual([
      ['POST', '/admin/merchants', 'bootstrap'],
      ['POST', '/admin/accounts/:account_id/api-keys', 'bootstrap'],
      ['GET', '/payment/payouts/:payout_id', api_key.key_id],
    ]);
  });

  it('never holds a token or a secret: not of a header, a body, a query, a path or an answer', async () => {
    const { server, lines } = await start(createMemoryStore(), {
      PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1',
    });
    const { merchant } = await ok(server.url, 'POST', '/admin/merchants', adminToken, {
      name: 'Secret Co',
    });
    const { api_key } = await ok(
      server.url,
      'POST',
      `/admin/accounts/${merchant.account_id}/api-keys`,
      adminToken,
      { permissions },
    );
    const sentSecret = 'whsec_c2VudC1pbi1hLWJvZHktbm90LWxvZ2dlZA==';
    const { webhook } = await ok(server.url, 'POST', '/payment/webhooks', api_key.token, {
      url: 'http://127.0.0.1:9/hooks',
      events: ['payout.*'],
      secret: sentSecret,
    });
    // A token in a query and in a path, and a refused token.
    await get(server.url, `/payment/account?token=${api_key.token}`, {
      'X-API-Key': api_key.token,
    });
    await get(server.url, `/payment/payouts/${api_key.token}`, {
      Authorization: `Bearer ${api_key.token}`,
    });
    await get(server.url, '/payment/account', { Authorization: 'Bearer refused-token-0000' });
    const log = lines.join('');
    expect(log).toContain('"msg":"request"');
    for (const secret of [
      adminToken,
      api_key.token,
      sentSecret,
      webhook.secret,
      merchant.notify_secret,
      'refused-token-0000',
    ]) {
      expect(typeof secret).toBe('string');
      expect(log).not.toContain(secret);
    }
  });

  it('logs a failure at error, by its message, under the request id; the client gets `internal error` only', async () => {
    const broken: Store = {
      transaction: async () => {
        throw new Error('connection reset');
      },
      claimEnvironment: async (environment) => environment,
      close: async () => undefined,
    };
    const { server, records } = await start(broken, { PAYRAIL_ENV: 'live' });
    const res = await fetch(`${server.url}/admin/merchants`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${adminToken}`,
        'Content-Type': 'application/json',
        'X-Request-Id': 'trace-500',
      },
      body: JSON.stringify({ name: 'A' }),
    });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('trace-500');
    expect(await res.text()).toBe('{"code":50,"message":"internal error","data":null}');
    const mine = records().filter((record) => record.request_id === 'trace-500');
    expect(mine).toEqual([
      expect.objectContaining({
        level: 'error',
        msg: 'POST /admin/merchants failed: Error: connection reset',
        err: 'Error: connection reset',
        route: '/admin/merchants',
        path: '/admin/merchants',
      }),
      expect.objectContaining({ level: 'error', msg: 'request', status: 500 }),
    ]);
    expect(JSON.stringify(mine)).not.toMatch(/\bat .+\.[jt]s:\d+/);
  });
});
