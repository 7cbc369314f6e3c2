import { payrailError } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { createApp } from '../create-app.js';
import { callerOf, fakeEngine } from '../fake-engine.test-support.js';

const setup = (options: Partial<Parameters<typeof createApp>[0]> = {}) => {
  const fake = fakeEngine();
  const app = createApp({ engine: fake.engine, adminToken: 'op', ...options });
  return { fake, app };
};

describe('the presented API key', () => {
  it.each([
    ['Bearer', { Authorization: 'Bearer alice-token' }, 'alice-token'],
    ['a lower-case scheme', { Authorization: 'bearer alice-token' }, 'alice-token'],
    ['X-API-Key', { 'X-API-Key': 'alice-token' }, 'alice-token'],
    ['X-API-Key with spaces', { 'X-API-Key': '  alice-token ' }, 'alice-token'],
    [
      'both (Bearer wins)',
      { Authorization: 'Bearer bob-token', 'X-API-Key': 'alice-token' },
      'bob-token',
    ],
    [
      'a malformed Authorization beside X-API-Key',
      { Authorization: 'Token x', 'X-API-Key': 'alice-token' },
      'alice-token',
    ],
    ['nothing', {}, undefined],
    ['Bearer without a token', { Authorization: 'Bearer ' }, undefined],
    ['another scheme', { Authorization: 'Basic YWxpY2U6eA==' }, undefined],
    ['two tokens', { Authorization: 'Bearer a b' }, undefined],
    ['an empty X-API-Key', { 'X-API-Key': '' }, undefined],
  ])('reads %s', async (_, headers, token) => {
    const { app, fake } = setup();
    await app.request('/payment/account', { headers });
    expect(fake.authentications).toEqual([{ token, ip: '127.0.0.1' }]);
  });

  it('answers the engine’s refusal and runs no use case', async () => {
    const { app, fake } = setup();
    const res = await app.request('/payment/account');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ code: 61, message: 'unauthorized', data: null });
    expect(fake.calls).toEqual([]);
  });

  it('hands the use case the caller the engine authenticated', async () => {
    const { app, fake } = setup();
    const special = callerOf('carol', { permissions: ['payment.account.read'], env: 'live' });
    fake.tokens.set('carol-token', special);
    await app.request(
      '/payment/account',
      { headers: { 'X-API-Key': 'carol-token', 'X-Request-Id': 'req-carol-1' } },
      { incoming: { socket: { remoteAddress: '203.0.113.7' } } },
    );
    // With the request's id and the client's address, for the audit trail (ADR 0040).
    expect(fake.calls).toEqual([
      {
        useCase: 'accounts.current',
        args: [{ ...special, request_id: 'req-carol-1', client_ip: '203.0.113.7' }],
      },
    ]);
  });
});

describe('the client address handed to authentication', () => {
  const env = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });
  const ipsSeen = async (
    options: Partial<Parameters<typeof createApp>[0]>,
    headers: Record<string, string>,
    bindings?: object,
  ) => {
    const { app, fake } = setup(options);
    await app.request(
      '/payment/account',
      { headers: { 'X-API-Key': 'alice-token', ...headers } },
      bindings,
    );
    return fake.authentications.map((a) => a.ip);
  };

  it('is the node-server socket address', async () => {
    expect(await ipsSeen({}, {}, env('203.0.113.7'))).toEqual(['203.0.113.7']);
  });

  it('spells an IPv4 peer of a dual-stack socket as IPv4', async () => {
    expect(await ipsSeen({}, {}, env('::ffff:203.0.113.7'))).toEqual(['203.0.113.7']);
  });

  it('ignores X-Forwarded-For without trusted proxies', async () => {
    expect(await ipsSeen({}, { 'X-Forwarded-For': '198.51.100.1' }, env('203.0.113.7'))).toEqual([
      '203.0.113.7',
    ]);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const seen = await ipsSeen(
      { trustedProxies: ['10.0.0.0/8'] },
      { 'X-Forwarded-For': '198.51.100.1' },
      env('203.0.113.7'),
    );
    expect(seen).toEqual(['203.0.113.7']);
  });

  it('reads X-Forwarded-For from a trusted proxy: the nearest untrusted hop', async () => {
    const seen = await ipsSeen(
      { trustedProxies: ['10.0.0.0/8', '192.0.2.1'] },
      { 'X-Forwarded-For': '1.1.1.1, 198.51.100.1, 192.0.2.1, 10.1.2.3' },
      env('10.0.0.5'),
    );
    expect(seen).toEqual(['198.51.100.1']);
  });

  it('uses an injected socket resolver (other runtimes, tests)', async () => {
    expect(await ipsSeen({ clientIp: () => '198.51.100.9' }, {})).toEqual(['198.51.100.9']);
  });
});

describe('the per-key rate limit', () => {
  const clock = () => {
    let ms = 1_000_000;
    return { now: () => ms, advance: (by: number) => (ms += by) };
  };

  it('answers 429/54 `rate limit exceeded` with Retry-After once a key spent its burst', async () => {
    const time = clock();
    const { app, fake } = setup({ rateLimit: { requestsPerSecond: 2, burst: 3, now: time.now } });
    const get = (key: string) => app.request('/payment/account', { headers: { 'X-API-Key': key } });
    for (let i = 0; i < 3; i++) expect((await get('alice-token')).status).toBe(200);
    const limited = await get('alice-token');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(await limited.json()).toEqual({ code: 54, message: 'rate limit exceeded', data: null });
    expect(fake.calls).toHaveLength(3);

    expect((await get('bob-token')).status).toBe(200);
    time.advance(500);
    expect((await get('alice-token')).status).toBe(200);
    expect((await get('alice-token')).status).toBe(429);
  });

  it('does not count requests that fail authentication against a key', async () => {
    const time = clock();
    const { app } = setup({ rateLimit: { requestsPerSecond: 1, burst: 1, now: time.now } });
    for (let i = 0; i < 5; i++)
      await app.request('/payment/account', { headers: { 'X-API-Key': 'nope' } });
    expect(
      (await app.request('/payment/account', { headers: { 'X-API-Key': 'alice-token' } })).status,
    ).toBe(200);
  });

  it('is off with requestsPerSecond 0', async () => {
    const { app } = setup({ rateLimit: { requestsPerSecond: 0 } });
    for (let i = 0; i < 50; i++) {
      expect(
        (await app.request('/payment/account', { headers: { 'X-API-Key': 'alice-token' } })).status,
      ).toBe(200);
    }
  });

  it('limits per key, not per merchant (keys of one account have buckets of their own)', async () => {
    const time = clock();
    const { app, fake } = setup({ rateLimit: { requestsPerSecond: 1, burst: 1, now: time.now } });
    fake.tokens.set('alice-2', callerOf('alice', { key_id: 'key_alice_2' }));
    expect(
      (await app.request('/payment/account', { headers: { 'X-API-Key': 'alice-token' } })).status,
    ).toBe(200);
    expect(
      (await app.request('/payment/account', { headers: { 'X-API-Key': 'alice-2' } })).status,
    ).toBe(200);
  });

  it('does not apply to the admin API or the checkout calls', async () => {
    const { app, fake } = setup({ rateLimit: { requestsPerSecond: 1, burst: 1 } });
    fake.answer('checkout.order', async () => E.left(payrailError('order_not_found')));
    for (let i = 0; i < 3; i++) {
      expect((await app.request('/checkout/api/orders/ord_1')).status).toBe(404);
      expect(
        (await app.request('/admin/routes', { headers: { Authorization: 'Bearer op' } })).status,
      ).toBe(200);
    }
  });
});

describe('the failed-authentication budget of an address (issue 19, L4)', () => {
  /** The answer, or a failure (not a hang) when it still waits after a second. */
  const soon = async (answer: Response | Promise<Response>): Promise<Response> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('still waiting after 1 s')), 1000);
    });
    try {
      return await Promise.race([answer, late]);
    } finally {
      clearTimeout(timer);
    }
  };

  it.each([
    ['/payment/account', 'accounts.current', 'alice-token'],
    ['/admin/routes', 'admin.listRoutes', 'op'],
  ])(
    'a good credential on %s gives its reservation back at once: a slow answer does not hold the budget',
    async (path, useCase, token) => {
      const { app, fake } = setup({ addressLimit: { failedAuthentications: 1 } });
      let finish: () => void = () => {};
      const slow = new Promise<void>((resolve) => {
        finish = resolve;
      });
      fake.answer(useCase, async () => {
        await slow;
        return E.right({ use_case: useCase });
      });
      const good = app.request(path, { headers: { Authorization: `Bearer ${token}` } });
      // While the good request waits in its use case, the address's one failure is still there.
      const wrong = () => soon(app.request(path, { headers: { Authorization: 'Bearer wrong' } }));
      const bad = await wrong();
      expect(bad.status).toBe(401);
      const spent = await wrong();
      expect(spent.status).toBe(429);
      expect(spent.headers.get('retry-after')).toBe('10');
      expect(await spent.json()).toEqual({ code: 54, message: 'rate limit exceeded', data: null });
      finish();
      expect((await good).status).toBe(200);
    },
  );
});
