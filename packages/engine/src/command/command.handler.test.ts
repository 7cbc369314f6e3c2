/**
 * The conflict-retry policy alone (issue 19, L5): a rerun that loses a race again runs again, so
 * a caller that merely repeated itself is not answered `internal error`; a store that refuses
 * without end still stops, and anything that is not a race propagates at once.
 */
import { StoreFailure } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import { maxAttempts, retryingConflicts, together } from './command.handler.js';

/** An attempt that throws `failures` in turn, then answers `done`; counts its runs. */
const attemptFailing = (failures: readonly unknown[]) => {
  let runs = 0;
  const attempt = async () => {
    const failure = failures[runs];
    runs += 1;
    if (failure !== undefined) throw failure;
    return 'done';
  };
  return { attempt, runs: () => runs };
};

describe('retryingConflicts', () => {
  it('a rerun that meets a second conflict runs again: the duplicate report racing a shortfall (insufficient_balance, then version_conflict) answers', async () => {
    const { attempt, runs } = attemptFailing([
      new StoreFailure('insufficient_balance', 'ledger'),
      new StoreFailure('version_conflict', 'payouts'),
    ]);
    expect(await retryingConflicts(attempt)).toBe('done');
    expect(runs()).toBe(3);
  });

  it('reruns on every kind of race, one after another', async () => {
    const { attempt, runs } = attemptFailing([
      new StoreFailure('version_conflict', 'orders'),
      new StoreFailure('unique_violation', 'deposit_addresses', ['network', 'address']),
      new StoreFailure('insufficient_balance', 'ledger'),
      new StoreFailure('unique_violation', 'beneficiaries', ['account_id', 'payee_id']),
    ]);
    expect(await retryingConflicts(attempt)).toBe('done');
    expect(runs()).toBe(5);
  });

  it(`a store that refuses without end stops after ${maxAttempts} runs, its conflict propagating`, async () => {
    const conflict = new StoreFailure('version_conflict', 'payouts');
    const { attempt, runs } = attemptFailing(
      Array.from({ length: maxAttempts + 3 }, () => conflict),
    );
    await expect(retryingConflicts(attempt)).rejects.toBe(conflict);
    expect(runs()).toBe(maxAttempts);
  });

  it.each([
    [
      'a unique violation of a key no race creates',
      new StoreFailure('unique_violation', 'payouts'),
    ],
    ['a duplicate journal', new StoreFailure('duplicate_journal', 'ledger')],
    ['an error that is no store refusal', new Error('boom')],
  ])('%s propagates at once, run once', async (_, failure) => {
    const { attempt, runs } = attemptFailing([failure]);
    await expect(retryingConflicts(attempt)).rejects.toBe(failure);
    expect(runs()).toBe(1);
  });
});

describe('together', () => {
  const later = <T>(ms: number, settle: () => T) =>
    new Promise<T>((resolve, reject) => {
      setTimeout(() => {
        try {
          resolve(settle());
        } catch (error) {
          reject(error);
        }
      }, ms);
    });

  it('answers every read, in the order given', async () => {
    expect(await together([later(20, () => 'account'), later(1, () => 'holders')])).toEqual([
      'account',
      'holders',
    ]);
  });

  it('throws the first failure in the order given, not the first to happen, once all settled', async () => {
    let holdersSettled = false;
    const failed = together([
      later(20, () => {
        throw new Error('account frozen');
      }),
      later(1, () => {
        holdersSettled = true;
        throw new Error('store failed');
      }),
      later(30, () => 'webhook'),
    ]);
    await expect(failed).rejects.toThrow('account frozen');
    expect(holdersSettled).toBe(true);
  });
});
