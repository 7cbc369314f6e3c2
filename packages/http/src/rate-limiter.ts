/**
 * Per-key rate limit (decisions §9): a token bucket per API key, in memory; the same buckets keyed
 * by client address limit failed authentications and the open routes (issue 12, finding 6). Each key may burst
 * `burst` requests and is refilled at `requestsPerSecond`; `requestsPerSecond: 0` turns it off.
 * One process, one set of buckets: behind several processes each one limits on its own.
 */

export interface RateLimitOptions {
  /** Sustained rate per key; 0 turns the limit off. Default 100 (decisions §9). */
  readonly requestsPerSecond?: number;
  /** Bucket size; default twice the rate (200 for the default 100, decisions §9). */
  readonly burst?: number;
  /** Milliseconds; tests move it by hand. */
  readonly now?: () => number;
}

export type RateDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number };

export interface RateLimiter {
  take(key: string): RateDecision;
  /** What `take` would answer, without taking a token. */
  peek(key: string): RateDecision;
  /** How many keys have a bucket (full buckets are forgotten once there are many). */
  trackedKeys(): number;
}

const defaultRequestsPerSecond = 100;

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets are swept when there are more than this many; a full bucket holds no information. */
const sweepThreshold = 10_000;

export const tokenBucketLimiter = (options: RateLimitOptions = {}): RateLimiter => {
  const rate = options.requestsPerSecond ?? defaultRequestsPerSecond;
  if (!Number.isFinite(rate) || rate < 0) throw new Error(`invalid rate limit: ${rate}`);
  if (rate === 0) {
    return {
      take: () => ({ allowed: true }),
      peek: () => ({ allowed: true }),
      trackedKeys: () => 0,
    };
  }
  const burst = options.burst ?? rate * 2;
  if (!Number.isFinite(burst) || burst < 1) throw new Error(`invalid rate limit burst: ${burst}`);
  const now = options.now ?? Date.now;
  const buckets = new Map<string, Bucket>();

  const refill = (bucket: Bucket, at: number): void => {
    bucket.tokens = Math.min(burst, bucket.tokens + ((at - bucket.at) / 1000) * rate);
    bucket.at = at;
  };

  const sweep = (at: number): void => {
    for (const [key, bucket] of buckets) {
      refill(bucket, at);
      if (bucket.tokens >= burst) buckets.delete(key);
    }
  };

  const decisionOf = (bucket: Bucket): RateDecision =>
    bucket.tokens >= 1
      ? { allowed: true }
      : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rate)) };

  return {
    trackedKeys: () => buckets.size,
    peek: (key) => {
      const bucket = buckets.get(key);
      if (bucket === undefined) return { allowed: true };
      refill(bucket, now());
      return decisionOf(bucket);
    },
    take: (key) => {
      const at = now();
      let bucket = buckets.get(key);
      if (bucket === undefined) {
        if (buckets.size >= sweepThreshold) sweep(at);
        bucket = { tokens: burst, at };
        buckets.set(key, bucket);
      } else {
        refill(bucket, at);
      }
      const decision = decisionOf(bucket);
      if (decision.allowed) bucket.tokens -= 1;
      return decision;
    },
  };
};
