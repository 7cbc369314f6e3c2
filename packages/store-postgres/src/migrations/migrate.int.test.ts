/**
 * Migrations on the PostgreSQL server: twice in a row, and from two pools (two processes, as
 * far as the server can tell) at the same moment against a schema that does not exist yet, or
 * one an earlier release made.
 */
import { Pool } from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { pgPoolExecutor } from '../pg-pool.executor.js';
import { freshSchema, serverForTests, serverUrl } from '../postgres-harness.test-support.js';
import { createPostgresStore } from '../postgres-store.js';
import type { SqlExecutor } from '../sql-executor.js';
import { init } from './0001-init.js';
import { migrate, migrations } from './migrate.js';

const server = await serverForTests();

describe.skipIf(server.skip)('migrations on the PostgreSQL server', () => {
  const created: string[] = [];
  const executors: SqlExecutor[] = [];
  const executor = (): SqlExecutor => {
    const pool = new Pool({ connectionString: serverUrl, max: 2 });
    pool.on('error', () => undefined);
    const made = pgPoolExecutor(pool, { ownsPool: true });
    executors.push(made);
    return made;
  };
  const schema = (): string => {
    const name = freshSchema();
    created.push(name);
    return name;
  };
  const all = migrations.map((m) => m.id);

  afterAll(async () => {
    const admin = executor();
    for (const name of created) await admin.exec(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    await Promise.all(executors.map((e) => e.close()));
  });

  it('running twice applies once', async () => {
    const name = schema();
    const one = executor();
    expect(await migrate(one, name)).toEqual(all);
    expect(await migrate(one, name)).toEqual([]);
    const { rows } = await one.query(`SELECT id FROM "${name}".payrail_migrations`);
    expect(rows).toHaveLength(all.length);
  });

  it('two pools migrating a fresh schema at once: one applies, the other waits and finds it done', async () => {
    for (let round = 0; round < 5; round++) {
      const name = schema();
      const results = await Promise.all([migrate(executor(), name), migrate(executor(), name)]);
      expect([...results].sort((a, b) => b.length - a.length)).toEqual([all, []]);
    }
  });

  it('two pools upgrading a schema of the first release at once: the later migrations apply once', async () => {
    const later = all.filter((id) => id !== init.id);
    expect(later.length).toBeGreaterThan(0);
    for (let round = 0; round < 3; round++) {
      const name = schema();
      await migrate(executor(), name, [init]);
      await executor().query(
        `INSERT INTO "${name}".ledger_journals
          (journal_id, record_type, account_id, currency, amount, business_type, business_id, created_at)
          VALUES ('dep_1:deposit', 'deposit', 'acc_1', 'USD', 1.00, 'deposit', 'dep_1', 100)`,
      );
      await executor().query(
        `INSERT INTO "${name}".ledger_postings (journal_id, position, ledger_account, currency, amount)
          VALUES ('dep_1:deposit', 0, 'merchant:acc_1:available', 'USD', 1.00),
                 ('dep_1:deposit', 1, 'platform:funding', 'USD', -1.00)`,
      );
      const results = await Promise.all([migrate(executor(), name), migrate(executor(), name)]);
      expect([...results].sort((a, b) => b.length - a.length)).toEqual([later, []]);
      const { rows } = await executor().query<{ seq: string | null }>(
        `SELECT seq FROM "${name}".ledger_journals`,
      );
      expect(rows.map((row) => row.seq === null)).toEqual([false]);
      const records = await executor().query<{ balance_after: string }>(
        `SELECT balance_after FROM "${name}".ledger_entries`,
      );
      expect(records.rows).toEqual([{ balance_after: '1.00' }]);
    }
  });

  it('two stores starting at once on a fresh schema both open, and share the data', async () => {
    const name = schema();
    const [a, b] = await Promise.all([
      createPostgresStore({ connectionString: serverUrl, schema: name, maxConnections: 2 }),
      createPostgresStore({ connectionString: serverUrl, schema: name, maxConnections: 2 }),
    ]);
    try {
      await a.transaction((tx) =>
        tx.idempotency.put({
          scope: 's',
          key: 'k',
          request_hash: 'h',
          resource_id: 'r',
          created_at: 1,
        }),
      );
      expect(await b.transaction((tx) => tx.idempotency.get('s', 'k'))).toMatchObject({
        resource_id: 'r',
      });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
