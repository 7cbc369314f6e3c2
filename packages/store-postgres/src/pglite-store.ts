/**
 * payrail's store embedded through PGlite: PostgreSQL in this process, in a data directory (or
 * in memory), with no server. The same SQL as the server variant; units of work run one at a
 * time on PGlite's single connection.
 */
import { PGlite } from '@electric-sql/pglite';
import { pgliteExecutor } from './pglite.executor.js';
import type { RetryPolicy } from './sql-executor.js';
import { createSqlStore, defaultSchema, type PostgresStore } from './sql-store.js';

export interface PGliteStoreOptions {
  /** Where the database lives; without it, in memory (gone on `close()`). */
  readonly dataDir?: string;
  /**
   * A PGlite instance the host owns (`dataDir` is then ignored): the store uses it and leaves it
   * open on `close()`. Several stores may share one instance, each in its own schema.
   */
  readonly pglite?: PGlite;
  /** The schema holding payrail's tables, created if missing. Default `payrail`. */
  readonly schema?: string;
  readonly retry?: RetryPolicy;
  /** Run `ANALYZE` after this many committed units of work (PGlite has no autovacuum). */
  readonly analyzeEvery?: number;
}

export const createPGliteStore = async (
  options: PGliteStoreOptions = {},
): Promise<PostgresStore> => {
  const db = options.pglite ?? (await PGlite.create(options.dataDir ?? 'memory://'));
  const executor = pgliteExecutor(db, {
    ownsDatabase: options.pglite === undefined,
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.analyzeEvery === undefined ? {} : { analyzeEvery: options.analyzeEvery }),
  });
  return createSqlStore(executor, options.schema ?? defaultSchema);
};
