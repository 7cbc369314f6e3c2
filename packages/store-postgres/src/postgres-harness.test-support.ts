/**
 * Harnesses for the conformance suite and this package's own tests: a PostgreSQL server in a
 * schema of its own per harness, PGlite in memory (one instance per test file, a schema per
 * harness, since starting PGlite takes seconds), and PGlite on a data directory that can be
 * closed and opened again.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { StoreHarness } from '@payrail/store-testkit';
import { Client } from 'pg';
import { createPGliteStore } from './pglite-store.js';
import { createPostgresStore, type PostgresStoreOptions } from './postgres-store.js';
import { internalsOf, type PostgresStore } from './sql-store.js';
import { quoteIdent, tableIn } from './table-layout.js';
import {
  type EmbeddedPostgresConnection,
  postgresOracle,
  startSharedEmbeddedPostgres,
} from './testing/index.js';

export const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const inCI = process.env.CI === 'true';

/** A schema name no other run uses. */
export const freshSchema = (): string => `payrail_t_${randomBytes(6).toString('hex')}`;

/** Whether a PostgreSQL server answers at `serverUrl`, and if not, why. */
export const probeServer = async (): Promise<{ available: boolean; reason: string }> => {
  const client = new Client({ connectionString: serverUrl, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { available: true, reason: '' };
  } catch (error) {
    return { available: false, reason: String(error) };
  } finally {
    await client.end().catch(() => undefined);
  }
};

/**
 * The server's state for a test file: a test file that needs the server runs its tests when one
 * answers, fails them in CI when none does (a skipped suite in CI is a defect), and skips them
 * with a message on a machine without PostgreSQL.
 */
export const serverForTests = async (): Promise<{ skip: boolean }> => {
  const { available, reason } = await probeServer();
  if (available || inCI) return { skip: false };
  console.warn(
    `PostgreSQL does not answer at ${serverUrl} (${reason}): the server tests are skipped. ` +
      'Start PostgreSQL or set DATABASE_URL to run them; PGlite tests still run.',
  );
  return { skip: true };
};

const harnessOf = (store: PostgresStore, close: () => Promise<void>): StoreHarness => ({
  store,
  oracle: postgresOracle(store),
  close,
});

/** Deletes every row of the store's schema (postings and records before their journals). */
const emptySchema = async (store: PostgresStore): Promise<void> => {
  const { executor, schema } = internalsOf(store);
  const { rows } = await executor.query<{ tablename: string }>(
    `SELECT tablename FROM pg_tables WHERE schemaname = $1 AND tablename <> 'payrail_migrations'
      ORDER BY tablename IN ('ledger_postings', 'ledger_entries') DESC`,
    [schema],
  );
  const table = tableIn(schema);
  // The audit trail refuses DELETE (migration 0007): retention is TRUNCATE, as for its owner.
  await executor.exec(
    rows
      .map((row) =>
        row.tablename === 'audit_records'
          ? `TRUNCATE ${table(row.tablename)};`
          : `DELETE FROM ${table(row.tablename)};`,
      )
      .join('\n'),
  );
};

/**
 * Schemas of one test file: creating and migrating a schema costs far more than a test, so a
 * harness's `close()` empties its schema and hands it to the next harness; `dropAll()` drops
 * them all when the file is done. Each run of a test file still has schemas of its own.
 */
const schemaPool = () => {
  const all: string[] = [];
  const free: string[] = [];
  return {
    all,
    take(): string {
      const schema = free.pop() ?? freshSchema();
      if (!all.includes(schema)) all.push(schema);
      return schema;
    },
    async giveBack(store: PostgresStore): Promise<void> {
      await emptySchema(store);
      await store.close();
      free.push(store.schema);
    },
  };
};

export interface HarnessFactory {
  /** A store on an empty schema. */
  harness(): Promise<StoreHarness & { readonly store: PostgresStore }>;
  /** A new store on the schema of `harness`, whose store the caller has closed. */
  reopen(harness: StoreHarness): Promise<StoreHarness>;
  /** Drops every schema the factory made and closes what it opened. */
  close(): Promise<void>;
}

/** Stores on the PostgreSQL server at `url` (default `serverUrl`), a pool each. */
export const serverStores = (
  options: PostgresStoreOptions = {},
  url: string = serverUrl,
): HarnessFactory => {
  const schemas = schemaPool();
  const open = async (schema: string) => {
    const store = await createPostgresStore({
      connectionString: url,
      maxConnections: 16,
      ...options,
      schema,
    });
    return { ...harnessOf(store, () => schemas.giveBack(store)), store };
  };
  return {
    harness: () => open(schemas.take()),
    reopen: (harness) => open((harness.store as PostgresStore).schema),
    async close() {
      if (schemas.all.length === 0) return;
      const client = new Client({ connectionString: url });
      await client.connect();
      try {
        for (const schema of schemas.all) {
          await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
        }
      } finally {
        await client.end();
      }
    },
  };
};

/** A connection string for node-postgres to a server's Unix socket directory. */
const socketUrl = (connection: EmbeddedPostgresConnection): string =>
  `postgres://${connection.user}@${encodeURIComponent(connection.host)}/${connection.database}`;

/**
 * One embedded PostgreSQL (the default store's server) for a test file, in a directory of its
 * own; `stop()` stops it and removes the directory.
 */
export const embeddedServerForTests = async () => {
  const directory = await mkdtemp(join(tmpdir(), 'payrail-embedded-'));
  const shared = await startSharedEmbeddedPostgres(join(directory, 'postgres'));
  return {
    url: socketUrl(shared.connection),
    async stop() {
      await shared.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
};

/**
 * Stores on one PGlite instance (starting PGlite takes seconds), in memory or on a data
 * directory. `reopen` closes the instance itself and opens the directory again, so what
 * survives is what PostgreSQL wrote to disk.
 */
export const pgliteStores = (where: 'memory' | 'directory'): HarnessFactory => {
  const schemas = schemaPool();
  let dir: Promise<string> | undefined;
  let db: Promise<PGlite> | undefined;
  const instance = async (): Promise<PGlite> => {
    if (db === undefined) {
      if (where === 'directory') dir ??= mkdtemp(join(tmpdir(), 'payrail-pglite-'));
      db = dir === undefined ? PGlite.create() : PGlite.create(await dir);
    }
    return db;
  };
  const open = async (schema: string) => {
    const store = await createPGliteStore({ pglite: await instance(), schema });
    return { ...harnessOf(store, () => schemas.giveBack(store)), store };
  };
  return {
    harness: () => open(schemas.take()),
    async reopen(harness) {
      if (db !== undefined) await (await db).close();
      db = undefined;
      return open((harness.store as PostgresStore).schema);
    },
    async close() {
      if (db !== undefined) await (await db).close();
      if (dir !== undefined) await rm(await dir, { recursive: true, force: true });
    },
  };
};
