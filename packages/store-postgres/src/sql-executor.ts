/**
 * The one seam between payrail's SQL and a PostgreSQL driver. node-postgres (a pool of server
 * connections) and PGlite (one embedded connection) both sit behind it, so every statement of the
 * store is written once. Transient conflicts are retried here and nowhere else.
 */
import { errorCodeOf } from './error-code.js';

/** What a statement parameter may be; JSON documents are passed as strings and cast (`$1::jsonb`). */
export type SqlValue = string | number | boolean | null;

export interface SqlResult<R> {
  readonly rows: readonly R[];
}

/** A connection in use: inside a unit of work, or on its own (each statement commits alone). */
export interface SqlSession {
  /** One statement with `$n` parameters. `bigint` columns come back as numbers, `numeric` as strings. */
  query<R extends object = Record<string, unknown>>(
    text: string,
    params?: readonly SqlValue[],
  ): Promise<SqlResult<R>>;
  /** A script of several statements, without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/** The first row `text` selects, mapped by `map`, or undefined when it selects none. */
export const selectOne = async <R extends object, T>(
  session: SqlSession,
  text: string,
  params: readonly SqlValue[],
  map: (row: R) => T,
): Promise<T | undefined> => {
  const { rows } = await session.query<R>(text, params);
  const row = rows[0];
  return row === undefined ? undefined : map(row);
};

/** How a unit of work's transaction opens. */
export interface TransactionOptions {
  /**
   * `BEGIN READ ONLY` (a store's `read`, ADR 0054): a write slipped into it fails with SQLSTATE
   * 25006 on every server, the primary too, and that refusal is the read's own error, never
   * "the server cannot be reached".
   */
  readonly readOnly?: boolean;
}

export interface SqlExecutor extends SqlSession {
  /**
   * Runs `work` between `BEGIN` and `COMMIT` (`ROLLBACK` when it throws) on one connection, and
   * runs it again after a serialization failure or a deadlock, as `retryPolicy` allows.
   */
  transaction<T>(
    work: (session: SqlSession) => Promise<T>,
    options?: TransactionOptions,
  ): Promise<T>;
  /**
   * Only where other processes share the database (a server): `LISTEN`s to `channel` on a
   * connection of its own and calls `onNotify` with each notification's payload. Answers the
   * function that ends it. A lost connection, or a first one that could not be made, is opened
   * again (on the current primary after a failover, ADR 0051) after a pause that grows while it
   * fails, and then `onNotify('')` tells
   * of what committed meanwhile; until then the loops' safety net covers it.
   */
  listen?(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /** Only over a connection pool: its connections and waiting units of work right now. */
  poolUse?(): PoolUse;
  close(): Promise<void>;
}

/** A connection pool right now (node-postgres's `totalCount`, `idleCount`, `waitingCount`). */
export interface PoolUse {
  /** Connections open, busy or idle. */
  readonly total: number;
  readonly idle: number;
  /** Units of work waiting for a connection. */
  readonly waiting: number;
  /** The most connections the pool opens. */
  readonly max: number | undefined;
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** The delay before attempt n+1 is a random value in [0, min(maxDelayMs, baseDelayMs * 2^(n-1))]. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 6, baseDelayMs: 5, maxDelayMs: 250 };

/** SQLSTATE 40001 (serialization_failure) and 40P01 (deadlock_detected). */
const transientCodes: ReadonlySet<string> = new Set(['40001', '40P01']);

/** The SQLSTATE of a driver's error. */
export const sqlStateOf = (error: unknown): string | undefined => errorCodeOf(error);

export const isTransientConflict = (error: unknown): boolean =>
  transientCodes.has(sqlStateOf(error) ?? '');

/** Full jitter: spreads the retries of transactions that collided so they do not collide again. */
export const retryDelayMs = (
  policy: RetryPolicy,
  failedAttempt: number,
  random = Math.random,
): number => random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempt - 1));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Wraps a driver's single-attempt transaction with the retry policy: the whole unit of work runs
 * again on a fresh transaction, since PostgreSQL has already rolled the failed one back.
 */
export const retryingTransactions =
  (
    runOnce: <T>(
      work: (session: SqlSession) => Promise<T>,
      options?: TransactionOptions,
    ) => Promise<T>,
    policy: RetryPolicy,
    wait: (ms: number) => Promise<void> = sleep,
  ): SqlExecutor['transaction'] =>
  async <T>(
    work: (session: SqlSession) => Promise<T>,
    options?: TransactionOptions,
  ): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await runOnce(work, options);
      } catch (error) {
        if (!isTransientConflict(error) || attempt >= policy.maxAttempts) throw error;
        await wait(retryDelayMs(policy, attempt));
      }
    }
  };

/** `bigint` columns (ids of sequences, Unix seconds) as numbers, refusing what a number cannot hold. */
export const parseInt8 = (text: string): number => {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new RangeError(`bigint ${text} is not a safe integer`);
  return value;
};
