import { maxVerificationAttempts } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import {
  deliveryTimeoutMs,
  maxDeliveryAttempts,
  nextAttemptAt,
  retryDelaysSeconds,
} from './retry-schedule.js';

describe('the retry schedule (docs/spec/decisions.md §5)', () => {
  it('attempts at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(retryDelaysSeconds).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000]);
    expect(maxDeliveryAttempts).toBe(8);
    expect(deliveryTimeoutMs).toBe(15_000);
  });

  it('is the schedule the payout machine counts verification attempts on', () => {
    expect(maxDeliveryAttempts).toBe(maxVerificationAttempts);
  });

  it('answers the next due time after each failed attempt, and none after the last', () => {
    const at = 1_800_000_000;
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => (nextAttemptAt(n, at) ?? 0) - at)).toEqual(
      retryDelaysSeconds,
    );
    expect(nextAttemptAt(8, at)).toBeUndefined();
    expect(nextAttemptAt(9, at)).toBeUndefined();
  });
});
