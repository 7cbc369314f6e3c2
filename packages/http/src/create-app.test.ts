import { payrailError } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it, vi } from 'vitest';
import { createApp, type InternalErrorLog } from './create-app.js';
import { callerOf, fakeEngine, refusal, withOrigin } from './fake-engine.test-support.js';

const adminToken = 'operator-secret';
const alice = { Authorization: 'Bearer alice-token' };

const setup = (options: Partial<Parameters<typeof createApp>[0]> = {}) => {
  const fake = fakeEngine();
  const logged: InternalErrorLog[] = [];
  const app = createApp({
    engine: fake.engine,
    adminToken,
    logInternalError: (entry) => logged.push(entry),
    ...options,
  });
  return { fake, app, logged };
};

const envelopeOf = async (res: Response) => ({ status: res.status, body: await res.json() });

describe('the envelope', () => {
  it('answers a success as 200 {code 0, message success, data}, never cached', async () => {
    const { app, fake } = setup();
    fake.answer('payouts.get', async () => E.right({ payout: { payout_id: 'po_1' } }));
    const res = await app.request('/payment/payouts/po_1', { headers: alice });
    expect(await envelopeOf(res)).toEqual({
      status: 200,
      body: { code: 0, message: 'success', data: { payout: { payout_id: 'po_1' } } },
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it.each([
    [payrailError('payout_not_found'), 404, 65],
    [payrailError('reference_already_exists'), 400, 53],
    [payrailError('field_required', { field: 'amount' }), 400, 51],
    [payrailError('forbidden'), 403, 61],
    [payrailError('api_key_expired'), 401, 61],
  ])(
    'answers the refusal %o with its catalogue status and code, data null',
    async (error, status, code) => {
      const { app, fake } = setup();
      fake.answer('payouts.get', refusal(error));
      const res = await app.request('/payment/payouts/po_1', { headers: alice });
      expect(await envelopeOf(res)).toEqual({
        status,
        body: { code, message: error.message, data: null },
      });
    },
  );
});

describe('request bodies', () => {
  const post = (app: ReturnType<typeof setup>['app'], body: string | undefined) =>
    app.request('/payment/quickpayout', {
      method: 'POST',
      headers: { ...alice, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body }),
    });

  it.each([
    ['no body', undefined],
    ['an empty body', ''],
    ['blank', '  \n'],
    ['broken JSON', '{"amount": '],
    ['not JSON at all', 'amount=1'],
  ])(
    'hands the engine undefined for %s (the codec answers `request required`)',
    async (_, body) => {
      const { app, fake } = setup();
      await post(app, body);
      expect(fake.calls).toEqual([
        { useCase: 'payouts.create', args: [withOrigin(callerOf('alice')), undefined] },
      ]);
    },
  );

  it('hands the engine any JSON value as parsed (an array is the codec’s to refuse)', async () => {
    const { app, fake } = setup();
    await post(app, '[1,2]');
    expect(fake.calls[0]?.args[1]).toEqual([1, 2]);
  });

  it('does not read the body of a route without one', async () => {
    const { app, fake } = setup();
    await app.request('/payment/payouts/po_1/submit', {
      method: 'POST',
      headers: alice,
      body: '{"ignored":true}',
    });
    expect(fake.calls).toEqual([
      { useCase: 'payouts.submit', args: [withOrigin(callerOf('alice')), 'po_1'] },
    ]);
  });
});

describe('body size limit', () => {
  const limit = 2048;
  const big = JSON.stringify({ remark: 'x'.repeat(limit) });

  it('refuses a body over the limit with 400/51 `Validation Failed`, before the engine', async () => {
    const { app, fake } = setup({ bodyLimitBytes: limit });
    const res = await app.request('/payment/quickpayout', {
      method: 'POST',
      headers: { ...alice, 'Content-Type': 'application/json' },
      body: big,
    });
    expect(await envelopeOf(res)).toEqual({
      status: 400,
      body: { code: 51, message: 'Validation Failed', data: null },
    });
    expect(fake.calls).toEqual([]);
  });

  it('counts a streamed body without Content-Length too', async () => {
    const { app, fake } = setup({ bodyLimitBytes: limit });
    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 512) controller.enqueue(bytes.slice(i, i + 512));
        controller.close();
      },
    });
    const res = await app.request('/payment/quickpayout', {
      method: 'POST',
      headers: alice,
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(400);
    expect(fake.calls).toEqual([]);
  });

  it('accepts a body at the limit', async () => {
    const { app, fake } = setup({ bodyLimitBytes: limit });
    const exact = JSON.stringify({ remark: 'x'.repeat(limit - 13) });
    expect(new TextEncoder().encode(exact).length).toBe(limit);
    const res = await app.request('/payment/quickpayout', {
      method: 'POST',
      headers: { ...alice, 'Content-Length': String(limit) },
      body: exact,
    });
    expect(res.status).toBe(200);
    expect(fake.calls).toHaveLength(1);
  });

  it('defaults to 1 MiB', async () => {
    const { app, fake } = setup();
    const over = JSON.stringify({ remark: 'x'.repeat(1024 * 1024) });
    const res = await app.request('/payment/quickpayout', {
      method: 'POST',
      headers: alice,
      body: over,
    });
    expect(res.status).toBe(400);
    expect(fake.calls).toEqual([]);
  });
});

describe('unknown routes and methods', () => {
  it.each([
    ['GET', '/payment/nothing-here'],
    ['GET', '/payment/payouts/po_1/extra'],
    ['PUT', '/payment/payouts/po_1'],
    ['DELETE', '/payment/quickpayout'],
    ['POST', '/payment/account'],
  ])('%s %s (authenticated) answers 404/65 `route not found`', async (method, path) => {
    const { app, fake } = setup();
    const res = await app.request(path, { method, headers: alice });
    expect(await envelopeOf(res)).toEqual({
      status: 404,
      body: { code: 65, message: 'route not found', data: null },
    });
    expect(fake.calls).toEqual([]);
  });

  it('answers 404 outside the API prefixes without any credential', async () => {
    const { app } = setup();
    const res = await app.request('/nothing');
    expect(await envelopeOf(res)).toEqual({
      status: 404,
      body: { code: 65, message: 'route not found', data: null },
    });
  });

  it('tells an unauthenticated caller nothing about which /payment and /admin paths exist', async () => {
    const { app } = setup();
    for (const path of ['/payment/nothing-here', '/payment/payouts/po_1', '/admin/nothing']) {
      expect((await app.request(path)).status).toBe(401);
    }
  });
});

describe('unexpected failures', () => {
  it('answer 500/50 `internal error` with nothing of the failure, and log it without the token', async () => {
    const { app, fake, logged } = setup();
    const failure = new Error('relation "payouts" violates constraint: SELECT * FROM payouts');
    fake.answer('payouts.get', async () => {
      throw failure;
    });
    const res = await app.request('/payment/payouts/po_1?x=1', { headers: alice });
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toEqual({ code: 50, message: 'internal error', data: null });
    expect(text).not.toMatch(/SELECT|payouts|at .*\.ts/);
    expect(logged).toEqual([
      {
        method: 'GET',
        path: '/payment/payouts/po_1',
        error: failure,
        request_id: res.headers.get('x-request-id'),
        route: '/payment/payouts/:payout_id',
      },
    ]);
    expect(JSON.stringify(logged) + String(logged[0]?.error)).not.toContain('alice-token');
  });

  it('answer `internal error` when authentication itself throws', async () => {
    const { app, logged } = setup({
      engine: {
        ...fakeEngine().engine,
        auth: {
          authenticate: async () => {
            throw new Error('store down');
          },
        },
      } as never,
    });
    const res = await app.request('/payment/account', { headers: alice });
    expect(await envelopeOf(res)).toEqual({
      status: 500,
      body: { code: 50, message: 'internal error', data: null },
    });
    expect(logged).toHaveLength(1);
  });

  it('finding 6: a path with %0d%0a is logged as one line, its control characters escaped', async () => {
    const fake = fakeEngine();
    fake.answer('payouts.get', async () => {
      throw new Error('boom');
    });
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const app = createApp({ engine: fake.engine, adminToken });
      // A line of its own would read `[payrail] GET forged`; `/` would end the path parameter.
      const forged = '/payment/payouts/po_1%0d%0a[payrail]%20GET%20forged%0b%1b%7f';
      expect((await app.request(forged, { headers: alice })).status).toBe(500);
      const line = String(spy.mock.calls[0]?.[0]);
      expect(line).toBe(
        '[payrail/http] GET /payment/payouts/po_1\\u000d\\u000a[payrail] GET forged\\u000b\\u001b\\u007f failed:',
      );
      expect(line).not.toMatch(/\p{Cc}/u);
    } finally {
      spy.mockRestore();
    }
  });

  it('logs to console.error by default', async () => {
    const fake = fakeEngine();
    fake.answer('accounts.current', async () => {
      throw new Error('boom');
    });
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const app = createApp({ engine: fake.engine, adminToken });
      expect((await app.request('/payment/account', { headers: alice })).status).toBe(500);
      expect(spy).toHaveBeenCalledOnce();
      expect(String(spy.mock.calls[0]?.[0])).toContain('GET /payment/account');
    } finally {
      spy.mockRestore();
    }
  });
});

describe('the operator token (/admin)', () => {
  it.each([
    ['no Authorization', {}],
    ['a wrong token', { Authorization: 'Bearer operator-secreT' }],
    ['a prefix of it', { Authorization: 'Bearer operator-secre' }],
    ['another scheme', { Authorization: `Basic ${adminToken}` }],
    ['X-API-Key', { 'X-API-Key': adminToken }],
    ['a merchant key', alice],
  ])('refuses %s with 401/61 `unauthorized`', async (_, headers) => {
    const { app, fake } = setup();
    const res = await app.request('/admin/merchants', { method: 'POST', headers, body: '{}' });
    expect(await envelopeOf(res)).toEqual({
      status: 401,
      body: { code: 61, message: 'unauthorized', data: null },
    });
    expect(fake.calls).toEqual([]);
  });

  it('refuses everything when no operator token is configured', async () => {
    const { app } = setup({ adminToken: '' });
    const res = await app.request('/admin/merchants', {
      method: 'POST',
      headers: { Authorization: 'Bearer ' },
    });
    expect(res.status).toBe(401);
  });

  it('does not let the operator token act as a merchant key', async () => {
    const { app, fake } = setup();
    const res = await app.request('/payment/account', {
      headers: { Authorization: `Bearer ${adminToken}` },
    });
    expect(res.status).toBe(401);
    expect(fake.authentications.map((a) => a.token)).toEqual([adminToken]);
  });
});
