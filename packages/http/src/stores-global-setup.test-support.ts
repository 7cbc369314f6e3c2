/**
 * Once per `vitest run` of this package: the embedded default's PostgreSQL (ADR 0037), started in
 * a directory of its own and shared by every test file's stores, each in a schema of its own
 * (stores.test-support.ts). Stopped, and its directory removed, when the run ends.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type EmbeddedPostgresConnection,
  startSharedEmbeddedPostgres,
} from '@payrail/store-postgres/testing';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    embeddedPostgres: EmbeddedPostgresConnection;
  }
}

export const setup = async (project: TestProject) => {
  const directory = await mkdtemp(join(tmpdir(), 'payrail-http-embedded-'));
  const shared = await startSharedEmbeddedPostgres(join(directory, 'postgres'));
  project.provide('embeddedPostgres', shared.connection);
  return async () => {
    await shared.stop();
    await rm(directory, { recursive: true, force: true });
  };
};
