/**
 * One embedded PostgreSQL for a whole test run, shared by stores in schemas of their own: what
 * payrail's own suites run "on the embedded default" with, since a cluster per test would spend
 * a second on initdb each time. A host's suites may use it the same way.
 */
import { lockDataDir } from '../data-dir-lock.js';
import { startEmbeddedPostgres } from '../embedded-postgres.js';

/** What node-postgres needs to reach the shared server (`new pg.Pool(connection)`). */
export interface EmbeddedPostgresConnection {
  readonly host: string;
  readonly user: string;
  readonly database: string;
}

export interface SharedEmbeddedPostgres {
  readonly connection: EmbeddedPostgresConnection;
  /** Stops the server and lets go of its directory. */
  stop(): Promise<void>;
}

/** Starts (creating on first use) the embedded PostgreSQL of `directory`, locked as a store locks it. */
export const startSharedEmbeddedPostgres = async (
  directory: string,
): Promise<SharedEmbeddedPostgres> => {
  const lock = await lockDataDir(directory);
  try {
    const server = await startEmbeddedPostgres({ directory });
    return {
      connection: { host: server.socketDirectory, user: server.user, database: server.database },
      stop: async () => {
        try {
          await server.stop();
        } finally {
          await lock.release();
        }
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
};
