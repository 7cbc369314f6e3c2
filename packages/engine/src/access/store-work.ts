/**
 * How the access use cases meet the store: one unit of work, run once more when an optimistic
 * update lost a race (a `version_conflict`: someone changed the record between our read and our
 * write, so reading again decides on fresh data), and whole-collection reads for the small
 * collections whose lists hide some statuses.
 */
import {
  type Collection,
  isStoreFailure,
  type ListQuery,
  type RecordMeta,
  type Store,
  type StoreTransaction,
} from '@payrail/core';
import { type Outcome, unitOfWork } from '../unit-of-work.js';

export const workRetryingConflicts = async <T>(
  store: Store,
  work: (tx: StoreTransaction) => Promise<T>,
): Promise<Outcome<T>> => {
  try {
    return await unitOfWork(store, work);
  } catch (error) {
    if (isStoreFailure(error) && error.reason === 'version_conflict') {
      return unitOfWork(store, work);
    }
    throw error;
  }
};

const pageSize = 100;

/** Every record a query matches, newest first unless `sort` says otherwise. */
export const listAll = async <R extends RecordMeta>(
  collection: Collection<R>,
  query: Omit<ListQuery<R>, 'limit' | 'offset'>,
): Promise<R[]> => {
  const all: R[] = [];
  for (let offset = 0; ; offset += pageSize) {
    const page = await collection.list({ ...query, limit: pageSize, offset });
    all.push(...page.items);
    if (page.items.length < pageSize || all.length >= page.total) return all;
  }
};
