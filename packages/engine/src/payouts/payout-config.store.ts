/**
 * How the payout configuration's use cases reach the store: one unit of work at one moment, a
 * change that makes the payout side read the catalogue again, an insert whose taken id is a
 * refusal, and the admin lists.
 */
import {
  type Collection,
  decodeWith,
  isStoreFailure,
  PageQuery,
  payrailError,
  type RecordMeta,
  type StoreTransaction,
} from '@payrail/core';
import { pageView } from '../access/list-pages.views.js';
import { type Outcome, orRefuse, refuse, unitOfWork } from '../command/command.handler.js';
import type { PageView, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import type { PayoutCatalogue } from './payout-catalogue.store.js';

/** The work of one use case: the transaction, and the moment it was asked for. */
type ConfigWork<T> = (tx: StoreTransaction, at: number) => Promise<T>;

/** `work` as one unit of work, at the moment the clock reads before it starts. */
export const configUnitOfWork = <T>(deps: EngineDeps, work: ConfigWork<T>): Promise<Outcome<T>> => {
  const at = deps.clock.now();
  return unitOfWork(deps.store, (tx) => work(tx, at));
};

/** `configUnitOfWork` for a change of the catalogue: once it has ended, the payout side reads it again. */
export const catalogueChange = <T>(
  deps: EngineDeps,
  catalogue: PayoutCatalogue,
  work: ConfigWork<T>,
): Promise<Outcome<T>> => configUnitOfWork(deps, work).finally(() => catalogue.forget());

/** Inserts, answering `invalid query param <idParam>` when the id is already used. */
export const insertUnlessTaken = async <T>(
  idParam: string,
  insert: () => Promise<T>,
): Promise<T> => {
  try {
    return await insert();
  } catch (error) {
    if (isStoreFailure(error) && error.reason === 'unique_violation') {
      return refuse(payrailError('invalid_query_param', { param: idParam }));
    }
    throw error;
  }
};

/** The admin lists take `limit` and `offset` only (the same rules as every list). */
const decodePage = decodeWith(PageQuery);

/** A page of one collection of the catalogue, oldest first, as `view` shows its records. */
export const adminPage = <R extends RecordMeta, V>(
  deps: EngineDeps,
  query: Query,
  collection: (tx: StoreTransaction) => Collection<R>,
  view: (record: R) => V,
): Promise<Outcome<PageView<V>>> =>
  configUnitOfWork(deps, async (tx) => {
    const q = orRefuse(decodePage(query));
    const page = await collection(tx).list({ sort: 'asc', limit: q.limit, offset: q.offset });
    return pageView(page, view);
  });
