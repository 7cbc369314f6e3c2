/**
 * The store over any executor: each unit of work is one database transaction, and every port of
 * it writes through that transaction. Shared by the server (pg pool) and the embedded (PGlite)
 * variants; only the executor differs.
 */
import { createHash, randomUUID } from 'node:crypto';
import type {
  Collection,
  Collections,
  Environment,
  RecordMeta,
  Store,
  StoreReads,
  StoreTransaction,
} from '@payrail/core';
import { type MigrationState, migrate, migrationState } from './migrations/migrate.js';
import { sqlCollection } from './sql-collection.js';
import type { PoolUse, SqlExecutor, SqlSession } from './sql-executor.js';
import { sqlIdempotency } from './sql-idempotency.js';
import { sqlLedger } from './sql-ledger.js';
import { openUnit, type UnitContext } from './sql-unit-of-work.js';
import { sqlOutbox, sqlTimers } from './sql-work.js';
import { collectionNames, tableIn, tableLayoutOf } from './table-layout.js';

/** Where payrail's tables live unless a store is told otherwise. */
export const defaultSchema = 'payrail';

export interface PostgresStore extends Store {
  /** The schema holding every table of this store. */
  readonly schema: string;
  readonly closed: boolean;
  /** On the read replica when the store has one (ADR 0054), else as `transaction` reads. */
  read<T>(work: (tx: StoreReads) => Promise<T>): Promise<T>;
  onWork(listener: () => void): () => void;
  /** What the schema has of this payrail's migrations, read without writing anything. */
  migrationState(): Promise<MigrationState>;
  /** Applies the migrations the schema lacks (as opening does); answers their ids, in order. */
  migrate(): Promise<readonly string[]>;
  /**
   * The outbox's messages waiting for delivery and the oldest one's `created_at`: one query on
   * the pending index, outside any unit of work (readiness and metrics, docs/observability.md).
   */
  outboxBacklog(): Promise<OutboxBacklog>;
  /** The connection pool right now; undefined without one (PGlite). */
  poolUse(): PoolUse | undefined;
}

export interface OutboxBacklog {
  readonly pending: number;
  /** Unix seconds of the engine's clock; undefined when nothing is pending. */
  readonly oldestCreatedAt: number | undefined;
}

/** The stores made here, so that a host's store can be told apart. */
const madeHere = new WeakSet<object>();

/** Whether `store` was made by `createPostgresStore`, `createEmbeddedPostgresStore` or `createPGliteStore`. */
export const isPostgresStore = (store: object): store is PostgresStore => madeHere.has(store);

/** How a store opens its schema; every store's options take it. */
export interface MigrationOptions {
  /**
   * Default true: the schema is migrated as the store opens. False opens it as it is, for
   * `payrail migrate --check`, which reads `migrationState()` and writes nothing.
   */
  readonly applyMigrations?: boolean;
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
  const collections: Readonly<Record<string, Collection<RecordMeta>>> = Object.fromEntries(
    collectionNames.map((name) => [name, sqlCollection(tableLayoutOf(name), context)]),
  );
  return {
    // Each table's collection holds its spec's records as bags of fields; the spec makes it typed.
    ...(collections as Collections),
    ledger: sqlLedger(context),
    outbox: sqlOutbox(context),
    timers: sqlTimers(context),
    idempotency: sqlIdempotency(context),
  };
};

/**
 * The `LISTEN`/`NOTIFY` channel of a schema's work: `payrail_work_<schema>` when that is a plain
 * identifier of at most 63 bytes (PostgreSQL's limit), else named by a hash of the schema.
 */
export const workChannelOf = (schema: string): string => {
  const plain = `payrail_work_${schema}`;
  return /^[a-z_][a-z0-9_]*$/.test(schema) && plain.length <= 63
    ? plain
    : `payrail_work_${createHash('sha256').update(schema).digest('hex').slice(0, 40)}`;
};

/**
 * The store's side of `onWork`: listeners told in this process after a commit, and, where the
 * executor can listen (a server), told of other processes' commits through `NOTIFY`. The
 * listening connection opens with the first subscription and closes with the store.
 */
const workSignal = (executor: SqlExecutor, schema: string) => {
  const channel = workChannelOf(schema);
  // A notification carries its sender, so this store skips its own (it told them already).
  const self = randomUUID();
  const listeners = new Set<() => void>();
  let listening: Promise<(() => Promise<void>) | undefined> | undefined;
  const tell = (): void => {
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch {
        // A listener's failure is its own; the unit of work has committed.
      }
    }
  };
  return {
    /** What units of work `NOTIFY` with, when other processes may listen (a server). */
    notice: executor.listen === undefined ? undefined : { channel, payload: self },
    /** Inside the unit of work: delivered by PostgreSQL only if and when it commits. */
    notify: (session: SqlSession): Promise<unknown> =>
      session.query('SELECT pg_notify($1, $2)', [channel, self]),
    tell,
    subscribe(listener: () => void): () => void {
      const own = (): void => listener();
      listeners.add(own);
      if (listening === undefined && executor.listen !== undefined) {
        // Without the connection this process still hears its own work; others' wait for the
        // loops' safety net.
        listening = executor
          .listen(channel, (sender) => {
            if (sender !== self) tell();
          })
          .catch(() => undefined);
      }
      return () => {
        listeners.delete(own);
      };
    },
    async close(): Promise<void> {
      listeners.clear();
      const stop = await listening;
      // A subscription after the store closed opens nothing.
      listening = Promise.resolve(undefined);
      await stop?.();
    },
  };
};

type WorkSignal = ReturnType<typeof workSignal>;

/**
 * Runs `work` as one transaction of the executor, on the store's ports, and tells this process's
 * `onWork` listeners once it committed, if it wrote work.
 */
const runUnit = <T>(
  executor: SqlExecutor,
  schema: string,
  signal: WorkSignal,
  work: (tx: StoreTransaction) => Promise<T>,
): Promise<T> => {
  // Of the attempts the executor makes, the one that committed is the last.
  let wroteWork = false;
  return executor
    .transaction(async (session) => {
      wroteWork = false;
      const handle = openUnit(session, schema, signal.notice);
      let result: T;
      try {
        result = await work(openTransaction(handle.context));
      } finally {
        await handle.end();
      }
      if (handle.wroteWork && !handle.notified && signal.notice !== undefined) {
        await signal.notify(session);
      }
      wroteWork = handle.wroteWork;
      return result;
    })
    .then((result) => {
      if (wroteWork) signal.tell();
      return result;
    });
};

/**
 * Runs `work` (reads only) as one `READ ONLY` transaction of `executor`, the read replica's or the
 * primary's: a write slipped into it fails the same on both (SQLSTATE 25006), and is answered as
 * the error it is. A read cancelled by a conflict with recovery (SQLSTATE 40001) is run again like
 * any serialization failure. Nothing is written, so nothing is told to `onWork` listeners.
 */
const runRead = <T>(
  executor: SqlExecutor,
  schema: string,
  work: (tx: StoreReads) => Promise<T>,
): Promise<T> =>
  executor.transaction(
    async (session) => {
      const handle = openUnit(session, schema);
      try {
        return await work(openTransaction(handle.context));
      } finally {
        await handle.end();
      }
    },
    { readOnly: true },
  );

/**
 * The environment the schema recorded first. Under READ COMMITTED a concurrent first claim
 * makes the insert wait, then do nothing; the select, a statement of its own, sees the row that
 * won.
 */
const claimEnvironment = (
  executor: SqlExecutor,
  schema: string,
  environment: Environment,
): Promise<Environment> => {
  const table = tableIn(schema)('store_environment');
  return executor.transaction(async (session) => {
    await session.query(
      `INSERT INTO ${table} (environment) VALUES ($1)
         ON CONFLICT DO NOTHING`,
      [environment],
    );
    const { rows } = await session.query<{ environment: Environment }>(
      `SELECT environment FROM ${table}`,
    );
    const recorded = rows[0]?.environment;
    if (recorded === undefined) throw new Error('the store recorded no environment');
    return recorded;
  });
};

const outboxBacklog = async (executor: SqlExecutor, schema: string): Promise<OutboxBacklog> => {
  const { rows } = await executor.query<{ pending: number; oldest: number | null }>(
    `SELECT count(*) AS pending, min(created_at) AS oldest
       FROM ${tableIn(schema)('outbox')} WHERE status = 'pending'`,
  );
  const row = rows[0];
  return { pending: row?.pending ?? 0, oldestCreatedAt: row?.oldest ?? undefined };
};

/**
 * Where a store's reads that decide nothing go (ADR 0054): a read replica's executor, and whether
 * a read it cannot reach runs on the primary instead.
 */
export interface ReadReplica {
  readonly executor: SqlExecutor;
  /**
   * Whether `error`, thrown by a read on the replica, says the replica could not be reached (so
   * the read runs again on the primary) rather than what the read itself did.
   */
  readonly unreachable: (error: unknown) => boolean;
}

/**
 * Migrates the schema, then answers the store; closes the executor (and the replica's) if
 * migrating fails. The replica is never migrated: it replays the primary's schema.
 */
export const createSqlStore = async (
  executor: SqlExecutor,
  schema: string,
  options: MigrationOptions = {},
  replica?: ReadReplica,
): Promise<PostgresStore> => {
  try {
    if (options.applyMigrations !== false) await migrate(executor, schema);
  } catch (error) {
    await executor.close().catch(() => undefined);
    await replica?.executor.close().catch(() => undefined);
    throw error;
  }
  let closed = false;
  const running = new Set<Promise<unknown>>();
  const signal = workSignal(executor, schema);

  const track = <T>(unit: Promise<T>): Promise<T> => {
    running.add(unit);
    const forget = (): void => {
      running.delete(unit);
    };
    unit.then(forget, forget);
    return unit;
  };
  /** On the replica; on the primary when there is none, or when the replica is unreachable. */
  const read = async <T>(work: (tx: StoreReads) => Promise<T>): Promise<T> => {
    if (replica === undefined) return runRead(executor, schema, work);
    try {
      return await runRead(replica.executor, schema, work);
    } catch (error) {
      if (!replica.unreachable(error)) throw error;
      return runRead(executor, schema, work);
    }
  };

  const store: PostgresStore = {
    schema,
    get closed() {
      return closed;
    },
    transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
      if (closed) return Promise.reject(new Error('the PostgreSQL store is closed'));
      return track(runUnit(executor, schema, signal, work));
    },
    read<T>(work: (tx: StoreReads) => Promise<T>): Promise<T> {
      if (closed) return Promise.reject(new Error('the PostgreSQL store is closed'));
      return track(read(work));
    },
    onWork: (listener) => signal.subscribe(listener),
    migrationState: () => migrationState(executor, schema),
    outboxBacklog: () => outboxBacklog(executor, schema),
    poolUse: () => executor.poolUse?.(),
    migrate: () => migrate(executor, schema),
    async claimEnvironment(environment) {
      if (closed) throw new Error('the PostgreSQL store is closed');
      return claimEnvironment(executor, schema, environment);
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...running]);
      await signal.close();
      await executor.close();
      await replica?.executor.close();
    },
  };
  internals.set(store, { executor, schema });
  madeHere.add(store);
  return store;
};
