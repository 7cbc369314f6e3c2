/**
 * The executor over PGlite: PostgreSQL compiled to WebAssembly, in this process, on one
 * connection. PGlite's own transaction lock runs units of work one after another, and a lone
 * statement waits for the unit of work in progress, so nobody reads uncommitted writes.
 */
import type { PGlite, Transaction } from '@electric-sql/pglite';
import {
  defaultRetryPolicy,
  parseInt8,
  type RetryPolicy,
  retryingTransactions,
  type SqlExecutor,
  type SqlSession,
  type SqlValue,
} from './sql-executor.js';

const identity = (text: string): string => text;

/** The same shapes as the pg executor: `bigint` as number, `numeric` as string. */
const parsers = { 20: parseInt8, 1700: identity };

const sessionOf = (target: PGlite | Transaction): SqlSession => ({
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

export const pgliteExecutor = (db: PGlite, options: PGliteExecutorOptions): SqlExecutor => {
  const analyzeEvery = options.analyzeEvery ?? defaultAnalyzeEvery;
  let committed = 0;
  const transaction = retryingTransactions(
    <T>(work: (session: SqlSession) => Promise<T>) => db.transaction((tx) => work(sessionOf(tx))),
    options.retry ?? defaultRetryPolicy,
  );
  return {
    ...sessionOf(db),
    async transaction<T>(work: (session: SqlSession) => Promise<T>): Promise<T> {
      const result = await transaction(work);
      committed += 1;
      if (committed % analyzeEvery === 0) await db.exec('ANALYZE');
      return result;
    },
    async close() {
      if (options.ownsDatabase) await db.close();
    },
  };
};
