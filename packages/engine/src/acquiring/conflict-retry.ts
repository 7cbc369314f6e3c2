/**
 * Orders and batches are written over the version read. When another unit of work wrote the same
 * object in between (a payment and the expiry timer, two approvals), the store refuses with
 * `version_conflict`; when it created the same beneficiary, beneficiary account or deposit
 * address first, with `unique_violation`. The whole unit of work is then run once more on fresh
 * reads, so the loser sees the winner's state and answers from it (a refusal such as
 * `order already final`, a reused record, or the same result). A second conflict in a row
 * propagates as unexpected (`internal error`, retryable).
 */
import { isStoreFailure, type Store, type StoreTransaction } from '@payrail/core';
import { type Outcome, unitOfWork } from '../unit-of-work.js';

/** Collections whose records a concurrent unit of work may create first with the same key. */
const racedKeys = ['beneficiaries', 'beneficiary_accounts', 'deposit_addresses'];

const isRace = (error: unknown): boolean =>
  isStoreFailure(error) &&
  (error.reason === 'version_conflict' ||
    (error.reason === 'unique_violation' && racedKeys.includes(error.collection)));

export const unitOfWorkWithRetry = async <T>(
  store: Store,
  work: (tx: StoreTransaction) => Promise<T>,
): Promise<Outcome<T>> => {
  try {
    return await unitOfWork(store, work);
  } catch (error) {
    if (!isRace(error)) throw error;
    return unitOfWork(store, work);
  }
};
