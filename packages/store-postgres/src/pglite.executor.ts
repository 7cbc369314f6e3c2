/**
 * The executor over PGlite: PostgreSQL compiled to WebAssembly, in this process, on one
 * connection. PGlite's own transaction lock runs units of work one after another, and a lone
 * statement waits for the unit of work in progress, so nobody reads uncommitted writes.
 */
import {
  defaultRetryPolicy,
  parseInt8,
  type RetryPolicy,
  retryingTransactions,
  type SqlExecutor,
  type SqlSession,
  type SqlValue,
  type TransactionOptions,
} from './sql-executor.js';

const identity = (text: string): string => text;

/** The same shapes as the pg executor: `bigint` as number, `numeric` as string. */
const parsers = { 20: parseInt8, 1700: identity };

/**
 * What the store asks of a PGlite database or of one of its transactions. PGlite's types are
 * named here rather than imported, so that the declarations a host type-checks need none of
 * PGlite's (its own need `@types/emscripten`); PGlite's are checked against them where the
 * store opens its database.
 */
export interface PGliteQueryable {
  query<R>(
    text: string,
    params?: unknown[],
    options?: { readonly parsers?: Record<number, (value: string, typeId: number) => unknown> },
  ): Promise<{ readonly rows: R[] }>;
  exec(script: string): Promise<unknown>;
}

/** A PGlite database (`new PGlite(...)` or `PGlite.create(...)` of @electric-sql/pglite). */
export interface PGliteDatabase extends PGliteQueryable {
  transaction<T>(work: (tx: PGliteQueryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const sessionOf = (target: PGliteQueryable): SqlSession => ({
  async query<R extends object>(text: string, params: readonly SqlValue[] = []) {
    const result = await target.query<R>(text, [...params], { parsers });
    return { rows: result.rows };
  },
  async exec(script: string) {
    await target.exec(script);
  },
});

export interface PGliteExecutorOptions {
  /** Whether `close()` closes the database (true when the store opened it). */
  readonly ownsDatabase: boolean;
  readonly retry?: RetryPolicy;
  /** Run `ANALYZE` after this many committed units of work (default 500). */
  readonly analyzeEvery?: number;
}

/**
 * PGlite runs no autovacuum, so without this its planner never gets statistics: the outbox claim
 * then reads every pending row before picking the oldest (docs/performance.md). A server's
 * autovacuum does the same job; here the executor runs `ANALYZE` itself every so often, as a
 * lone statement (it waits for any unit of work in progress).
 */
const defaultAnalyzeEvery = 500;

export const pgliteExecutor = (db: PGliteDatabase, options: PGliteExecutorOptions): SqlExecutor => {
  const analyzeEvery = options.analyzeEvery ?? defaultAnalyzeEvery;
  let committed = 0;
  const transaction = retryingTransactions(
    <T>(work: (session: SqlSession) => Promise<T>, unit?: TransactionOptions) =>
      db.transaction(async (tx) => {
        // PGlite opens the transaction itself; its first statement makes it read-only.
        if (unit?.readOnly === true) await tx.query('SET TRANSACTION READ ONLY');
        return work(sessionOf(tx));
      }),
    options.retry ?? defaultRetryPolicy,
  );
  return {
    ...sessionOf(db),
    async transaction<T>(
      work: (session: SqlSession) => Promise<T>,
      unit?: TransactionOptions,
    ): Promise<T> {
      const result = await transaction(work, unit);
      committed += 1;
      if (committed % analyzeEvery === 0) await db.exec('ANALYZE');
      return result;
    },
    async close() {
      if (options.ownsDatabase) await db.close();
    },
  };
};
