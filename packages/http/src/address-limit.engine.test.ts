/**
 * Issue 12, finding 6: the rate limit ran only after authentication, so a flood of bad tokens was
 * never limited, and nothing limited the admin, checkout or upstream routes. Now each client
 * address may fail authentication 50 times per 10 s on `/payment` and `/admin`, then meets
 * 429/54 `rate limit exceeded` with `Retry-After` before its token is looked at; `/checkout` and
 * `/upstream` take 100 requests per second per address (burst 200). Real engine, memory store:
 * no store is involved in the limit.
 *
 * Issue 19, finding L4: one budget served both surfaces (bad merchant tokens locked the operator
 * out), and the budget was only read before the credential was checked, so bad tokens sent at
 * once passed together (the review counted 99 of 400 through a limit of 50; in process, all 400
 * passed). Now `/payment` and `/admin` have a budget each, and a request reserves its token
 * before its credential is checked, giving it back as soon as the credential is good.
 */
import { describe, expect, it } from 'vitest';
import { engineApp, operatorToken, refusalOf } from './engine-app.test-support.js';

const tooMany = { status: 429, code: 54, message: 'rate limit exceeded', data: null };
const from = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });

/** The app with the address limits at their defaults and a clock the test moves. */
const limited = () => {
  let now = 1_800_000_000_000;
  const h = engineApp({ addressLimit: { now: () => now } });
  return {
    h,
    tick: (ms: number) => {
      now += ms;
    },
  };
};

describe('finding 6: limits per client address, before authentication', () => {
  it('a flood of bad tokens meets 429 with Retry-After, and so does a good key from that address; others are not touched', async () => {
    const { h, tick } = limited();
    const m = await h.merchant('Acme');
    const bad = { Authorization: 'Bearer not-a-key' };
    const answers = [];
    for (let i = 0; i < 60; i += 1) {
      answers.push(await h.call('GET', '/payment/account', bad, undefined, from('203.0.113.9')));
    }
    expect(answers.slice(0, 50).every((a) => a.status === 401)).toBe(true);
    expect(answers.slice(50).map(refusalOf)).toEqual(Array(10).fill(tooMany));
    expect(Number(answers[59]?.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    // The address is refused whatever it presents, before the key is looked at ...
    const good = { Authorization: `Bearer ${m.token}` };
    expect(
      refusalOf(await h.call('GET', '/payment/account', good, undefined, from('203.0.113.9'))),
    ).toEqual(tooMany);
    // ... while another address with a good key goes on: good keys never spend the budget.
    for (let i = 0; i < 120; i += 1) {
      const other = await h.call('GET', '/payment/account', good, undefined, from('203.0.113.10'));
      expect(other.status).toBe(200);
    }
    // The bucket refills at 5 failures per second.
    tick(1_000);
    const later = await h.call('GET', '/payment/account', good, undefined, from('203.0.113.9'));
    expect(later.status).toBe(200);
  });

  it('bad operator tokens on /admin meet 429 too', async () => {
    const { h } = limited();
    const statuses = [];
    for (let i = 0; i < 55; i += 1) {
      const answer = await h.call(
        'GET',
        '/admin/payout-methods',
        { Authorization: 'Bearer wrong-operator-token' },
        undefined,
        from('203.0.113.20'),
      );
      statuses.push(answer.status);
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(50);
    expect(statuses.slice(50)).toEqual([429, 429, 429, 429, 429]);
    const operator = { Authorization: `Bearer ${operatorToken}` };
    const elsewhere = await h.call(
      'GET',
      '/admin/payout-methods',
      operator,
      undefined,
      from('10.1.1.1'),
    );
    expect(elsewhere.status).toBe(200);
  });

  it('L4: each surface has its own budget: 60 bad merchant tokens leave /admin open to the operator, and the reverse', async () => {
    const { h } = limited();
    const m = await h.merchant('Acme');
    const address = from('203.0.113.30');
    const payment = (token: string) =>
      h.call('GET', '/payment/account', { Authorization: `Bearer ${token}` }, undefined, address);
    const admin = (token: string) =>
      h.call(
        'GET',
        '/admin/payout-methods',
        { Authorization: `Bearer ${token}` },
        undefined,
        address,
      );
    for (let i = 0; i < 60; i += 1) await payment('not-a-key');
    expect(refusalOf(await payment(m.token))).toEqual(tooMany);
    expect((await admin(operatorToken)).status).toBe(200);

    const other = from('203.0.113.31');
    for (let i = 0; i < 60; i += 1) {
      await h.call(
        'GET',
        '/admin/payout-methods',
        { Authorization: 'Bearer wrong' },
        undefined,
        other,
      );
    }
    const operator = { Authorization: `Bearer ${operatorToken}` };
    expect(
      refusalOf(await h.call('GET', '/admin/payout-methods', operator, undefined, other)),
    ).toEqual(tooMany);
    const good = { Authorization: `Bearer ${m.token}` };
    expect((await h.call('GET', '/payment/account', good, undefined, other)).status).toBe(200);
  });

  it.each([
    ['/payment/account', 'not-a-key'],
    ['/admin/payout-methods', 'wrong-operator-token'],
  ])(
    'L4: 400 bad tokens at once on %s: 50 reach a 401, the other 350 meet 429 with Retry-After',
    async (path, token) => {
      const { h } = limited();
      const bad = { Authorization: `Bearer ${token}` };
      const answers = await Promise.all(
        Array.from({ length: 400 }, () =>
          h.call('GET', path, bad, undefined, from('203.0.113.40')),
        ),
      );
      expect(answers.filter((a) => a.status === 401)).toHaveLength(50);
      const refused = answers.filter((a) => a.status !== 401);
      expect(refused.map(refusalOf)).toEqual(Array(350).fill(tooMany));
      expect(refused.every((a) => Number(a.headers.get('Retry-After')) >= 1)).toBe(true);
    },
  );

  it('L4: good keys in flight are not held back by their own reservations: 100 at once from one address all answer 200', async () => {
    const { h } = limited();
    const m = await h.merchant('Acme');
    const address = from('203.0.113.50');
    const good = { Authorization: `Bearer ${m.token}` };
    const operator = { Authorization: `Bearer ${operatorToken}` };
    const answers = await Promise.all([
      ...Array.from({ length: 100 }, () =>
        h.call('GET', '/payment/account', good, undefined, address),
      ),
      ...Array.from({ length: 100 }, () =>
        h.call('GET', '/admin/payout-methods', operator, undefined, address),
      ),
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array(200).fill(200));
    // Nothing was spent: the address still has its whole budget for bad tokens.
    const bad = await Promise.all(
      Array.from({ length: 51 }, () =>
        h.call('GET', '/payment/account', { Authorization: 'Bearer x' }, undefined, address),
      ),
    );
    expect(bad.map((a) => a.status).sort()).toEqual([...Array(50).fill(401), 429]);
  });

  it('checkout and upstream: more than 200 requests at once from one address meet 429', async () => {
    const { h, tick } = limited();
    for (const path of ['/checkout/api/orders/ord_missing', '/upstream/acquiring/none']) {
      const method = path.startsWith('/upstream') ? 'POST' : 'GET';
      const body = method === 'POST' ? { events: [] } : undefined;
      const statuses = [];
      for (let i = 0; i < 205; i += 1) {
        statuses.push((await h.call(method, path, {}, body, from('192.0.2.7'))).status);
      }
      expect(statuses.slice(0, 200).every((s) => s === 404)).toBe(true);
      expect(statuses.slice(200)).toEqual([429, 429, 429, 429, 429]);
      tick(10_000);
    }
  });
});
