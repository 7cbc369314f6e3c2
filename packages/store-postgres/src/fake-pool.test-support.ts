/**
 * A pool of one connection whose statements `run` answers, for the executor's tests: what the
 * executor sends, and what it releases the connection with, are seen without a database.
 */
import type { PostgresPool, PostgresPoolClient, PostgresQuery } from './pg-pool.executor.js';

export type Run = (
  query: PostgresQuery | string,
) => Promise<{ readonly rows: never[]; readonly command: string }>;

export const fakePool = (run: Run, options: { readonly pipeline?: boolean } = {}) => {
  const released: unknown[] = [];
  const client: PostgresPoolClient = {
    ...(options.pipeline === undefined ? {} : { pipeline: options.pipeline }),
    query: run,
    on: () => undefined,
    off: () => undefined,
    release: (destroy) => {
      released.push(destroy);
    },
  };
  const pool: PostgresPool = {
    options: {},
    query: run,
    connect: async () => client,
    end: async () => undefined,
  };
  return { pool, released };
};
