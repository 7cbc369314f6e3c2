/**
 * Per-key rate limit (docs/spec/decisions.md §9): a token bucket per API key, in memory; the same buckets keyed
 * by client address limit failed authentications and the open routes (issue 12, finding 6). Each key may burst
 * `burst` requests and is refilled at `requestsPerSecond`; `requestsPerSecond: 0` turns it off.
 * One process, one set of buckets: behind several processes each one limits on its own.
 *
 * What is only known after the request (was its credential bad?) is counted with a reservation
 * (issue 19, L4): the token is taken before and given back once the request is known not to count,
 * so requests in flight together can never spend more than the bucket holds.
 */

export interface RateLimitOptions {
  /** Sustained rate per key; 0 turns the limit off. Default 100 (docs/spec/decisions.md §9). */
  readonly requestsPerSecond?: number;
  /** Bucket size; default twice the rate (200 for the default 100, docs/spec/decisions.md §9). */
  readonly burst?: number;
  /** Milliseconds; tests move it by hand. */
  readonly now?: () => number;
}

export type RateDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterSeconds: number };

/**
 * A token taken for a request whose outcome decides whether it counts: `release` gives it back
 * (the request did not count), `spend` keeps it. The first of the two called decides; both may be
 * called again at no effect.
 */
export interface Reservation {
  readonly allowed: true;
  release(): void;
  spend(): void;
}

type RateRefusal = Extract<RateDecision, { readonly allowed: false }>;

export interface RateLimiter {
  take(key: string): RateDecision;
  /** What `take` would answer, without taking a token. */
  peek(key: string): RateDecision;
  /**
   * Takes a token to be released or spent later. With no token left while others are reserved,
   * waits until one is given back or, once none is reserved, refuses: a request is never refused
   * for tokens that requests still in flight may give back.
   */
  reserve(key: string): Promise<Reservation | RateRefusal>;
  /** How many keys have a bucket (full buckets are forgotten once there are many). */
  trackedKeys(): number;
}

const defaultRequestsPerSecond = 100;

interface Bucket {
  /** Tokens free to take; a reserved one is not among them. */
  tokens: number;
  at: number;
  /** Tokens reserved and not yet released or spent. */
  reserved: number;
  /** Reservations waiting for a reserved token to be released or spent, first come first served. */
  readonly waiting: ((answer: Reservation | RateRefusal) => void)[];
}

/** Buckets are swept when there are more than this many; a full bucket holds no information. */
const sweepThreshold = 10_000;

/** One limiter's buckets, and the rule they refill by. */
interface Buckets {
  readonly rate: number;
  readonly burst: number;
  readonly now: () => number;
  readonly byKey: Map<string, Bucket>;
}

const refill = ({ rate, burst }: Buckets, bucket: Bucket, at: number): void => {
  bucket.tokens = Math.min(burst, bucket.tokens + ((at - bucket.at) / 1000) * rate);
  bucket.at = at;
};

const sweep = (buckets: Buckets, at: number): void => {
  for (const [key, bucket] of buckets.byKey) {
    refill(buckets, bucket, at);
    // A bucket with reservations out or waiting still holds what they will settle.
    const settled = bucket.reserved === 0 && bucket.waiting.length === 0;
    if (bucket.tokens >= buckets.burst && settled) buckets.byKey.delete(key);
  }
};

const bucketOf = (buckets: Buckets, key: string, at: number): Bucket => {
  const found = buckets.byKey.get(key);
  if (found !== undefined) {
    refill(buckets, found, at);
    return found;
  }
  if (buckets.byKey.size >= sweepThreshold) sweep(buckets, at);
  const bucket: Bucket = { tokens: buckets.burst, at, reserved: 0, waiting: [] };
  buckets.byKey.set(key, bucket);
  return bucket;
};

const refusalOf = ({ rate }: Buckets, bucket: Bucket): RateRefusal => ({
  allowed: false,
  retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rate)),
});

const decisionOf = (buckets: Buckets, bucket: Bucket): RateDecision =>
  bucket.tokens >= 1 ? { allowed: true } : refusalOf(buckets, bucket);

/** A free token reserved, a refusal once none is free or reserved, else `undefined`: wait. */
const reservationOf = (buckets: Buckets, bucket: Bucket): Reservation | RateRefusal | undefined => {
  if (bucket.tokens < 1) return bucket.reserved > 0 ? undefined : refusalOf(buckets, bucket);
  bucket.tokens -= 1;
  bucket.reserved += 1;
  let settled = false;
  const settle = (giveBack: boolean): void => {
    if (settled) return;
    settled = true;
    bucket.reserved -= 1;
    refill(buckets, bucket, buckets.now());
    if (giveBack) bucket.tokens = Math.min(buckets.burst, bucket.tokens + 1);
    answerWaiting(buckets, bucket);
  };
  return { allowed: true, release: () => settle(true), spend: () => settle(false) };
};

/** Answers the waiting reservations, in order, as far as the bucket can decide them now. */
const answerWaiting = (buckets: Buckets, bucket: Bucket): void => {
  while (bucket.waiting.length > 0) {
    const answer = reservationOf(buckets, bucket);
    if (answer === undefined) return;
    bucket.waiting.shift()?.(answer);
  }
};

const reserve = (buckets: Buckets, key: string): Promise<Reservation | RateRefusal> => {
  const bucket = bucketOf(buckets, key, buckets.now());
  // Those already waiting come first, and a refill since may answer some of them.
  answerWaiting(buckets, bucket);
  const answer = bucket.waiting.length === 0 ? reservationOf(buckets, bucket) : undefined;
  if (answer !== undefined) return Promise.resolve(answer);
  return new Promise<Reservation | RateRefusal>((resolve) => {
    bucket.waiting.push(resolve);
  });
};

const peek = (buckets: Buckets, key: string): RateDecision => {
  const bucket = buckets.byKey.get(key);
  if (bucket === undefined) return { allowed: true };
  refill(buckets, bucket, buckets.now());
  return decisionOf(buckets, bucket);
};

const take = (buckets: Buckets, key: string): RateDecision => {
  const bucket = bucketOf(buckets, key, buckets.now());
  const decision = decisionOf(buckets, bucket);
  if (decision.allowed) bucket.tokens -= 1;
  return decision;
};

const unlimitedReservation: Reservation = { allowed: true, release: () => {}, spend: () => {} };

/** `requestsPerSecond: 0`: every request allowed, no bucket kept. */
const unlimited: RateLimiter = {
  take: () => ({ allowed: true }),
  peek: () => ({ allowed: true }),
  reserve: async () => unlimitedReservation,
  trackedKeys: () => 0,
};

export const tokenBucketLimiter = (options: RateLimitOptions = {}): RateLimiter => {
  const rate = options.requestsPerSecond ?? defaultRequestsPerSecond;
  if (!Number.isFinite(rate) || rate < 0) throw new Error(`invalid rate limit: ${rate}`);
  if (rate === 0) return unlimited;
  const burst = options.burst ?? rate * 2;
  if (!Number.isFinite(burst) || burst < 1) throw new Error(`invalid rate limit burst: ${burst}`);
  const buckets: Buckets = { rate, burst, now: options.now ?? Date.now, byKey: new Map() };
  return {
    trackedKeys: () => buckets.byKey.size,
    reserve: (key) => reserve(buckets, key),
    peek: (key) => peek(buckets, key),
    take: (key) => take(buckets, key),
  };
};
