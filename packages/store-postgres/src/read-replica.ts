/**
 * The read replica of a PostgreSQL store (ADR 0054): a pool on a streaming standby that answers
 * the reads that decide nothing (`Store.read`), and what tells "the replica could not be reached"
 * apart from what a read itself did, so that a dead or restarting standby sends its reads to the
 * primary instead of failing them.
 */
import { isStoreUnavailable } from '@payrail/core';
import { postgresPool } from './multi-host-pool.js';
import { type PostgresPool, pgPoolExecutor } from './pg-pool.executor.js';
import type { RetryPolicy } from './sql-executor.js';
import type { ReadReplica } from './sql-store.js';
import { isConnectionLoss } from './store-unavailable.js';

/**
 * How long a read waits for a replica connection (to open one, or for a busy pool to free one)
 * before it goes to the primary: node-postgres waits for ever by default, and a standby whose
 * host stopped answering must not hold reads.
 */
const replicaConnectTimeoutMs = 3000;

/**
 * Whether `error`, thrown by a read on the replica, says the replica could not be reached or
 * dropped the connection (ADR 0051's `isConnectionLoss`, or a `StoreUnavailable` already made of
 * one) rather than what the read itself did: the engine's refusals carry no such code, and a
 * write refused in the read-only transaction (SQLSTATE 25006) is the read's own error, which the
 * primary would refuse just the same.
 */
export const isUnreachable = (error: unknown): boolean =>
  isStoreUnavailable(error) || isConnectionLoss(error, 'read-only');

/**
 * A pool on the replica at `connectionString`, which the store owns and ends on `close()`. A host
 * list (`postgres://u@r1,r2/db`, libpq's multi-host form) runs on the first replica that answers,
 * or the first whose session fits `target_session_attrs` (`standby`, `prefer-standby`,
 * `read-only`; unset: `any`), and looks again when it is lost; meanwhile reads go to the primary.
 */
export const replicaPool = (connectionString: string, max: number): PostgresPool =>
  postgresPool(connectionString, {
    max,
    use: 'reads',
    setting: 'the read replica URL',
    connectTimeoutMs: replicaConnectTimeoutMs,
    // A replica whose connections are all busy for that long sends the read to the primary.
    poolWaitMs: replicaConnectTimeoutMs,
  });

/** The store's read replica over `pool`. */
export const readReplica = (
  pool: PostgresPool,
  options: { readonly ownsPool: boolean; readonly retry?: RetryPolicy },
): ReadReplica => ({
  executor: pgPoolExecutor(pool, options),
  unreachable: isUnreachable,
});
