/**
 * payrail's store on a PostgreSQL server, through a node-postgres pool. Units of work run
 * concurrently on the pool's connections; the schema is migrated on start.
 */
import { Pool } from 'pg';
import { type PostgresPool, pgPoolExecutor } from './pg-pool.executor.js';
import type { RetryPolicy } from './sql-executor.js';
import {
  createSqlStore,
  defaultSchema,
  type MigrationOptions,
  type PostgresStore,
} from './sql-store.js';

export interface PostgresStoreOptions extends MigrationOptions {
  /** Defaults to `DATABASE_URL`. Ignored when `pool` is given. */
  readonly connectionString?: string;
  /**
   * A pool the host owns (`new pg.Pool(...)`): the store uses it and leaves it open on
   * `close()`.
   */
  readonly pool?: PostgresPool;
  /** The schema holding payrail's tables, created if missing. Default `payrail`. */
  readonly schema?: string;
  /** Connections of the pool the store creates. Default 10. */
  readonly maxConnections?: number;
  readonly retry?: RetryPolicy;
}

const ownPool = (options: PostgresStoreOptions): PostgresPool => {
  const connectionString = options.connectionString ?? process.env.DATABASE_URL;
  if (connectionString === undefined || connectionString === '') {
    throw new Error('createPostgresStore needs a connectionString, a pool, or DATABASE_URL');
  }
  const pool = new Pool({ connectionString, max: options.maxConnections ?? 10 });
  // An idle connection that breaks is dropped by the pool; without a listener it would crash
  // the process. The next unit of work opens a fresh connection.
  pool.on('error', () => undefined);
  return pool;
};

export const createPostgresStore = (options: PostgresStoreOptions = {}): Promise<PostgresStore> => {
  const pool = options.pool ?? ownPool(options);
  const executor = pgPoolExecutor(pool, {
    ownsPool: options.pool === undefined,
    ...(options.retry === undefined ? {} : { retry: options.retry }),
  });
  return createSqlStore(executor, options.schema ?? defaultSchema, options);
};
