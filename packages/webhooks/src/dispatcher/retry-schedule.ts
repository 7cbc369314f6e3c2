/**
 * When a delivery is attempted (docs/spec/decisions.md §5): at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h
 * and 10 h after the attempt before. After the eighth the delivery is `failed` (redeliverable),
 * and a verification request still undecided returns its payout (docs/spec/decisions.md §2).
 */

/** Seconds to wait before attempt `n + 1` after attempt `n` failed, for n = 1..7. */
export const retryDelaysSeconds: readonly number[] = [
  5,
  5 * 60,
  30 * 60,
  2 * 3600,
  5 * 3600,
  10 * 3600,
  10 * 3600,
];

/** Attempts per delivery: the first plus one per delay. */
export const maxDeliveryAttempts = retryDelaysSeconds.length + 1;

/** How long a receiver has to answer an attempt, in milliseconds. */
export const deliveryTimeoutMs = 15_000;

/**
 * What follows failed attempt `attempt` (1-based): the next attempt's due time, or `undefined`
 * when it was the last.
 */
export const nextAttemptAt = (attempt: number, failedAt: number): number | undefined => {
  const delay = retryDelaysSeconds[attempt - 1];
  return delay === undefined ? undefined : failedAt + delay;
};
