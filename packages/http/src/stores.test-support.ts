/**
 * The stores the engine suites run on: the memory store, PostgreSQL embedded through PGlite, and
 * a real PostgreSQL server at `DATABASE_URL` (default postgres://postgres@127.0.0.1:5432/test)
 * when one answers.
 *
 * PGlite stores share one database per test file, each in a schema of its own, so a suite may
 * open a fresh store per test cheaply. Server stores share one pool per test file, each in a
 * schema `payrail_t_<random>` of its own; the file's schemas are dropped and the pool ended when
 * the file is done. Without a server the server suites are skipped with a message, except in CI
 * (`CI=true`), where they run and fail: a skipped suite in CI is a defect.
 */

import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { createMemoryStore } from '@payrail/store-memory';
import {
  createPGliteStore,
  createPostgresStore,
  type PostgresStore,
} from '@payrail/store-postgres';
import pg from 'pg';
import { afterAll } from 'vitest';
import type { StoreUnderTest } from './engine-app.test-support.js';

let shared: Promise<PGlite> | undefined;
let schemas = 0;

const memoryStore: StoreUnderTest = {
  name: 'memory',
  open: async () => createMemoryStore(),
};

const pgliteStore: StoreUnderTest = {
  name: 'PostgreSQL (PGlite)',
  open: async () => {
    shared ??= PGlite.create('memory://');
    schemas += 1;
    return createPGliteStore({ pglite: await shared, schema: `payrail_${schemas}` });
  },
};

// ---------------------------------------------------------------------------------------------
// The PostgreSQL server

const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

type Pool = pg.Pool;

const openPool = (): Pool => {
  const pool = new pg.Pool({
    connectionString: serverUrl,
    max: 8,
    connectionTimeoutMillis: 3000,
  });
  pool.on('error', () => undefined);
  return pool;
};

/** Whether a PostgreSQL server answers at `serverUrl`, and if not, why. */
const probeServer = async (): Promise<{ readonly available: boolean; readonly reason: string }> => {
  const pool = openPool();
  try {
    await pool.query('SELECT 1');
    return { available: true, reason: '' };
  } catch (error) {
    return { available: false, reason: String(error) };
  } finally {
    await pool.end().catch(() => undefined);
  }
};

const inCI = process.env.CI === 'true';

/**
 * The server variant, once per test file: absent (with a message) when no server answers outside
 * CI; in CI it is always there, so a missing server fails the suites instead of skipping them.
 */
const serverVariant = async (): Promise<StoreUnderTest | undefined> => {
  const { available, reason } = await probeServer();
  if (!available && !inCI) {
    console.warn(
      `PostgreSQL does not answer at ${serverUrl} (${reason}): the HTTP suites skip the server ` +
        'store. Start PostgreSQL or set DATABASE_URL to run them; memory and PGlite still run.',
    );
    return undefined;
  }
  let pool: Pool | undefined;
  const opened: PostgresStore[] = [];
  afterAll(async () => {
    if (pool === undefined) return;
    await Promise.allSettled(opened.map((store) => store.close()));
    for (const store of opened) {
      await pool.query(`DROP SCHEMA IF EXISTS "${store.schema}" CASCADE`).catch(() => undefined);
    }
    await pool.end();
  });
  return {
    name: 'PostgreSQL server',
    open: async () => {
      pool ??= openPool();
      const store = await createPostgresStore({
        pool,
        schema: `payrail_t_${randomBytes(6).toString('hex')}`,
      });
      opened.push(store);
      return store;
    },
  };
};

/** The server variant of this test file, if any (see `serverVariant`). */
const postgresServerStore: StoreUnderTest | undefined = await serverVariant();

export const storesUnderTest: readonly StoreUnderTest[] = [
  memoryStore,
  pgliteStore,
  ...(postgresServerStore === undefined ? [] : [postgresServerStore]),
];
