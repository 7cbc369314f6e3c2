/**
 * @payrail/store-postgres/testing: the oracle that reads a PostgreSQL store back with its own SQL,
 * for the conformance suite (`@payrail/store-testkit`) and tests that check what was really
 * stored. A host running payrail has no use for it, so it stays out of the package's main entry.
 */
/** @public A port of 127.0.0.1 nothing listens on: one helper for every package's tests. */
export { freePort } from './free-port.js';
/** @public PgBouncer in transaction mode before a server: payrail as a host behind a pooler runs it. */
export {
  type PgBouncer,
  type PgBouncerConnection,
  type PgBouncerOptions,
  pgBouncerMissing,
  startPgBouncer,
} from './pgbouncer.js';
/** @public `PostgresOracle` names what the oracle answers, as `MemoryOracle` does. */
export { type PostgresOracle, postgresOracle } from './postgres-oracle.js';
/** @public One embedded PostgreSQL shared by a test run's stores, each in a schema of its own. */
export {
  type EmbeddedPostgresConnection,
  type SharedEmbeddedPostgres,
  startSharedEmbeddedPostgres,
} from './shared-embedded-postgres.js';
