/**
 * @payrail/store-postgres: payrail's store on PostgreSQL: a server through a node-postgres pool,
 * a PostgreSQL server the store starts and owns under a data directory, or embedded through
 * PGlite. One set of SQL behind a small executor, versioned migrations applied on start, graded
 * by @payrail/store-testkit like every other store.
 */
/** The embedded store's owner-only modes, which the server also keeps its data directory in. */

/** @public One owner per data directory: the refusal a second open gets, and the lock itself. */
export { DataDirInUse, type DataDirLock, type LockOptions, lockDataDir } from './data-dir-lock.js';
/** @public The default store on one machine: a PostgreSQL server payrail starts and owns. */
export {
  createEmbeddedPostgresStore,
  type EmbeddedPostgresStoreOptions,
} from './embedded-postgres-store.js';
/** @public What a schema has of the migrations (`payrail migrate --check`, readiness). */
export { type MigrationState, migrationIds } from './migrations/migrate.js';
/** @public The pool the server store makes of a connection string, multi-host form included (ADR 0051). */
export { postgresPool } from './multi-host-pool.js';
export { restrictToOwner } from './owner-only-files.js';
/** @public A host may tell a rolled-back unit of work apart (docs/storage.md). */
export { TransactionRolledBack } from './pg-pool.executor.js';
export { createPGliteStore, type PGliteStoreOptions } from './pglite-store.js';
/** @public The options of `createPostgresStore`, named for hosts that build them apart. */
export { createPostgresStore, type PostgresStoreOptions } from './postgres-store.js';
/** @public The `retry` option of both stores. */
/** @public What readiness and metrics read of a store (docs/observability.md). */
export type { PoolUse, RetryPolicy } from './sql-executor.js';
/** @public Every store's `applyMigrations` option. */
export type { MigrationOptions, PostgresStore } from './sql-store.js';
export { isPostgresStore, type OutboxBacklog } from './sql-store.js';
/** @public Moves a store's data into another, empty one (`payrail store migrate`). */
export { type CopiedTable, copyStore } from './store-copy.js';
