/**
 * payrail's store on a PostgreSQL server, through a node-postgres pool. Units of work run
 * concurrently on the pool's connections; the schema is migrated on start.
 */
import { connectedClient, parseDatabaseUrl, postgresPool } from './multi-host-pool.js';
import {
  type PgPoolExecutorOptions,
  type PostgresPool,
  pgPoolExecutor,
} from './pg-pool.executor.js';
import { readReplica, replicaPool } from './read-replica.js';
import type { RetryPolicy } from './sql-executor.js';
import {
  createSqlStore,
  defaultSchema,
  type MigrationOptions,
  type PostgresStore,
  type ReadReplica,
} from './sql-store.js';

export interface PostgresStoreOptions extends MigrationOptions {
  /**
   * Defaults to `DATABASE_URL`. Ignored when `pool` is given. libpq's multi-host form
   * (`postgres://u@h1:5432,h2:5432/db?target_session_attrs=read-write`, also `primary` or `any`;
   * unset, `read-write` for several hosts) runs on the first host with that session and finds it
   * again after a failover (ADR 0051);
   * `connect_timeout` (seconds) bounds each connection attempt, default 5.
   */
  readonly connectionString?: string;
  /**
   * A pool the host owns (`new pg.Pool(...)`): the store uses it and leaves it open on
   * `close()`.
   */
  readonly pool?: PostgresPool;
  /** The schema holding payrail's tables, created if missing. Default `payrail`. */
  readonly schema?: string;
  /**
   * Where the store LISTENs for other processes' work (ADR 0030): default the pool's own
   * settings. Behind a transaction-mode pooler (PgBouncer), which does not carry LISTEN, a
   * connection string straight to the server; or `false`, no LISTEN: the loops then find other
   * processes' work on their due time and safety net (ADR 0052). libpq's multi-host form is
   * read as for `connectionString`: the LISTEN opens on the first host that is read-write
   * (unset `target_session_attrs`, several hosts) and again on the current one after a failover.
   */
  readonly listenConnectionString?: string | false;
  /**
   * A read replica (a streaming standby of the same database, ADR 0054): the reads that decide
   * nothing (`read`) go to it and may lag the primary by its replay lag; a read it cannot serve
   * (down, restarting, unreachable within 3 s) runs on the primary. Default: none, every read on
   * the primary. Ignored when `readPool` is given. libpq's multi-host form lists replicas: the
   * reads go to the first that answers (`target_session_attrs` unset or `any`), or the first
   * `standby`, `prefer-standby` or `read-only` one, and to the next when it is lost.
   */
  readonly readConnectionString?: string;
  /** A pool on the read replica the host owns: the store uses it and leaves it open. */
  readonly readPool?: PostgresPool;
  /** Connections of the pool the store creates. Default 10 (and as many on the read replica). */
  readonly maxConnections?: number;
  /**
   * How long a unit of work waits for a free connection when all `maxConnections` are busy,
   * before it fails as `StoreUnavailable` (503). Default 30 s. Apart from the connect timeout
   * (`connect_timeout`, default 5 s), which bounds only opening a connection.
   */
  readonly poolWaitMs?: number;
  readonly retry?: RetryPolicy;
}

/** The store's read replica, when the options name one. */
const replicaOf = (options: PostgresStoreOptions): ReadReplica | undefined => {
  const retry = options.retry === undefined ? {} : { retry: options.retry };
  if (options.readPool !== undefined)
    return readReplica(options.readPool, { ownsPool: false, ...retry });
  if (options.readConnectionString === undefined || options.readConnectionString === '')
    return undefined;
  const pool = replicaPool(options.readConnectionString, options.maxConnections ?? 10);
  return readReplica(pool, { ownsPool: true, ...retry });
};

const ownPool = (options: PostgresStoreOptions): PostgresPool => {
  const connectionString = options.connectionString ?? process.env.DATABASE_URL;
  if (connectionString === undefined || connectionString === '') {
    throw new Error('createPostgresStore needs a connectionString, a pool, or DATABASE_URL');
  }
  return postgresPool(connectionString, {
    max: options.maxConnections ?? 10,
    ...(options.poolWaitMs === undefined ? {} : { poolWaitMs: options.poolWaitMs }),
  });
};

/**
 * How the executor opens its LISTEN connection: with the pool's own settings when the host named
 * none; else on `listen`, a host list included (the first host that is read-write: a standby
 * refuses LISTEN).
 */
const listenOf = (
  listen: string | false | undefined,
): Pick<PgPoolExecutorOptions, 'listenWith'> => {
  if (listen === undefined) return {};
  if (listen === false) return { listenWith: false };
  const options = { setting: 'the LISTEN connection string' };
  // A malformed host list or session is refused now, not retried in the background for ever.
  parseDatabaseUrl(listen, options);
  return { listenWith: () => connectedClient(listen, options) };
};

export const createPostgresStore = (options: PostgresStoreOptions = {}): Promise<PostgresStore> => {
  const pool = options.pool ?? ownPool(options);
  const executor = pgPoolExecutor(pool, {
    ownsPool: options.pool === undefined,
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...listenOf(options.listenConnectionString),
  });
  return createSqlStore(executor, options.schema ?? defaultSchema, options, replicaOf(options));
};
