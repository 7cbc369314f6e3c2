/**
 * @payrail/store-postgres: payrail's store on PostgreSQL, on a server through a node-postgres
 * pool or embedded through PGlite. One set of SQL behind a small executor, versioned migrations
 * applied on start, graded by @payrail/store-testkit like every other store.
 */
export { TransactionRolledBack } from './pg-pool.executor.js';
export { createPGliteStore, type PGliteStoreOptions } from './pglite-store.js';
export { type PostgresOracle, postgresOracle } from './postgres-oracle.js';
export { createPostgresStore, type PostgresStoreOptions } from './postgres-store.js';
export { defaultRetryPolicy, type RetryPolicy } from './sql-executor.js';
export { defaultSchema, type PostgresStore } from './sql-store.js';
