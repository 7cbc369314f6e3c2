/**
 * 0006 on schemas written before environments were recorded (ADR 0035): one that holds data is
 * recorded as sandbox, so a live payrail refuses it (sandbox money becomes live money: finding 3
 * of issue 12); an empty one is recorded by the first claim.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExecutor } from '../pglite.executor.js';
import { createPGliteStore } from '../pglite-store.js';
import type { SqlExecutor } from '../sql-executor.js';
import { migrate, migrations } from './migrate.js';

let pglite: PGlite;
let executor: SqlExecutor;

beforeAll(async () => {
  pglite = await PGlite.create();
  executor = pgliteExecutor(pglite, { ownsDatabase: true });
});
afterAll(() => executor.close());

const before = migrations.filter((m) => m.id < '0006');

describe('0006-store-environment', () => {
  it('records a schema that already holds data as sandbox: a live claim answers sandbox', async () => {
    const schema = 'environment_upgrade_with_data';
    await migrate(executor, schema, before);
    await executor.query(
      `INSERT INTO ${schema}.idempotency_keys (scope, key, request_hash, resource_id, created_at)
        VALUES ('acc_1', 'k1', 'h', 'po_1', 1)`,
    );
    const store = await createPGliteStore({ pglite, schema });
    expect(await store.claimEnvironment('live')).toBe('sandbox');
  });

  it('leaves an empty schema to its first claim', async () => {
    const schema = 'environment_upgrade_empty';
    await migrate(executor, schema, before);
    const store = await createPGliteStore({ pglite, schema });
    expect(await store.claimEnvironment('live')).toBe('live');
    expect(await store.claimEnvironment('sandbox')).toBe('live');
  });
});
