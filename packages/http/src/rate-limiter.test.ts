import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenBucketLimiter } from './rate-limiter.js';

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

  it('defaults to 100 per second with a burst of 200 (decisions §9)', () => {
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
});
