/**
 * The one conflict-retry policy of the engine (ADR 0025). Every use case that writes is one unit
 * of work deciding on what it read; when a concurrent unit of work committed first, the store
 * refuses the later commit. The whole unit of work then runs again on fresh reads, so the loser
 * decides on the winner's state and answers from it (a refusal such as `order already final`, a
 * reused record, the same result, or a payout failed for want of funds).
 *
 * A conflict is one of:
 * - `version_conflict`: the record changed between our read and our optimistic write;
 * - `insufficient_balance`: a concurrent debit spent the balance our run read;
 * - `unique_violation` on a collection whose records two units of work may both create under
 *   the same natural key (a beneficiary, a beneficiary account, a deposit address).
 *
 * A rerun may lose a race again (issue 19, L5): two duplicate completion reports of a payout
 * whose hold lost the balance to another payout both fail on `insufficient_balance`; one rerun
 * fails the payout for want of funds while the other's rerun read it still approved, and meets
 * a `version_conflict`. Each conflict is a commit another unit of work made after our reads, and
 * an object moves only a few times (a payout's execution at most twice), so the reruns end when
 * the races do; answering the second one `internal error` told a caller that merely repeated
 * itself that the platform failed. `maxAttempts` only stops a store that refuses without end.
 */
import { isStoreFailure, type Store, type StoreTransaction } from '@payrail/core';
import { type Outcome, unitOfWork } from './unit-of-work.js';

/** Collections whose records a concurrent unit of work may create first with the same key. */
const racedKeys: readonly string[] = ['beneficiaries', 'beneficiary_accounts', 'deposit_addresses'];

/** Runs of one unit of work before a conflict propagates as unexpected (`internal error`). */
export const maxAttempts = 5;

/** Whether `error` is a store refusal that a fresh run of the same unit of work resolves. */
const isConflict = (error: unknown): boolean =>
  isStoreFailure(error) &&
  (error.reason === 'version_conflict' ||
    error.reason === 'insufficient_balance' ||
    (error.reason === 'unique_violation' && racedKeys.includes(error.collection)));

/**
 * Runs `attempt`, and again while it fails on a conflict, `maxAttempts` times at most; anything
 * else propagates at once.
 */
export const retryingConflicts = async <T>(attempt: () => Promise<T>): Promise<T> => {
  for (let run = 1; ; run += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isConflict(error) || run >= maxAttempts) throw error;
    }
  }
};

/** `work` as one unit of work under the conflict-retry policy. */
export const unitOfWorkRetryingConflicts = <T>(
  store: Store,
  work: (tx: StoreTransaction) => Promise<T>,
): Promise<Outcome<T>> => retryingConflicts(() => unitOfWork(store, work));
