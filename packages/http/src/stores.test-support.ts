/**
 * The stores the engine suites run on: the memory store, the embedded default's PostgreSQL 18
 * (started once per run by stores-global-setup.test-support.ts, ADR 0037), and the PostgreSQL
 * server at `DATABASE_URL` (default postgres://postgres@127.0.0.1:5432/test) reached through a
 * PgBouncer in transaction mode that the global setup starts (ADR 0052): what a host behind a
 * pooler runs, so a store that kept state on a connection between statements fails here. The
 * stores LISTEN on the server directly (`listenConnectionString`), as such a host must. The
 * store-postgres package's conformance suite keeps testing the server without PgBouncer.
 * PGlite, a named option now, keeps the conformance suite and the simulation.
 *
 * Stores on a server share one pool per test file, each in a schema `payrail_t_<random>` of its
 * own, so a suite may open a fresh store per test cheaply; the file's schemas are dropped and
 * the pool ended when the file is done. Without a server at DATABASE_URL (or without pgbouncer)
 * its suites are skipped with a message, except in CI (`CI=true`), where they run and fail: a
 * skipped suite in CI is a defect.
 */

import { randomBytes } from 'node:crypto';
import { createMemoryStore } from '@payrail/store-memory';
import { createPostgresStore, type PostgresStore } from '@payrail/store-postgres';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import type { StoreUnderTest } from './engine-app.test-support.js';

const memoryStore: StoreUnderTest = {
  name: 'memory',
  open: async () => createMemoryStore(),
};

// ---------------------------------------------------------------------------------------------
// The PostgreSQL server

const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

type Pool = pg.Pool;
/** What the suites' pools name themselves: PgBouncer's `SHOW CLIENTS` tells them by it. */
export const suitesApplicationName = 'payrail-http-suites';

const openPool = (connection: pg.PoolConfig): Pool => {
  const pool = new pg.Pool({
    application_name: suitesApplicationName,
    ...connection,
    max: 8,
    connectionTimeoutMillis: 3000,
  });
  pool.on('error', () => undefined);
  return pool;
};

/** The name of the server variant: the suites' titles, and stores.pgbouncer.test.ts, use it. */
export const serverThroughPgBouncer = 'PostgreSQL server through PgBouncer';

const bouncer = inject('pgBouncer');

/** Whether a PostgreSQL server answers at `url`, and if not, why. */
const probeServer = async (
  url: string,
): Promise<{ readonly available: boolean; readonly reason: string }> => {
  const pool = openPool({ connectionString: url });
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
 * Stores on one server, a schema each, through one pool for the test file; LISTEN on
 * `listenConnectionString` when the pool cannot carry it.
 */
const onServer = (
  name: string,
  connection: pg.PoolConfig,
  listenConnectionString?: string,
): StoreUnderTest => {
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
    name,
    open: async () => {
      pool ??= openPool(connection);
      const store = await createPostgresStore({
        pool,
        schema: `payrail_t_${randomBytes(6).toString('hex')}`,
        ...(listenConnectionString === undefined ? {} : { listenConnectionString }),
      });
      opened.push(store);
      return store;
    },
  };
};

/**
 * The server variant, once per test file: absent (with a message) when PgBouncer or the server
 * behind it is missing outside CI; in CI it is always there, so either missing fails the suites
 * instead of skipping them.
 */
const serverVariant = async (): Promise<StoreUnderTest | undefined> => {
  if ('missing' in bouncer) {
    // The global setup already failed the run in CI.
    console.warn(
      `PgBouncer cannot run here (${bouncer.missing}): the HTTP suites skip the server store. ` +
        'Install pgbouncer to run them; memory and the embedded PostgreSQL still run.',
    );
    return undefined;
  }
  const { available, reason } = await probeServer(bouncer.url);
  if (!available && !inCI) {
    console.warn(
      `PostgreSQL does not answer at ${serverUrl} through PgBouncer (${reason}): the HTTP suites ` +
        'skip the server store. Start PostgreSQL or set DATABASE_URL to run them; memory and the ' +
        'embedded PostgreSQL still run.',
    );
    return undefined;
  }
  return onServer(serverThroughPgBouncer, { connectionString: bouncer.url }, serverUrl);
};

/** The server variant of this test file, if any (see `serverVariant`). */
const postgresServerStore: StoreUnderTest | undefined = await serverVariant();

export const storesUnderTest: readonly StoreUnderTest[] = [
  memoryStore,
  onServer('embedded PostgreSQL', inject('embeddedPostgres')),
  ...(postgresServerStore === undefined ? [] : [postgresServerStore]),
];
