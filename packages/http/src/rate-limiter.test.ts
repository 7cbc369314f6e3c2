import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Reservation, tokenBucketLimiter } from './rate-limiter.js';

describe('tokenBucketLimiter', () => {
  it('allows the burst at once, then the rate', () => {
    let ms = 0;
    const limiter = tokenBucketLimiter({ requestsPerSecond: 10, burst: 20, now: () => ms });
    const allowed = () =>
      Array.from({ length: 30 }, () => limiter.take('k')).filter((d) => d.allowed).length;
    expect(allowed()).toBe(20);
    ms += 1000;
    expect(allowed()).toBe(10);
  });

  it('defaults to 100 per second with a burst of 200 (docs/spec/decisions.md §9)', () => {
    const limiter = tokenBucketLimiter({ now: () => 0 });
    const decisions = Array.from({ length: 201 }, () => limiter.take('k'));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(200);
    expect(decisions[200]).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('says how long to wait, rounded up to whole seconds', () => {
    let ms = 0;
    const limiter = tokenBucketLimiter({ requestsPerSecond: 0.25, burst: 1, now: () => ms });
    expect(limiter.take('k').allowed).toBe(true);
    expect(limiter.take('k')).toEqual({ allowed: false, retryAfterSeconds: 4 });
    ms += 1000;
    expect(limiter.take('k')).toEqual({ allowed: false, retryAfterSeconds: 3 });
    ms += 3000;
    expect(limiter.take('k').allowed).toBe(true);
  });

  it('peek answers what take would, without taking a token', () => {
    let ms = 0;
    const limiter = tokenBucketLimiter({ requestsPerSecond: 1, burst: 2, now: () => ms });
    expect(limiter.peek('a')).toEqual({ allowed: true });
    expect(limiter.trackedKeys()).toBe(0);
    limiter.take('a');
    limiter.take('a');
    expect(limiter.peek('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.peek('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    ms = 1000;
    expect(limiter.peek('a')).toEqual({ allowed: true });
    expect(limiter.take('a')).toEqual({ allowed: true });
    expect(tokenBucketLimiter({ requestsPerSecond: 0 }).peek('a')).toEqual({ allowed: true });
  });

  it('refuses a negative or non-finite setting', () => {
    expect(() => tokenBucketLimiter({ requestsPerSecond: -1 })).toThrow();
    expect(() => tokenBucketLimiter({ requestsPerSecond: Number.NaN })).toThrow();
    expect(() => tokenBucketLimiter({ requestsPerSecond: 5, burst: 0 })).toThrow();
  });

  it('forgets full buckets when many keys pass through (memory stays bounded)', () => {
    let ms = 0;
    const limiter = tokenBucketLimiter({ requestsPerSecond: 1, burst: 1, now: () => ms });
    for (let i = 0; i < 10_000; i++) limiter.take(`k${i}`);
    expect(limiter.trackedKeys()).toBe(10_000);
    ms += 500;
    limiter.take('half-refilled');
    expect(limiter.trackedKeys()).toBe(10_001);
    ms += 500;
    limiter.take('new');
    expect(limiter.trackedKeys()).toBe(2);
  });

  it('never lets a key exceed burst + rate × elapsed in any window (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 300 }),
        (rate, burst, gaps) => {
          let ms = 0;
          const limiter = tokenBucketLimiter({ requestsPerSecond: rate, burst, now: () => ms });
          const allowedAt: number[] = [];
          for (const gap of gaps) {
            ms += gap;
            if (limiter.take('k').allowed) allowedAt.push(ms);
          }
          for (let i = 0; i < allowedAt.length; i++) {
            for (let j = i; j < allowedAt.length; j++) {
              const elapsed = ((allowedAt[j] ?? 0) - (allowedAt[i] ?? 0)) / 1000;
              expect(j - i + 1).toBeLessThanOrEqual(burst + rate * elapsed + 1e-9);
            }
          }
        },
      ),
    );
  });

  it('always allows a request after waiting Retry-After (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.1, max: 500, noNaN: true }),
        fc.integer({ min: 1, max: 20 }),
        (rate, burst) => {
          let ms = 0;
          const limiter = tokenBucketLimiter({ requestsPerSecond: rate, burst, now: () => ms });
          let decision = limiter.take('k');
          while (decision.allowed) decision = limiter.take('k');
          ms += decision.retryAfterSeconds * 1000;
          expect(limiter.take('k').allowed).toBe(true);
        },
      ),
    );
  });

  describe('reservations (issue 19, L4)', () => {
    /** Lets every settled reservation's waiters run. */
    const settle = () => new Promise((resolve) => setImmediate(resolve));

    it('release gives the token back, spend keeps it, and only the first of them counts', async () => {
      const limiter = tokenBucketLimiter({ requestsPerSecond: 1, burst: 2, now: () => 0 });
      const first = await limiter.reserve('k');
      const second = await limiter.reserve('k');
      if (!first.allowed || !second.allowed) throw new Error('two tokens');
      first.release();
      first.release();
      first.spend();
      second.spend();
      second.release();
      expect(limiter.take('k')).toEqual({ allowed: true });
      expect(limiter.take('k')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    });

    it('waits while the tokens left are reserved, then takes one given back or is refused once all are spent', async () => {
      const limiter = tokenBucketLimiter({ requestsPerSecond: 0.1, burst: 1, now: () => 0 });
      const held = await limiter.reserve('k');
      if (!held.allowed) throw new Error('one token');
      let answer: Awaited<ReturnType<typeof limiter.reserve>> | undefined;
      void limiter.reserve('k').then((a) => {
        answer = a;
      });
      await settle();
      expect(answer).toBeUndefined();
      held.release();
      await settle();
      expect(answer?.allowed).toBe(true);
      if (answer?.allowed !== true) throw new Error('given back');
      let refusal: Awaited<ReturnType<typeof limiter.reserve>> | undefined;
      void limiter.reserve('k').then((a) => {
        refusal = a;
      });
      await settle();
      expect(refusal).toBeUndefined();
      answer.spend();
      await settle();
      expect(refusal).toEqual({ allowed: false, retryAfterSeconds: 10 });
      expect(await limiter.reserve('other')).toMatchObject({ allowed: true });
    });

    it('a waiting reservation takes a token the clock refilled when the next one arrives', async () => {
      let ms = 0;
      const limiter = tokenBucketLimiter({ requestsPerSecond: 1, burst: 1, now: () => ms });
      const held = await limiter.reserve('k');
      const waiting = limiter.reserve('k');
      ms += 1000;
      const next = limiter.reserve('k');
      expect(await waiting).toMatchObject({ allowed: true });
      if (held.allowed) held.release();
      expect(await next).toMatchObject({ allowed: true });
    });

    it('is never refused with requestsPerSecond 0', async () => {
      const limiter = tokenBucketLimiter({ requestsPerSecond: 0 });
      for (let i = 0; i < 5; i++) {
        const reservation = await limiter.reserve('k');
        if (reservation.allowed) reservation.spend();
        expect(reservation.allowed).toBe(true);
      }
    });

    it('a bucket with a reservation out is not forgotten by the sweep', async () => {
      let ms = 0;
      const limiter = tokenBucketLimiter({ requestsPerSecond: 1, burst: 1, now: () => ms });
      const held = await limiter.reserve('held');
      for (let i = 0; i < 9_999; i++) limiter.take(`k${i}`);
      ms += 5_000;
      limiter.take('new');
      expect(limiter.trackedKeys()).toBe(2);
      if (held.allowed) held.spend();
    });

    it('requests reserving at once never fail more often than the bucket holds, and none is refused while their failures fit (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 20 }),
          fc.array(fc.boolean(), { minLength: 1, maxLength: 60 }),
          fc.array(fc.nat(), { maxLength: 60 }),
          async (burst, fails, order) => {
            const limiter = tokenBucketLimiter({
              requestsPerSecond: burst / 10,
              burst,
              now: () => 0,
            });
            const holding: { readonly fails: boolean; readonly reservation: Reservation }[] = [];
            let refused = 0;
            const answered = fails.map((failing) =>
              limiter.reserve('k').then((reservation) => {
                if (reservation.allowed) holding.push({ fails: failing, reservation });
                else refused += 1;
              }),
            );
            let failed = 0;
            await settle();
            for (let i = 0; holding.length > 0; i++) {
              const [next] = holding.splice((order[i] ?? 0) % holding.length, 1);
              if (next?.fails === true) {
                failed += 1;
                next.reservation.spend();
              } else {
                next?.reservation.release();
              }
              await settle();
            }
            await Promise.all(answered);
            expect(failed).toBeLessThanOrEqual(burst);
            if (refused > 0) expect(failed).toBe(burst);
          },
        ),
      );
    });
  });
});
