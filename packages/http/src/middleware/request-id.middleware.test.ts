/**
 * The request's id (issue 19, ADR 0040): a client's plain `X-Request-Id` is kept, anything else
 * is replaced by a new UUID; the answer carries it back whatever it is, and the use case gets it
 * with the caller or the operator, for the audit trail.
 */
import { payrailError } from '@payrail/core';
import { bootstrapOperator } from '@payrail/engine';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { createApp } from '../create-app.js';
import { callerOf, fakeEngine } from '../fake-engine.test-support.js';

const adminToken = 'operator-secret';
const alice = { Authorization: 'Bearer alice-token' };
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const setup = () => {
  const fake = fakeEngine();
  const app = createApp({ engine: fake.engine, adminToken, logInternalError: () => {} });
  return { fake, app };
};

describe('X-Request-Id', () => {
  it.each([
    ['letters and digits', 'abc123'],
    ['every allowed punctuation', 'req-1_2.3:4'],
    ['128 characters', 'r'.repeat(128)],
  ])('keeps a client id of %s, answers it and hands it to the use case', async (_, sent) => {
    const { app, fake } = setup();
    const res = await app.request('/payment/account', {
      headers: { ...alice, 'X-Request-Id': sent },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(sent);
    expect(fake.calls).toEqual([
      {
        useCase: 'accounts.current',
        args: [{ ...callerOf('alice'), request_id: sent, client_ip: '127.0.0.1' }],
      },
    ]);
  });

  it.each([
    ['an empty one', ''],
    ['a space', 'a b'],
    ['129 characters', 'r'.repeat(129)],
    ['a slash', 'a/b'],
    ['a comma (two ids folded into one header)', 'a,b'],
    ['a quote', 'a"b'],
  ])('replaces %s by a new UUID', async (_, sent) => {
    const { app, fake } = setup();
    const res = await app.request('/payment/account', {
      headers: { ...alice, 'X-Request-Id': sent },
    });
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(uuid);
    expect(fake.calls.map((call) => (call.args[0] as { request_id: string }).request_id)).toEqual([
      id,
    ]);
  });

  it('gives every request without one an id of its own', async () => {
    const { app } = setup();
    const ids = await Promise.all(
      [1, 2, 3].map(async () => {
        const res = await app.request('/payment/account', { headers: alice });
        return res.headers.get('x-request-id');
      }),
    );
    for (const id of ids) expect(id).toMatch(uuid);
    expect(new Set(ids).size).toBe(3);
  });

  it('hands an admin use case the operator with the request id and the client address', async () => {
    const { app, fake } = setup();
    const res = await app.request('/admin/routes', {
      headers: { Authorization: `Bearer ${adminToken}`, 'X-Request-Id': 'ops-7' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('ops-7');
    expect(fake.calls).toEqual([
      {
        useCase: 'admin.listRoutes',
        args: [{ ...bootstrapOperator, request_id: 'ops-7', client_ip: '127.0.0.1' }, {}],
      },
    ]);
  });

  it.each([
    ['a refused credential', '/payment/account', {}, 401],
    ['a refused operator credential', '/admin/routes', { Authorization: 'Bearer nope' }, 401],
    ['an unknown route', '/payment/nowhere', alice, 404],
    ['the document', '/openapi.json', {}, 200],
  ])('is on every answer: %s', async (_, path, headers, status) => {
    const { app } = setup();
    const res = await app.request(path, { headers: { ...headers, 'X-Request-Id': 'trace-1' } });
    expect(res.status).toBe(status);
    expect(res.headers.get('x-request-id')).toBe('trace-1');
  });

  it('is on an internal error’s answer too', async () => {
    const { app, fake } = setup();
    fake.answer('accounts.current', async () => {
      throw new Error('boom');
    });
    const res = await app.request('/payment/account', {
      headers: { ...alice, 'X-Request-Id': 'trace-500' },
    });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('trace-500');
  });

  describe('is on the early refusals and the catalogue errors (issue 22)', () => {
    const strict = () => {
      const fake = fakeEngine();
      fake.answer('payouts.get', async () => E.left(payrailError('payout_not_found')));
      const app = createApp({
        engine: fake.engine,
        adminToken,
        logInternalError: () => {},
        rateLimit: { requestsPerSecond: 1, burst: 1, now: () => 0 },
        addressLimit: { failedAuthentications: 1, requestsPerSecond: 1, now: () => 0 },
        bodyLimitBytes: 64,
      });
      return (path: string, init: RequestInit = {}) =>
        app.request(path, {
          ...init,
          headers: { ...(init.headers as Record<string, string>), 'X-Request-Id': 'early-1' },
        });
    };
    const json = { 'Content-Type': 'application/json' };
    const operator = { Authorization: `Bearer ${adminToken}`, ...json };

    it.each([
      ['a catalogue error (payout not found)', ['/payment/payouts/po_1'], alice, 404],
      ['the per-key rate limit', ['/payment/payouts/po_1', '/payment/payouts/po_1'], alice, 429],
      [
        'the failed-authentication limit of an address',
        ['/payment/account', '/payment/account'],
        { Authorization: 'Bearer nope' },
        429,
      ],
      [
        'the request rate of an address on /checkout',
        ['/checkout/api/orders/o_1', '/checkout/api/orders/o_1', '/checkout/api/orders/o_1'],
        {},
        429,
      ],
    ])('%s', async (_, paths, headers, status) => {
      const send = strict();
      let res: Response | undefined;
      for (const path of paths) res = await send(path, { headers });
      expect(res?.status).toBe(status);
      expect(res?.headers.get('x-request-id')).toBe('early-1');
    });

    it('a body over the limit', async () => {
      const over = await strict()('/admin/routes', {
        method: 'POST',
        headers: operator,
        body: JSON.stringify({ remark: 'x'.repeat(100) }),
      });
      expect([over.status, over.headers.get('x-request-id')]).toEqual([400, 'early-1']);
    });
  });
});
