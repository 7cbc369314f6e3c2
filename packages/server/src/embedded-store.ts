/**
 * The store the server's configuration names, opened, and the move of a data directory written
 * by the PGlite store into the embedded PostgreSQL (ADR 0037): a server on the embedded default
 * never starts an empty store beside the old money.
 */
import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type CopiedTable,
  copyStore,
  createEmbeddedPostgresStore,
  createPGliteStore,
  createPostgresStore,
  type MigrationOptions,
  type PostgresStore,
} from '@payrail/store-postgres';
import { embeddedDatabaseIn, type ServerConfig } from './config.js';

/**
 * @public Thrown by `startPayrail` when the data directory still holds a PGlite database the
 * embedded default would miss (`payrail store migrate` moves it).
 */
export class UnmigratedPGliteData extends Error {
  constructor(display: string) {
    super(
      `${display} holds a PGlite database (pgdata/) written by an earlier payrail, and the ` +
        'default embedded database is now PostgreSQL. Move it with `payrail store migrate` ' +
        '(stop payrail first), or keep it as it is with PAYRAIL_EMBEDDED_DATABASE=pglite',
    );
    this.name = 'UnmigratedPGliteData';
  }
}

const pgliteDataIn = (dataDir: string): string => embeddedDatabaseIn(dataDir, 'pglite');

const holdsPGliteData = (dataDir: string): boolean =>
  existsSync(join(pgliteDataIn(dataDir), 'PG_VERSION'));

const lockRemedy = 'or set PAYRAIL_DATA_DIR to another directory';

/**
 * The configured store, its schema migrated as it opens; with `applyMigrations: false` (`payrail
 * migrate`, `payrail doctor`) as it is.
 */
export const openConfiguredStore = async (
  config: ServerConfig,
  log: (line: string) => void,
  opening: MigrationOptions = {},
): Promise<PostgresStore> => {
  const { database, databaseSchema: schema } = config;
  if (database.kind === 'server') {
    return createPostgresStore({
      connectionString: database.connectionString,
      ...(database.readConnectionString === undefined
        ? {}
        : { readConnectionString: database.readConnectionString }),
      ...(database.listenConnectionString === undefined
        ? {}
        : { listenConnectionString: database.listenConnectionString }),
      schema,
      ...opening,
    });
  }
  if (database.engine === 'pglite') {
    return createPGliteStore({ dataDir: database.directory, schema, lockRemedy, ...opening });
  }
  if (holdsPGliteData(config.dataDir)) throw new UnmigratedPGliteData(config.dataDirDisplay);
  return createEmbeddedPostgresStore({
    dataDir: database.directory,
    schema,
    lockRemedy,
    log,
    ...opening,
  });
};

export interface StoreMigration {
  readonly tables: readonly CopiedTable[];
  /** Where the PGlite files were moved once copied (kept, not deleted). */
  readonly keptAt: string;
}

/**
 * `payrail store migrate`: copies the PGlite database of the data directory into the embedded
 * PostgreSQL (which must hold nothing yet), then renames `pgdata/` to `pgdata.migrated-<time>/`
 * so the server starts on the copy. The caller holds the data directory's lock.
 */
export const migratePGliteData = async (config: ServerConfig): Promise<StoreMigration> => {
  if (!holdsPGliteData(config.dataDir)) {
    throw new Error(`${config.dataDirDisplay} holds no PGlite database (pgdata/): nothing to move`);
  }
  const schema = config.databaseSchema;
  const from = await createPGliteStore({ dataDir: pgliteDataIn(config.dataDir), schema });
  let tables: readonly CopiedTable[];
  try {
    const to = await createEmbeddedPostgresStore({
      dataDir: embeddedDatabaseIn(config.dataDir, 'postgres'),
      schema,
    });
    try {
      tables = await copyStore(from, to);
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
  const keptAt = `${pgliteDataIn(config.dataDir)}.migrated-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  await rename(pgliteDataIn(config.dataDir), keptAt);
  return { tables, keptAt };
};
