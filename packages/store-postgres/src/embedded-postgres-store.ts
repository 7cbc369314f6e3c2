/**
 * payrail's default store on one machine (ADR 0037): a real PostgreSQL that the store starts
 * under its data directory and stops when it closes, reached through the same node-postgres pool
 * and SQL as any PostgreSQL server. It commits durably: every answered unit of work's WAL is on
 * stable storage (fsync) before COMMIT returns.
 */
import pg from 'pg';
import { type DataDirLock, lockDataDir } from './data-dir-lock.js';
import { type EmbeddedPostgres, startEmbeddedPostgres } from './embedded-postgres.js';
import { pgPoolExecutor } from './pg-pool.executor.js';
import type { RetryPolicy } from './sql-executor.js';
import {
  createSqlStore,
  defaultSchema,
  type MigrationOptions,
  type PostgresStore,
} from './sql-store.js';

export interface EmbeddedPostgresStoreOptions extends MigrationOptions {
  /**
   * The directory the database lives in, created 0700 when missing; it and everything in it are
   * owner-only. One store at a time may open it: a second open, here or in another process,
   * fails naming the holder.
   */
  readonly dataDir: string;
  /** The schema holding payrail's tables, created if missing. Default `payrail`. */
  readonly schema?: string;
  /** Connections of the store's pool. Default 10. */
  readonly maxConnections?: number;
  readonly retry?: RetryPolicy;
  /** PostgreSQL's `shared_buffers`. Default `32MB`. */
  readonly sharedBuffers?: string;
  /**
   * As root: run the database as this system user (created when missing) rather than in a user
   * namespace of its own.
   */
  readonly systemUser?: string;
  /** Appended to the refusal when another owner holds `dataDir`. */
  readonly lockRemedy?: string;
  /** Operator-facing lines: an orphaned server stopped, a system user created. */
  readonly log?: (line: string) => void;
}

export const createEmbeddedPostgresStore = async (
  options: EmbeddedPostgresStoreOptions,
): Promise<PostgresStore> => {
  const lock: DataDirLock = await lockDataDir(options.dataDir, {
    ...(options.lockRemedy === undefined ? {} : { remedy: options.lockRemedy }),
  });
  let server: EmbeddedPostgres | undefined;
  try {
    server = await startEmbeddedPostgres({
      directory: options.dataDir,
      ...(options.sharedBuffers === undefined ? {} : { sharedBuffers: options.sharedBuffers }),
      ...(options.systemUser === undefined ? {} : { systemUser: options.systemUser }),
      ...(options.log === undefined ? {} : { log: options.log }),
    });
    const pool = new pg.Pool({
      host: server.socketDirectory,
      user: server.user,
      database: server.database,
      max: options.maxConnections ?? 10,
      // As the server's pools (issue 24): a unit of work's BEGIN rides with its first statement.
      pipeline: true,
    });
    // As in createPostgresStore: a broken idle connection is dropped, never a crash.
    pool.on('error', () => undefined);
    const executor = pgPoolExecutor(pool, {
      ownsPool: true,
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    });
    const running = server;
    return await createSqlStore(
      {
        ...executor,
        close: async () => {
          try {
            await executor.close();
            await running.stop();
          } finally {
            await lock.release();
          }
        },
      },
      options.schema ?? defaultSchema,
      options,
    );
  } catch (error) {
    await server?.stop().catch(() => undefined);
    await lock.release();
    throw error;
  }
};
