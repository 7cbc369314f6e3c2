/**
 * Once per `vitest run` of this package: the embedded default's PostgreSQL (ADR 0037), started in
 * a directory of its own and shared by every test file's stores, each in a schema of its own
 * (stores.test-support.ts); and a PgBouncer in transaction mode before the server at
 * `DATABASE_URL` (ADR 0052), through which the suites reach that server. Both are stopped, and
 * their directories removed, when the run ends.
 *
 * Without a pgbouncer binary the server's suites are skipped with a message, except in CI
 * (`CI=true`), where the run fails: a skipped suite in CI is a defect.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type EmbeddedPostgresConnection,
  type PgBouncer,
  type PgBouncerConnection,
  pgBouncerMissing,
  startPgBouncer,
  startSharedEmbeddedPostgres,
} from '@payrail/store-postgres/testing';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    embeddedPostgres: EmbeddedPostgresConnection;
    /** PgBouncer before the server at `DATABASE_URL`, or why there is none (outside CI only). */
    pgBouncer: PgBouncerConnection | { readonly missing: string };
  }
}

const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Each test file's server stores share a pool of 8 connections, and a few files run at once: 20
 * server connections per run, and clients enough for every pool and probe.
 */
const startBouncer = async (): Promise<PgBouncer | string> => {
  const missing = pgBouncerMissing();
  if (missing !== undefined) {
    if (process.env.CI === 'true') throw new Error(`the HTTP suites need PgBouncer: ${missing}`);
    return missing;
  }
  return startPgBouncer({ server: serverUrl, poolSize: 20, maxClients: 400 });
};

export const setup = async (project: TestProject) => {
  const directory = await mkdtemp(join(tmpdir(), 'payrail-http-embedded-'));
  const shared = await startSharedEmbeddedPostgres(join(directory, 'postgres'));
  project.provide('embeddedPostgres', shared.connection);
  let bouncer: PgBouncer | string;
  try {
    bouncer = await startBouncer();
  } catch (error) {
    await shared.stop();
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  project.provide(
    'pgBouncer',
    typeof bouncer === 'string'
      ? { missing: bouncer }
      : { url: bouncer.url, adminUrl: bouncer.adminUrl },
  );
  return async () => {
    if (typeof bouncer !== 'string') await bouncer.stop();
    await shared.stop();
    await rm(directory, { recursive: true, force: true });
  };
};
