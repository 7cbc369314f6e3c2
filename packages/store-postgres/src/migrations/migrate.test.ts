/**
 * Migrations on PGlite: recorded once, applied once, all or nothing; and a schema made by an
 * earlier release, holding data, upgraded by the later migrations.
 */
import { PGlite } from '@electric-sql/pglite';
import { depositJournal, money } from '@payrail/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExecutor } from '../pglite.executor.js';
import { createPGliteStore } from '../pglite-store.js';
import type { SqlExecutor } from '../sql-executor.js';
import { init } from './0001-init.js';
import { migrate, migrationState, migrations } from './migrate.js';

let pglite: PGlite;
let executor: SqlExecutor;

beforeAll(async () => {
  pglite = await PGlite.create();
  executor = pgliteExecutor(pglite, { ownsDatabase: true });
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

  it('0002 numbers the journals of a 0001 schema, and journals posted after them list after them', async () => {
    expect(await migrate(executor, 'upgrade', [init])).toEqual(['0001-init']);
    // Two journals of the same second written by the first release, straight into its tables.
    for (const id of ['b_dep', 'a_dep']) {
      await executor.query(
        `INSERT INTO upgrade.ledger_journals
          (journal_id, record_type, account_id, currency, amount, business_type, business_id, created_at)
          VALUES ($1, 'deposit', 'acc_1', 'USD', 1.00, 'deposit', $2, 100)`,
        [`${id}:deposit`, id],
      );
      await executor.query(
        `INSERT INTO upgrade.ledger_postings (journal_id, position, ledger_account, currency, amount)
          VALUES ($1, 0, 'merchant:acc_1:available', 'USD', 1.00),
                 ($1, 1, 'platform:funding', 'USD', -1.00)`,
        [`${id}:deposit`],
      );
    }
    await executor.query(
      `INSERT INTO upgrade.ledger_balances (ledger_account, currency, amount)
        VALUES ('merchant:acc_1:available', 'USD', 2.00)`,
    );
    // Opening a store on the schema applies what it lacks, the way a new release starts.
    const store = await createPGliteStore({ pglite, schema: 'upgrade' });
    try {
      expect(await recorded('upgrade')).toEqual(migrations.map((m) => m.id));
      const numbered = await executor.query<{ seq: string | number | null }>(
        'SELECT seq FROM upgrade.ledger_journals',
      );
      expect(numbered.rows.every((row) => row.seq !== null)).toBe(true);
      expect(new Set(numbered.rows.map((row) => String(row.seq))).size).toBe(2);
      await store.transaction((tx) =>
        tx.ledger.post(
          depositJournal({ accountId: 'acc_1', businessId: '0_dep' }, money('USD', '1.00')),
          100,
        ),
      );
      const page = await store.transaction((tx) =>
        tx.ledger.entries({ accountId: 'acc_1', sort: 'asc', limit: 10, offset: 0 }),
      );
      const ids = page.items.map((entry) => entry.journal_id);
      expect(ids).toHaveLength(3);
      // The earlier release's journals come first in some order (it kept none); the new one last.
      expect(ids.slice(0, 2).sort()).toEqual(['a_dep:deposit', 'b_dep:deposit']);
      expect(ids[2]).toBe('0_dep:deposit');
      expect(page.items.map((entry) => entry.balance_after)).toEqual(['1.00', '2.00', '3.00']);
    } finally {
      await store.close();
    }
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

describe('migrationState (payrail migrate --check)', () => {
  const ids = migrations.map((m) => m.id);

  it('reads a schema that does not exist as every migration pending, and creates nothing', async () => {
    expect(await migrationState(executor, 'never_made')).toEqual({
      applied: [],
      pending: ids,
      unknown: [],
    });
    expect(await schemaExists('never_made')).toBe(false);
  });

  it('reads what a schema lacks: the later migrations of an earlier release', async () => {
    await migrate(executor, 'behind', [init]);
    expect(await migrationState(executor, 'behind')).toEqual({
      applied: ['0001-init'],
      pending: ids.slice(1),
      unknown: [],
    });
    await migrate(executor, 'behind');
    expect(await migrationState(executor, 'behind')).toEqual({
      applied: ids,
      pending: [],
      unknown: [],
    });
  });

  it('names what a later payrail applied that this one does not know', async () => {
    const later = { id: '9999-later', sql: 'CREATE TABLE later_only (x INTEGER);' };
    await migrate(executor, 'ahead', [...migrations, later]);
    expect(await migrationState(executor, 'ahead')).toEqual({
      applied: ids,
      pending: [],
      unknown: ['9999-later'],
    });
  });

  it('a store opened with applyMigrations: false migrates nothing until asked', async () => {
    const store = await createPGliteStore({ pglite, schema: 'asked', applyMigrations: false });
    try {
      expect((await store.migrationState()).pending).toEqual(ids);
      expect(await schemaExists('asked')).toBe(false);
      expect(await store.migrate()).toEqual(ids);
      expect(await store.migrationState()).toEqual({ applied: ids, pending: [], unknown: [] });
      expect(await store.migrate()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
