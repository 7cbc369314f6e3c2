/**
 * The one conflict-retry policy of the engine (ADR 0025). Every use case that writes is one unit
 * of work deciding on what it read; when a concurrent unit of work committed first, the store
 * refuses the later commit. The whole unit of work then runs exactly once more on fresh reads, so
 * the loser decides on the winner's state and answers from it (a refusal such as `order already
 * final`, a reused record, the same result, or a payout failed for want of funds). A second
 * conflict in a row propagates as unexpected (`internal error`, retryable by the client).
 *
 * A conflict is one of:
 * - `version_conflict`: the record changed between our read and our optimistic write;
 * - `insufficient_balance`: a concurrent debit spent the balance our run read;
 * - `unique_violation` on a collection whose records two units of work may both create under
 *   the same natural key (a beneficiary, a beneficiary account, a deposit address).
 */
import { isStoreFailure, type Store, type StoreTransaction } from '@payrail/core';
import { type Outcome, unitOfWork } from './unit-of-work.js';

/** Collections whose records a concurrent unit of work may create first with the same key. */
const racedKeys: readonly string[] = ['beneficiaries', 'beneficiary_accounts', 'deposit_addresses'];

/** Whether `error` is a store refusal that a fresh run of the same unit of work resolves. */
const isConflict = (error: unknown): boolean =>
  isStoreFailure(error) &&
  (error.reason === 'version_conflict' ||
    error.reason === 'insufficient_balance' ||
    (error.reason === 'unique_violation' && racedKeys.includes(error.collection)));

/** Runs `attempt`, and once more when it failed on a conflict; anything else propagates. */
export const retryingConflicts = async <T>(attempt: () => Promise<T>): Promise<T> => {
  try {
    return await attempt();
  } catch (error) {
    if (!isConflict(error)) throw error;
    return attempt();
  }
};

/** `work` as one unit of work under the conflict-retry policy. */
export const unitOfWorkRetryingConflicts = <T>(
  store: Store,
  work: (tx: StoreTransaction) => Promise<T>,
): Promise<Outcome<T>> => retryingConflicts(() => unitOfWork(store, work));
