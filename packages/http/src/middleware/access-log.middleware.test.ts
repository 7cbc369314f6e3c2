/**
 * The access log (issue 22): one entry per request, with the id the client sent (also echoed in
 * the answer), the route template, the status, the duration and who called; never a header, a
 * body, a path or a query, so no token or secret a request carries.
 */
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { payrailError } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { createApp, type InternalErrorLog } from '../create-app.js';
import { fakeEngine } from '../fake-engine.test-support.js';
import { serve } from '../serve.js';
import type { AccessLogEntry } from './access-log.middleware.js';

const adminToken = 'operator-secret-0123456789';
const alice = { Authorization: 'Bearer alice-token' };

const setup = (limits: { rateLimit?: { requestsPerSecond: number; burst: number } } = {}) => {
  const fake = fakeEngine();
  const entries: AccessLogEntry[] = [];
  const failures: InternalErrorLog[] = [];
  const app = createApp({
    engine: fake.engine,
    adminToken,
    logRequest: (entry) => entries.push(entry),
    logInternalError: (entry) => failures.push(entry),
    ...(limits.rateLimit === undefined ? {} : { rateLimit: { ...limits.rateLimit, now: () => 0 } }),
  });
  return { fake, app, entries, failures };
};

describe('the access log', () => {
  it('gives a merchant request one entry: the id the client sent (echoed), the route template, the key and the account', async () => {
    const { app, entries } = setup();
    const res = await app.request('/payment/payouts/po_7?cursor=abc', {
      headers: { ...alice, 'X-Request-Id': 'abc-123' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    expect(entries).toEqual([
      {
        request_id: 'abc-123',
        method: 'GET',
        route: '/payment/payouts/:payout_id',
        status: 200,
        duration_ms: expect.any(Number),
        principal_id: 'key_alice',
        account_id: 'acc_alice',
      },
    ]);
    expect(entries[0]?.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('names the operator of an admin request (`bootstrap` for the admin token)', async () => {
    const { app, entries } = setup();
    await app.request('/admin/routes', { headers: { Authorization: `Bearer ${adminToken}` } });
    expect(entries).toMatchObject([
      { method: 'GET', route: '/admin/routes', status: 200, principal_id: 'bootstrap' },
    ]);
  });

  it('logs refusals too: a refused credential (no principal), a catalogue error, the rate limit, an unknown route (no route)', async () => {
    const { app, fake, entries } = setup({ rateLimit: { requestsPerSecond: 1, burst: 1 } });
    fake.answer('payouts.get', async () => E.left(payrailError('payout_not_found')));
    await app.request('/payment/account', { headers: { Authorization: 'Bearer wrong' } });
    await app.request('/payment/payouts/po_1', { headers: alice });
    await app.request('/payment/payouts/po_1', { headers: alice });
    await app.request('/nowhere/at/all', { headers: alice });
    expect(
      entries.map(({ route, status, principal_id }) => ({ route, status, principal_id })),
    ).toEqual([
      { route: '/payment/account', status: 401, principal_id: undefined },
      { route: '/payment/payouts/:payout_id', status: 404, principal_id: 'key_alice' },
      { route: '/payment/payouts/:payout_id', status: 429, principal_id: undefined },
      { route: undefined, status: 404, principal_id: undefined },
    ]);
  });

  it('logs a failure with the request id of its access entry, and the client sees nothing of it', async () => {
    const { app, fake, entries, failures } = setup();
    fake.answer('payouts.get', async () => {
      throw new Error('connection reset at SELECT * FROM payouts');
    });
    const res = await app.request('/payment/payouts/po_1', {
      headers: { ...alice, 'X-Request-Id': 'trace-500' },
    });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('trace-500');
    expect(await res.text()).not.toMatch(/connection reset|SELECT|\.ts:/);
    expect(entries).toMatchObject([{ request_id: 'trace-500', status: 500 }]);
    expect(failures).toMatchObject([
      { request_id: 'trace-500', route: '/payment/payouts/:payout_id' },
    ]);
  });

  it('never carries a token, a secret of a body, a path or a query', async () => {
    const { app, entries } = setup();
    await app.request('/payment/webhooks?token=query-secret-1', {
      method: 'POST',
      headers: { ...alice, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/hook', secret: 'whsec_body-secret-2' }),
    });
    await app.request('/admin/accounts/acc_path-secret-3/api-keys', {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}`, 'X-API-Key': 'header-secret-4' },
      body: '{}',
    });
    const text = JSON.stringify(entries);
    expect(entries).toHaveLength(2);
    for (const secret of [
      'alice-token',
      adminToken,
      'query-secret-1',
      'body-secret-2',
      'path-secret-3',
      'header-secret-4',
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it('over a socket: a client cut off mid-body (Node answers 408) is logged as 499 with its id; headers Node refuses (431) never reach the app', async () => {
    const entries: AccessLogEntry[] = [];
    const app = createApp({
      engine: fakeEngine().engine,
      adminToken,
      logRequest: (entry) => entries.push(entry),
    });
    const running = await serve(app, {
      port: 0,
      hostname: '127.0.0.1',
      requestTimeoutMs: 300,
      headersTimeoutMs: 200,
    });
    const raw = (request: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(new URL(running.url).port), '127.0.0.1');
        let said = '';
        socket.on('data', (chunk) => {
          said += String(chunk);
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(said));
        socket.write(request);
      });
    try {
      const slow = await raw(
        'POST /payment/quickpayout HTTP/1.1\r\nHost: x\r\nX-API-Key: alice-token\r\n' +
          'X-Request-Id: slow-1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
      );
      expect(slow).toMatch(/^HTTP\/1\.1 408 /);
      const huge = await raw(
        `GET /openapi.json HTTP/1.1\r\nHost: x\r\nX-Request-Id: huge-1\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`,
      );
      expect(huge).toMatch(/^HTTP\/1\.1 431 /);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(entries).toEqual([
        expect.objectContaining({
          request_id: 'slow-1',
          route: '/payment/quickpayout',
          status: 499,
          principal_id: 'key_alice',
        }),
      ]);
    } finally {
      (running.server as Server).closeAllConnections();
      await running.close();
    }
  });
});
