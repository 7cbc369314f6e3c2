/**
 * The store over any executor: each unit of work is one database transaction, and every port of
 * it writes through that transaction. Shared by the server (pg pool) and the embedded (PGlite)
 * variants; only the executor differs.
 */
import type {
  Collection,
  CollectionName,
  Collections,
  Store,
  StoreTransaction,
} from '@payrail/core';
import { migrate } from './migrations/migrate.js';
import { type StoredRecord, sqlCollection } from './sql-collection.js';
import type { SqlExecutor } from './sql-executor.js';
import { sqlIdempotency } from './sql-idempotency.js';
import { sqlLedger } from './sql-ledger.js';
import { sqlOutbox } from './sql-outbox.js';
import { sqlTimers } from './sql-timers.js';
import { openUnit, type UnitContext } from './sql-unit-of-work.js';
import { collectionNames, tableLayouts } from './table-layout.js';

/** Where payrail's tables live unless a store is told otherwise. */
export const defaultSchema = 'payrail';

export interface PostgresStore extends Store {
  /** The schema holding every table of this store. */
  readonly schema: string;
  readonly closed: boolean;
}

interface StoreInternals {
  readonly executor: SqlExecutor;
  readonly schema: string;
}

const internals = new WeakMap<PostgresStore, StoreInternals>();

/** The executor and schema behind a store, for its oracle and its tests. */
export const internalsOf = (store: PostgresStore): StoreInternals => {
  const found = internals.get(store);
  if (found === undefined)
    throw new Error('not a store made by createPostgresStore or createPGliteStore');
  return found;
};

const openTransaction = (context: UnitContext): StoreTransaction => {
  const collections = Object.fromEntries(
    collectionNames.map((name) => [name, sqlCollection(tableLayouts[name], context)]),
  ) as Record<CollectionName, Collection<StoredRecord>>;
  return {
    ...(collections as unknown as Collections),
    ledger: sqlLedger(context),
    outbox: sqlOutbox(context),
    timers: sqlTimers(context),
    idempotency: sqlIdempotency(context),
  };
};

/** Migrates the schema, then answers the store; closes the executor if migrating fails. */
export const createSqlStore = async (
  executor: SqlExecutor,
  schema: string,
): Promise<PostgresStore> => {
  try {
    await migrate(executor, schema);
  } catch (error) {
    await executor.close().catch(() => undefined);
    throw error;
  }
  let closed = false;
  const running = new Set<Promise<unknown>>();

  const store: PostgresStore = {
    schema,
    get closed() {
      return closed;
    },
    transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
      if (closed) return Promise.reject(new Error('the PostgreSQL store is closed'));
      const unit = executor.transaction(async (session) => {
        const handle = openUnit(session, schema);
        try {
          return await work(openTransaction(handle.context));
        } finally {
          await handle.end();
        }
      });
      running.add(unit);
      const forget = (): void => {
        running.delete(unit);
      };
      unit.then(forget, forget);
      return unit;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...running]);
      await executor.close();
    },
  };
  internals.set(store, { executor, schema });
  return store;
};
