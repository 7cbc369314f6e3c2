/** Migrations on PGlite: recorded once, applied once, all or nothing. */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExecutor } from '../pglite.executor.js';
import type { SqlExecutor } from '../sql-executor.js';
import { migrate, migrations } from './migrate.js';

let executor: SqlExecutor;

beforeAll(async () => {
  executor = pgliteExecutor(await PGlite.create(), { ownsDatabase: true });
});
afterAll(() => executor.close());

const recorded = async (schema: string) =>
  (
    await executor.query<{ id: string }>(
      `SELECT id FROM "${schema}".payrail_migrations ORDER BY id`,
    )
  ).rows.map((row) => row.id);

const schemaExists = async (schema: string) =>
  (await executor.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rows.length ===
  1;

describe('migrate', () => {
  it('applies every migration once, records it, and applies nothing the second time', async () => {
    expect(await migrate(executor, 'twice')).toEqual(migrations.map((m) => m.id));
    expect(await migrate(executor, 'twice')).toEqual([]);
    expect(await recorded('twice')).toEqual(migrations.map((m) => m.id));
  });

  it('applies a later migration to a schema that has the earlier ones', async () => {
    await migrate(executor, 'later');
    const next = { id: '9999-test', sql: 'CREATE TABLE later_table (x INTEGER);' };
    expect(await migrate(executor, 'later', [...migrations, next])).toEqual(['9999-test']);
    expect(await recorded('later')).toEqual([...migrations.map((m) => m.id), '9999-test']);
  });

  it('a failing migration leaves nothing behind: no schema, no table, no record', async () => {
    const broken = { id: '9999-broken', sql: 'CREATE TABLE nope (x INTEGER); SELECT 1/0;' };
    await expect(migrate(executor, 'broken', [...migrations, broken])).rejects.toThrow(
      /division by zero/,
    );
    expect(await schemaExists('broken')).toBe(false);
    expect(await migrate(executor, 'broken')).toEqual(migrations.map((m) => m.id));
  });

  it('keeps the schemas of different stores apart', async () => {
    await migrate(executor, 'apart_a');
    await migrate(executor, 'apart_b');
    await executor.exec(`INSERT INTO apart_a.idempotency_keys VALUES ('s', 'k', 'h', 'r', 1)`);
    const count = async (schema: string) =>
      (await executor.query<{ n: number }>(`SELECT count(*) AS n FROM ${schema}.idempotency_keys`))
        .rows[0]?.n;
    expect([await count('apart_a'), await count('apart_b')]).toEqual([1, 0]);
  });
});
