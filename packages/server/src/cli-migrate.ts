/**
 * `payrail migrate [--check]` (issue 22): the schema's migrations outside a server start. The
 * store is opened as it is (`applyMigrations: false`); `migrate` applies what it lacks, as a
 * server's start would, and names each; `--check` writes nothing and exits 1 when anything is
 * pending. The embedded database is the data directory's, locked as a server locks it: a running
 * server holds it (and migrated it when it started).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  lockDataDir,
  type MigrationState,
  migrationIds,
  type PostgresStore,
} from '@payrail/store-postgres';
import type { CliIo } from './cli-commands.js';
import { describeDatabase, redactConnectionString, type ServerConfig } from './config.js';
import { openConfiguredStore } from './embedded-store.js';
import { errorSummary } from './timer-loop.js';

/** Where the schema lives, without a password: `schema payrail of postgres://app@db/payrail`. */
export const schemaPlace = (config: ServerConfig): string =>
  `schema ${config.databaseSchema} of ${
    config.database.kind === 'server'
      ? redactConnectionString(config.database.connectionString)
      : describeDatabase(config)
  }`;

/** Where the embedded database keeps its cluster (its `PG_VERSION`); none for a server. */
export const embeddedClusterOf = ({ database }: ServerConfig): string | undefined =>
  database.kind === 'server'
    ? undefined
    : database.engine === 'postgres'
      ? join(database.directory, 'data')
      : database.directory;

/** Whether the embedded database of the data directory was ever created (a start creates it). */
export const embeddedDatabaseExists = (config: ServerConfig): boolean => {
  const cluster = embeddedClusterOf(config);
  return cluster === undefined || existsSync(join(cluster, 'PG_VERSION'));
};

/**
 * Runs `work` on the configured store, opened without migrating; the embedded database under the
 * data directory's lock, as a server holds it.
 */
export const withUnmigratedStore = async <T>(
  config: ServerConfig,
  work: (store: PostgresStore) => Promise<T>,
): Promise<T> => {
  const lock =
    config.database.kind === 'embedded'
      ? await lockDataDir(config.dataDir, {
          display: config.dataDirDisplay,
          remedy: ': a running server migrated its schema when it started',
        })
      : undefined;
  try {
    const store = await openConfiguredStore(config, () => undefined, { applyMigrations: false });
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  } finally {
    await lock?.release();
  }
};

const listed = (ids: readonly string[]): string[] => ids.map((id) => `  ${id}`);

/** The lines of `--check`, and whether the schema is current. */
const checkLines = (
  place: string,
  state: MigrationState,
): { current: boolean; lines: string[] } => {
  const later =
    state.unknown.length === 0
      ? []
      : [
          `payrail: ${place} holds ${state.unknown.length} migrations this payrail does not know ` +
            '(a later payrail applied them; run that one):',
          ...listed(state.unknown),
        ];
  if (state.pending.length === 0) {
    return {
      current: later.length === 0,
      lines: [
        `payrail: ${place} is current: ${state.applied.length} migrations applied, none pending`,
        ...later,
      ],
    };
  }
  return {
    current: false,
    lines: [
      `payrail: ${place} lacks ${state.pending.length} of ${state.applied.length + state.pending.length} ` +
        'migrations (payrail migrate applies them):',
      ...listed(state.pending),
      ...later,
    ],
  };
};

const applyLines = (place: string, ran: readonly string[], state: MigrationState): string[] => [
  ran.length === 0
    ? `payrail: ${place} is current: ${state.applied.length} migrations applied, none to apply`
    : `payrail: applied ${ran.length} migrations to ${place}:`,
  ...listed(ran),
  ...(state.unknown.length === 0
    ? []
    : [
        `payrail: it also holds migrations this payrail does not know: ${state.unknown.join(', ')}`,
      ]),
];

/** `--check` of an embedded database that was never created: everything is pending. */
const uncreated = (config: ServerConfig, json: boolean, io: CliIo): number => {
  if (json) {
    io.out(JSON.stringify({ applied: [], pending: migrationIds, unknown: [] }, null, 2));
  } else {
    io.out(
      `payrail: ${describeDatabase(config)} has no database yet: all ${migrationIds.length} ` +
        'migrations are pending (payrail migrate, or the first start, creates it)',
    );
  }
  return 1;
};

/** `payrail migrate [--check]`; answers the exit code. */
export const runMigrate = async (
  config: ServerConfig,
  options: { readonly check: boolean; readonly json: boolean },
  io: CliIo,
): Promise<number> => {
  const place = schemaPlace(config);
  if (options.check && !embeddedDatabaseExists(config)) return uncreated(config, options.json, io);
  try {
    return await withUnmigratedStore(config, async (store) => {
      if (options.check) {
        const state = await store.migrationState();
        const { current, lines } = checkLines(place, state);
        for (const line of options.json ? [JSON.stringify(state, null, 2)] : lines) io.out(line);
        return current ? 0 : 1;
      }
      const ran = await store.migrate();
      const state = await store.migrationState();
      const lines = options.json
        ? [JSON.stringify({ ran, ...state }, null, 2)]
        : applyLines(place, ran, state);
      for (const line of lines) io.out(line);
      return 0;
    });
  } catch (error) {
    io.err(
      `payrail: cannot ${options.check ? 'check' : 'migrate'} ${place}: ${errorSummary(error)}`,
    );
    return 3;
  }
};
