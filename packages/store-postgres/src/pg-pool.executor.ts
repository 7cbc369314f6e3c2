/**
 * The executor over a node-postgres pool: each unit of work takes a connection of its own, so
 * units of work really run at the same time and PostgreSQL's locks decide who waits.
 */
import { Client, type CustomTypesConfig, types } from 'pg';
import {
  defaultRetryPolicy,
  type PoolUse,
  parseInt8,
  type RetryPolicy,
  retryingTransactions,
  type SqlExecutor,
  type SqlResult,
  type SqlSession,
  type SqlValue,
} from './sql-executor.js';
import { quoteIdent } from './table-layout.js';

const identity = (text: string): string => text;

/** A statement with its parameters and the parsers of its result's columns. */
export interface PostgresQuery {
  readonly text: string;
  readonly values?: unknown[];
  /** Parsers by type oid: `pg`'s `CustomTypesConfig`. */
  readonly types?: {
    readonly getTypeParser: (oid: number, format?: 'text' | 'binary') => unknown;
  };
}

/**
 * What the store asks of a node-postgres pool or connection. The pool's types are named here
 * rather than imported from `pg`, so that the declarations a host type-checks need no
 * `@types/pg` (runtime dependencies carry no `@types/*`); `pg`'s own are checked against them
 * where the store makes its pool.
 */
export interface PostgresQueryable {
  query<R extends object>(
    query: PostgresQuery,
  ): Promise<{ readonly rows: R[]; readonly command: string }>;
  query(text: string): Promise<{ readonly command: string }>;
}

/** A connection taken from a node-postgres pool: `pg`'s `PoolClient` is one. */
export interface PostgresPoolClient extends PostgresQueryable {
  on(event: 'error', listener: (error: Error) => void): unknown;
  off(event: 'error', listener: (error: Error) => void): unknown;
  /** Back into the pool; with an error (or `true`), the connection is closed instead. */
  release(destroy?: Error | boolean): void;
}

/** A node-postgres pool: `pg`'s `Pool` (pg 8) is one. */
export interface PostgresPool extends PostgresQueryable {
  /** The pool's settings: the store's LISTEN connection, outside the pool, is made with them. */
  readonly options: object;
  /** Connections open, idle, and clients waiting for one (pg 8's counters; metrics read them). */
  readonly totalCount?: number;
  readonly idleCount?: number;
  readonly waitingCount?: number;
  connect(): Promise<PostgresPoolClient>;
  end(): Promise<void>;
}

/** What the pool holds right now; a counter a pool lacks counts 0. */
const poolUseOf = (pool: PostgresPool): PoolUse => {
  const max: unknown = Reflect.get(pool.options, 'max');
  return {
    total: pool.totalCount ?? 0,
    idle: pool.idleCount ?? 0,
    waiting: pool.waitingCount ?? 0,
    max: typeof max === 'number' ? max : undefined,
  };
};

/**
 * Our parsers win over the pool's: a host that taught `pg` to parse `numeric` as a float must
 * not turn our amounts into floats.
 */
const ownParsers: Readonly<Record<number, (text: string) => unknown>> = {
  20: parseInt8,
  1700: identity,
  114: JSON.parse,
  3802: JSON.parse,
};

const payrailTypes: CustomTypesConfig = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    ownParsers[oid] ?? types.getTypeParser(oid, format),
};

/** A pool, or one connection taken from it: node-postgres types the rows as the caller asks. */
const sessionOf = (target: PostgresQueryable): SqlSession => ({
  async query<R extends object>(text: string, params: readonly SqlValue[] = []) {
    const result = await target.query<R>({ text, values: [...params], types: payrailTypes });
    return { rows: result.rows } satisfies SqlResult<R>;
  },
  async exec(script: string) {
    await target.query(script);
  },
});

/** Thrown when PostgreSQL answered COMMIT with a rollback: a statement of the unit of work failed. */
export class TransactionRolledBack extends Error {
  constructor() {
    super(
      'the unit of work went on after a failed statement, so PostgreSQL rolled it back: nothing was committed',
    );
    this.name = 'TransactionRolledBack';
  }
}

const runOnce =
  (pool: PostgresPool) =>
  async <T>(work: (session: SqlSession) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    // A connection that broke (its backend was terminated, the network dropped) must not go
    // back into the pool; and an 'error' event with no listener would crash the process.
    let broken: Error | undefined;
    const onError = (error: Error): void => {
      broken = error;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await work(sessionOf(client));
      const commit = await client.query('COMMIT');
      if (commit.command === 'ROLLBACK') throw new TransactionRolledBack();
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken ??= rollbackError;
      });
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken ?? false);
    }
  };

export interface PgPoolExecutorOptions {
  /** Whether `close()` ends the pool (true when the store created it). */
  readonly ownsPool: boolean;
  readonly retry?: RetryPolicy;
}

/**
 * A connection of its own, outside the pool (it is held for the store's life and must not take
 * a slot the units of work need), made from the pool's own settings.
 */
const listen =
  (pool: PostgresPool) =>
  async (channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> => {
    const client = new Client(pool.options);
    let ended = false;
    // A broken listening connection is dropped; an 'error' event with no listener would crash.
    client.on('error', () => {
      ended = true;
      client.end().catch(() => undefined);
    });
    client.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '');
    });
    await client.connect();
    try {
      await client.query(`LISTEN ${quoteIdent(channel)}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return async () => {
      if (ended) return;
      ended = true;
      await client.end().catch(() => undefined);
    };
  };

export const pgPoolExecutor = (
  pool: PostgresPool,
  options: PgPoolExecutorOptions,
): SqlExecutor => ({
  ...sessionOf(pool),
  transaction: retryingTransactions(runOnce(pool), options.retry ?? defaultRetryPolicy),
  listen: listen(pool),
  poolUse: () => poolUseOf(pool),
  async close() {
    if (options.ownsPool) await pool.end();
  },
});
