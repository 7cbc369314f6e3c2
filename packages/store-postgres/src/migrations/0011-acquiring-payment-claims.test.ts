/**
 * 0011 (the review of issue 23): the payment ids already bound are claimed, so no other
 * account's order binds one again; a payment id bound under two accounts before it (a race 0010
 * allowed) stops the migration, naming the id, instead of choosing which account keeps it.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExecutor } from '../pglite.executor.js';
import { createPGliteStore } from '../pglite-store.js';
import type { SqlExecutor } from '../sql-executor.js';
import { migrate, migrations } from './migrate.js';

const before0011 = migrations.filter((migration) => migration.id < '0011');
let pglite: PGlite;
let executor: SqlExecutor;

/** A payment row as 0010's schema holds it. */
const payment = (id: string, account: string, order: string) =>
  `('${id}', '${account}', '${order}', 1800000000, 1800000000, 1,
    '{"payment_id":"${id}","account_id":"${account}","order_id":"${order}","created_at":1800000000,"updated_at":1800000000,"version":1}')`;

const schemaWith = async (schema: string, payments: readonly string[]): Promise<void> => {
  await migrate(executor, schema, before0011);
  await executor.exec(`
    INSERT INTO "${schema}".acquiring_payments (id, account_id, order_id, created_at, updated_at, version, data)
    VALUES ${payments.join(',\n')};`);
};

beforeAll(async () => {
  pglite = await PGlite.create();
  executor = pgliteExecutor(pglite, { ownsDatabase: false });
});

afterAll(async () => {
  await pglite.close();
});

describe('0011-acquiring-payment-claims', () => {
  it('claims the payment ids already bound: another account cannot bind one again', async () => {
    const schema = 'payrail_payment_claims_check';
    await schemaWith(schema, [
      payment('pay_1', 'acc_1', 'ord_1'),
      payment('pay_2', 'acc_2', 'ord_2'),
    ]);
    await migrate(executor, schema);
    expect(
      (
        await executor.query(
          `SELECT * FROM "${schema}".acquiring_payment_claims ORDER BY payment_id`,
        )
      ).rows,
    ).toEqual([
      { payment_id: 'pay_1', account_id: 'acc_1' },
      { payment_id: 'pay_2', account_id: 'acc_2' },
    ]);
    const store = await createPGliteStore({ pglite, schema });
    try {
      const binding = store.transaction((tx) =>
        tx.acquiringPayments.insert({
          payment_id: 'pay_1',
          account_id: 'acc_3',
          order_id: 'ord_3',
          created_at: 1800000100,
          updated_at: 1800000100,
        }),
      );
      await expect(binding).rejects.toMatchObject({ reason: 'unique_violation' });
      const bound = await store.transaction((tx) => tx.acquiringPayments.get('pay_1'));
      expect(bound?.order_id).toBe('ord_1');
    } finally {
      await store.close();
    }
  });

  it('stops on a payment id bound under two accounts, naming it, and applies nothing', async () => {
    const schema = 'payrail_payment_claims_twice';
    await schemaWith(schema, [
      payment('pay_1', 'acc_1', 'ord_1'),
      payment('pay_1', 'acc_2', 'ord_2'),
    ]);
    await expect(migrate(executor, schema)).rejects.toThrow(/pay_1/);
    const applied = await executor.query<{ id: string }>(
      `SELECT id FROM "${schema}".payrail_migrations ORDER BY id`,
    );
    expect(applied.rows.map((row) => row.id)).not.toContain('0011-acquiring-payment-claims');
  });
});
