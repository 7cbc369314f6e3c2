/**
 * 0005 on a schema holding ledger records: the counts are taken from the records already there,
 * then kept as journals are posted, and every ledger page's `total` (any filter of currency and
 * record type, with or without a time range) is the number of records it pages through.
 */
import { PGlite } from '@electric-sql/pglite';
import { depositJournal, type LedgerQuery, money, payoutHoldJournal } from '@payrail/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExecutor } from '../pglite.executor.js';
import { createPGliteStore } from '../pglite-store.js';
import type { SqlExecutor } from '../sql-executor.js';
import { migrate, migrations } from './migrate.js';

let pglite: PGlite;
let executor: SqlExecutor;
const schema = 'entry_counts_upgrade';

beforeAll(async () => {
  pglite = await PGlite.create();
  executor = pgliteExecutor(pglite, { ownsDatabase: true });
});
afterAll(() => executor.close());

/** A record of the release before 0005, with its journal (the records' foreign key). */
const writeRecord = async (n: number, currency: string, recordType: string): Promise<void> => {
  await executor.query(
    `INSERT INTO ${schema}.ledger_journals
      (journal_id, record_type, account_id, currency, amount, business_type, business_id, created_at)
      VALUES ($1, $2, 'acc_1', $3, 1, 'deposit', $1, $4)`,
    [`j${n}`, recordType, currency, 100 + n],
  );
  await executor.query(
    `INSERT INTO ${schema}.ledger_entries (journal_id, position, account_id, bucket, currency,
        amount, balance_after, record_type, business_type, business_id, created_at)
      VALUES ($1, 0, 'acc_1', 'available', $2, 1, $3, $4, 'deposit', $1, $5)`,
    [`j${n}`, currency, n, recordType, 100 + n],
  );
};

describe('0005-ledger-entry-counts', () => {
  it('counts the records already written, then keeps counting', async () => {
    const before = migrations.filter((m) => m.id < '0005');
    expect(await migrate(executor, schema, before)).toHaveLength(before.length);
    for (let n = 1; n <= 7; n += 1) await writeRecord(n, n <= 5 ? 'USD' : 'USDT', 'deposit');

    const store = await createPGliteStore({ pglite, schema });
    const total = (filter: {
      currency?: 'USD' | 'USDT';
      recordType?: LedgerQuery['recordType'];
      from?: number;
    }) =>
      store.transaction(
        async (tx) =>
          (
            await tx.ledger.entries({
              accountId: 'acc_1',
              sort: 'asc',
              limit: 2,
              offset: 0,
              ...(filter.currency === undefined ? {} : { currency: filter.currency }),
              ...(filter.recordType === undefined ? {} : { recordType: filter.recordType }),
              ...(filter.from === undefined ? {} : { createdFrom: filter.from }),
            })
          ).total,
      );
    expect([await total({}), await total({ currency: 'USD' }), await total({ from: 106 })]).toEqual(
      [7, 5, 2],
    );

    await store.transaction(async (tx) => {
      await tx.ledger.post(
        depositJournal({ accountId: 'acc_1', businessId: 'dep_9' }, money('USD', '5.00')),
        200,
      );
      await tx.ledger.post(
        payoutHoldJournal({ accountId: 'acc_1', businessId: 'po_1' }, money('USD', '2.00')),
        201,
      );
    });
    // The hold writes two records (available and held) of one record type.
    expect([
      await total({}),
      await total({ currency: 'USD' }),
      await total({ recordType: 'payout_hold' }),
      await total({ currency: 'USDT', recordType: 'payout_hold' }),
      await total({ from: 200 }),
    ]).toEqual([10, 8, 2, 0, 3]);
  });
});
