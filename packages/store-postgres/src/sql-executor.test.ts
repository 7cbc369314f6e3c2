import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isTransientConflict,
  parseInt8,
  type RetryPolicy,
  retryDelayMs,
  retryingTransactions,
  type SqlSession,
} from './sql-executor.js';

const session = {} as SqlSession;
const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 40 };
const sqlError = (code: string): Error => Object.assign(new Error(`sqlstate ${code}`), { code });

/** A transaction that fails with the given errors, in turn, before it succeeds. */
const failing = (errors: readonly Error[]) => {
  let calls = 0;
  const runOnce = async <T>(work: (s: SqlSession) => Promise<T>): Promise<T> => {
    const error = errors[calls++];
    if (error !== undefined) throw error;
    return work(session);
  };
  return { runOnce, calls: () => calls };
};

describe('the retry policy of units of work', () => {
  it('runs the unit of work again after a serialization failure or a deadlock', async () => {
    const waits: number[] = [];
    const tx = failing([sqlError('40001'), sqlError('40P01')]);
    const transaction = retryingTransactions(tx.runOnce, policy, async (ms) => {
      waits.push(ms);
    });
    await expect(transaction(async () => 'committed')).resolves.toBe('committed');
    expect(tx.calls()).toBe(3);
    expect(waits).toHaveLength(2);
  });

  it('gives up after maxAttempts and rethrows the last conflict', async () => {
    const tx = failing(Array.from({ length: 10 }, () => sqlError('40001')));
    const transaction = retryingTransactions(tx.runOnce, policy, async () => undefined);
    await expect(transaction(async () => 'never')).rejects.toMatchObject({ code: '40001' });
    expect(tx.calls()).toBe(policy.maxAttempts);
  });

  it('never retries anything else: refusals, unique violations, broken connections', async () => {
    for (const error of [new Error('refused'), sqlError('23505'), sqlError('57P01')]) {
      const tx = failing([error]);
      const transaction = retryingTransactions(tx.runOnce, policy, async () => undefined);
      await expect(transaction(async () => 'never')).rejects.toBe(error);
      expect(tx.calls()).toBe(1);
    }
  });

  it('waits a jittered delay that grows with each attempt and is capped', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const delay = retryDelayMs(policy, attempt, () => r);
          const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
          return delay >= 0 && delay <= ceiling;
        },
      ),
    );
    expect(retryDelayMs(policy, 1, () => 0.999)).toBeLessThan(policy.baseDelayMs);
    expect(retryDelayMs(policy, 20, () => 0.999)).toBeGreaterThan(policy.maxDelayMs * 0.99);
  });

  it('knows the transient SQLSTATEs', () => {
    expect(isTransientConflict(sqlError('40001'))).toBe(true);
    expect(isTransientConflict(sqlError('40P01'))).toBe(true);
    expect(isTransientConflict(sqlError('40002'))).toBe(false);
    expect(isTransientConflict(undefined)).toBe(false);
  });
});

describe('bigint columns', () => {
  it('come back as numbers, and refuse what a number cannot hold exactly', () => {
    expect(parseInt8('1700000000')).toBe(1_700_000_000);
    expect(parseInt8('-5')).toBe(-5);
    expect(() => parseInt8('9007199254740993')).toThrow(RangeError);
  });
});
