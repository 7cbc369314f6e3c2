/**
 * payrail's store embedded through PGlite: PostgreSQL in this process, in a data directory (or
 * in memory), with no server. The same SQL as the server variant; units of work run one at a
 * time on PGlite's single connection.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { lockDataDir } from './data-dir-lock.js';
import { restrictToOwner } from './owner-only-files.js';
import { type PGliteDatabase, pgliteExecutor } from './pglite.executor.js';
import type { RetryPolicy } from './sql-executor.js';
import {
  createSqlStore,
  defaultSchema,
  type MigrationOptions,
  type PostgresStore,
} from './sql-store.js';

export interface PGliteStoreOptions extends MigrationOptions {
  /**
   * Where the database lives; without it, in memory (gone on `close()`). Created 0700 when
   * missing; it and everything in it are made owner-only (folders 0700, files 0600) as the
   * store opens and closes, also when it already existed. One store at a time may open it: a
   * second open, here or in another process, fails naming the holder (`payrail.lock`).
   *
   * PGlite on Node does not flush its files to stable storage (ADR 0037): what it committed
   * survives the process being killed, not an OS crash or a power cut. The embedded PostgreSQL
   * store (`createEmbeddedPostgresStore`) does.
   */
  readonly dataDir?: string;
  /**
   * A PGlite instance the host owns (`dataDir` is then ignored): the store uses it and leaves it
   * open on `close()`. Several stores may share one instance, each in its own schema.
   */
  readonly pglite?: PGliteDatabase;
  /** The schema holding payrail's tables, created if missing. Default `payrail`. */
  readonly schema?: string;
  readonly retry?: RetryPolicy;
  /** Appended to the refusal when another owner holds `dataDir`. */
  readonly lockRemedy?: string;
  /** Run `ANALYZE` after this many committed units of work (PGlite has no autovacuum). */
  readonly analyzeEvery?: number;
  /**
   * PostgreSQL's `shared_buffers` for a database the store opens; default `32MB` (PGlite's own
   * default is 128MB, which costs about 100 MB of resident memory more: docs/performance.md).
   */
  readonly sharedBuffers?: string;
}

/**
 * Creates the database in a new data directory (PGlite's initdb) in a short-lived Node process:
 * initdb peaks at about 800 MB of resident memory, which a process keeps as its high-water mark
 * for good, so the serving process only ever opens a database that exists. The child resolves
 * `@electric-sql/pglite` from this module's folder, as this module does.
 */
const initialiseApart = (dataDir: string): Promise<void> =>
  new Promise((resolve, reject) => {
    // Whatever PGlite leaves to the umask is the owner's alone; the rest restrictToOwner fixes.
    const script = `process.umask(0o077);
const { PGlite } = await import('@electric-sql/pglite');
const db = await PGlite.create(${JSON.stringify(dataDir)});
await db.close();`;
    const child = spawn(process.execPath, ['--input-type=module', '--eval', script], {
      cwd: dirname(fileURLToPath(import.meta.url)),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`PGlite could not create a database in ${dataDir}: ${stderr.trim()}`)),
    );
  });

const isMemory = (dataDir: string): boolean => dataDir.startsWith('memory://');

const openDatabase = async (dataDir: string, sharedBuffers: string): Promise<PGlite> => {
  if (!isMemory(dataDir)) {
    // Closed to other users before PGlite reads or writes a byte of it.
    await restrictToOwner(dataDir);
    if (!existsSync(join(dataDir, 'PG_VERSION'))) await initialiseApart(dataDir);
  }
  return PGlite.create(dataDir, {
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffers}`],
  });
};

const executorOf = (db: PGliteDatabase, options: PGliteStoreOptions) =>
  pgliteExecutor(db, {
    ownsDatabase: options.pglite === undefined,
    ...(options.retry === undefined ? {} : { retry: options.retry }),
    ...(options.analyzeEvery === undefined ? {} : { analyzeEvery: options.analyzeEvery }),
  });

export const createPGliteStore = async (
  options: PGliteStoreOptions = {},
): Promise<PostgresStore> => {
  const schema = options.schema ?? defaultSchema;
  const sharedBuffers = options.sharedBuffers ?? '32MB';
  const dataDir = options.pglite === undefined ? (options.dataDir ?? 'memory://') : 'memory://';
  if (isMemory(dataDir)) {
    const db = options.pglite ?? (await openDatabase(dataDir, sharedBuffers));
    return createSqlStore(executorOf(db, options), schema, options);
  }
  const lock = await lockDataDir(dataDir, {
    ...(options.lockRemedy === undefined ? {} : { remedy: options.lockRemedy }),
  });
  try {
    const executor = executorOf(await openDatabase(dataDir, sharedBuffers), options);
    // PGlite writes its files 0666 (initdb's, its start's): owner-only once it has started and
    // migrated, and again once it has closed.
    const store = await createSqlStore(
      {
        ...executor,
        close: async () => {
          try {
            await executor.close();
            await restrictToOwner(dataDir);
          } finally {
            await lock.release();
          }
        },
      },
      schema,
      options,
    );
    await restrictToOwner(dataDir);
    return store;
  } catch (error) {
    await lock.release();
    throw error;
  }
};
