/**
 * 0008 (issue 20): the payment ids a schema already bound to orders, as idempotency keys under
 * `acquiring.payment_id`, become acquiring payment records with their order's account; the
 * client request ids stay where they were, and so does a binding whose order is gone.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExecutor } from '../pglite.executor.js';
import type { SqlExecutor } from '../sql-executor.js';
import { migrate, migrations } from './migrate.js';

const schema = 'payrail_payments_check';
let executor: SqlExecutor;

beforeAll(async () => {
  executor = pgliteExecutor(await PGlite.create(), { ownsDatabase: true });
  const before = migrations.filter((migration) => migration.id < '0008');
  await migrate(executor, schema, before);
  await executor.exec(`
    INSERT INTO "${schema}".acquiring_orders
      (id, account_id, out_trade_no, status, created_at, updated_at, version, data)
    VALUES ('ord_1', 'acc_1', 'otn_1', 'pending', 1800000000, 1800000000, 1, '{}');
    INSERT INTO "${schema}".idempotency_keys (scope, key, request_hash, resource_id, created_at)
    VALUES ('acquiring.payment_id', 'pay_1', '', 'ord_1', 1800000010),
           ('acquiring.payment_id', 'pay_2', '', 'ord_gone', 1800000015),
           ('payout.create:acc_1', 'req_1', 'hash', 'po_1', 1800000020);
  `);
  await migrate(executor, schema);
});

afterAll(() => executor.close());

describe('0008-acquiring-payments', () => {
  it("moves each bound payment id to an acquiring payment of its order's account", async () => {
    const { rows } = await executor.query(
      `SELECT id, account_id, order_id, created_at, version, data FROM "${schema}".acquiring_payments`,
    );
    expect(rows).toEqual([
      {
        id: 'pay_1',
        account_id: 'acc_1',
        order_id: 'ord_1',
        created_at: 1800000010,
        version: 1,
        data: {
          payment_id: 'pay_1',
          account_id: 'acc_1',
          order_id: 'ord_1',
          created_at: 1800000010,
          updated_at: 1800000010,
          version: 1,
        },
      },
    ]);
  });

  it('leaves the client request ids, and a binding whose order is gone, where they were', async () => {
    const { rows } = await executor.query(
      `SELECT scope, key FROM "${schema}".idempotency_keys ORDER BY key`,
    );
    expect(rows).toEqual([
      { scope: 'acquiring.payment_id', key: 'pay_2' },
      { scope: 'payout.create:acc_1', key: 'req_1' },
    ]);
  });
});
