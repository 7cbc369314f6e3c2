/**
 * Issue 12, finding 6: the sandbox clock could be advanced far enough to expire every key (and
 * past any date a timestamp can hold). One advance moves it at most 30 days, all of them at most
 * 366 days ahead of the host's clock (ADR 0033); beyond either the answer is 400/51
 * `seconds must be between 0 and <max>`, with what is left, and the clock stays where it was.
 * The clock lives in the process, not in the store, so the memory store is enough.
 */
import { describe, expect, it } from 'vitest';
import { engineApp, operatorToken, refusalOf, testNow } from './engine-app.test-support.js';

const advance = (h: ReturnType<typeof engineApp>, seconds: unknown) =>
  h.call(
    'POST',
    '/admin/sandbox/clock/advance',
    { Authorization: `Bearer ${operatorToken}` },
    {
      seconds,
    },
  );

const outOfRange = (max: number) => ({
  status: 400,
  code: 51,
  message: `seconds must be between 0 and ${max}`,
  data: null,
});

describe('the sandbox clock can be advanced far enough to expire every key (issue 12, finding 6)', () => {
  it('one advance moves at most 30 days; a larger one moves nothing', async () => {
    const h = engineApp();
    for (const seconds of [2_592_001, 31_536_000, Number.MAX_SAFE_INTEGER]) {
      expect(refusalOf(await advance(h, seconds))).toEqual(outOfRange(2_592_000));
    }
    expect(h.clock.now()).toBe(testNow);
    expect((await advance(h, 2_592_000)).body.data.clock.now).toBe(testNow + 2_592_000);
  });

  it('all advances together move at most 366 days; past that the answer says what is left', async () => {
    const h = engineApp();
    for (let i = 0; i < 12; i += 1) {
      expect((await advance(h, 2_592_000)).status).toBe(200);
    }
    const left = 31_622_400 - 12 * 2_592_000;
    expect(refusalOf(await advance(h, left + 1))).toEqual(outOfRange(left));
    expect(h.clock.now()).toBe(testNow + 12 * 2_592_000);
    expect((await advance(h, left)).body.data.clock.now).toBe(testNow + 31_622_400);
    expect(refusalOf(await advance(h, 1))).toEqual(outOfRange(0));
    expect((await advance(h, 0)).status).toBe(200);
  });

  it('a merchant key issued for a year outlives what one advance can do', async () => {
    const h = engineApp();
    const m = await h.merchant('Clock');
    const { token } = await h.issueKey(m.accountId, {
      permissions: ['payment.account.read'],
      expires_in_seconds: 31_536_000,
    });
    expect(refusalOf(await advance(h, 31_536_000))).toEqual(outOfRange(2_592_000));
    expect((await h.as(token).get('/payment/account')).status).toBe(200);
  });
});
