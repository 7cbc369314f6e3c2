/**
 * 0007 (ADR 0040): the audit trail is append-only in the database itself. An UPDATE or a DELETE
 * of a record, written by hand in the application's role, is refused; TRUNCATE, the owner's
 * retention, is not.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExecutor } from '../pglite.executor.js';
import type { SqlExecutor } from '../sql-executor.js';
import { migrate } from './migrate.js';

const schema = 'payrail_audit_check';
let executor: SqlExecutor;

beforeAll(async () => {
  executor = pgliteExecutor(await PGlite.create(), { ownsDatabase: true });
  await migrate(executor, schema);
  await executor.exec(`
    INSERT INTO "${schema}".audit_records
      (id, account_id, actor_type, actor_id, action, object_type, object_id,
       created_at, updated_at, version, data)
    VALUES ('aud_1', 'acc_1', 'operator', 'opr_1', 'payout.review', 'payout', 'po_1',
            1800000000, 1800000000, 1, '{"audit_id":"aud_1"}');
  `);
});

afterAll(() => executor.close());

describe('0007-operators-and-audit', () => {
  it('refuses UPDATE and DELETE of an audit record, and keeps it as written', async () => {
    await expect(
      executor.exec(`UPDATE "${schema}".audit_records SET actor_id = 'someone_else'`),
    ).rejects.toThrow('audit_records is append-only: UPDATE refused');
    await expect(executor.exec(`DELETE FROM "${schema}".audit_records`)).rejects.toThrow(
      'audit_records is append-only: DELETE refused',
    );
    const { rows } = await executor.query<{ actor_id: string }>(
      `SELECT actor_id FROM "${schema}".audit_records`,
    );
    expect(rows).toEqual([{ actor_id: 'opr_1' }]);
  });

  it("lets TRUNCATE, the owner's retention, empty it", async () => {
    await executor.exec(`TRUNCATE "${schema}".audit_records`);
    const { rows } = await executor.query(`SELECT 1 FROM "${schema}".audit_records`);
    expect(rows).toEqual([]);
  });
});
