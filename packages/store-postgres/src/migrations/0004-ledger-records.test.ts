/**
 * 0004 on a schema holding a ledger written by the earlier release (journals, postings and
 * balances, straight into its tables): every posting to a merchant bucket becomes a record with
 * its signed amount and `balance_after` in the ledger's order, journals posted after the upgrade
 * number after them, and a journal dated before them still gives every record its true balance.
 */
import { PGlite } from '@electric-sql/pglite';
import {
  depositJournal,
  type Journal,
  merchantBucketOf,
  money,
  payInJournal,
  payoutHoldJournal,
  payoutReleaseJournal,
  payoutSettleJournals,
} from '@payrail/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExecutor } from '../pglite.executor.js';
import { createPGliteStore } from '../pglite-store.js';
import type { SqlExecutor } from '../sql-executor.js';
import { init } from './0001-init.js';
import { ledgerPostingOrder } from './0002-ledger-posting-order.js';
import { deliveryBusinessObject } from './0003-delivery-business-object.js';
import { migrate, migrations } from './migrate.js';

let pglite: PGlite;
let executor: SqlExecutor;
const schema = 'records_upgrade';

beforeAll(async () => {
  pglite = await PGlite.create();
  executor = pgliteExecutor(pglite, { ownsDatabase: true });
});
afterAll(() => executor.close());

/** A journal as the earlier release wrote it: the journal, its postings, its buckets' balances. */
const writeEarlier = async (journal: Journal, at: number): Promise<void> => {
  await executor.query(
    `INSERT INTO ${schema}.ledger_journals
      (journal_id, record_type, account_id, currency, amount, business_type, business_id, created_at)
      VALUES ($1, $2, $3, $4, $5::numeric, $6, $7, $8)`,
    [
      journal.journalId,
      journal.recordType,
      journal.accountId,
      journal.currency,
      journal.amount,
      journal.businessType,
      journal.businessId,
      at,
    ],
  );
  for (const [position, p] of journal.postings.entries()) {
    await executor.query(
      `INSERT INTO ${schema}.ledger_postings (journal_id, position, ledger_account, currency, amount)
        VALUES ($1, $2, $3, $4, $5::numeric)`,
      [journal.journalId, position, p.ledgerAccount, p.currency, p.amount],
    );
    if (merchantBucketOf(p.ledgerAccount) === undefined) continue;
    await executor.query(
      `INSERT INTO ${schema}.ledger_balances (ledger_account, currency, amount)
        VALUES ($1, $2, 0) ON CONFLICT DO NOTHING`,
      [p.ledgerAccount, p.currency],
    );
    await executor.query(
      `UPDATE ${schema}.ledger_balances SET amount = amount + $3::numeric
        WHERE ledger_account = $1 AND currency = $2`,
      [p.ledgerAccount, p.currency, p.amount],
    );
  }
};

const head = (businessId: string, accountId = 'acc_1') => ({ accountId, businessId });
const usd = (amount: string) => money('USD', amount);

describe('0004-ledger-records', () => {
  it('writes a record with balance_after for every merchant posting of the earlier ledger', async () => {
    expect(
      await migrate(executor, schema, [init, ledgerPostingOrder, deliveryBusinessObject]),
    ).toHaveLength(3);
    await writeEarlier(depositJournal(head('dep_1'), usd('100.00')), 100);
    await writeEarlier(payoutHoldJournal(head('po_1'), usd('25.75')), 101);
    for (const journal of payoutSettleJournals(head('po_1'), usd('25.00'), usd('0.75'))) {
      await writeEarlier(journal, 102);
    }
    await writeEarlier(payoutHoldJournal(head('po_2'), usd('10.00')), 102);
    await writeEarlier(payoutReleaseJournal(head('po_2'), usd('10.00')), 103);
    // Posted last, dated first.
    await writeEarlier(depositJournal(head('dep_0'), usd('0.25')), 99);
    await writeEarlier(payInJournal(head('pay_1'), money('USDT', '7')), 101);
    await writeEarlier(depositJournal(head('dep_9', 'acc_2'), usd('3.00')), 100);

    // Opening a store applies what the schema lacks, the way a new release starts.
    const store = await createPGliteStore({ pglite, schema });
    try {
      const applied = await executor.query<{ id: string }>(
        `SELECT id FROM ${schema}.payrail_migrations ORDER BY id`,
      );
      expect(applied.rows.map((row) => row.id)).toEqual(migrations.map((m) => m.id));
      const read = (accountId: string) =>
        store.transaction(async (tx) =>
          (await tx.ledger.entries({ accountId, sort: 'asc', limit: 50, offset: 0 })).items.map(
            (r) => [r.journal_id, r.bucket, r.currency, r.amount, r.balance_after, r.created_at],
          ),
        );
      expect(await read('acc_1')).toEqual([
        ['dep_0:deposit', 'available', 'USD', '0.25', '0.25', 99],
        ['dep_1:deposit', 'available', 'USD', '100.00', '100.25', 100],
        ['po_1:payout_hold', 'available', 'USD', '-25.75', '74.50', 101],
        ['po_1:payout_hold', 'held', 'USD', '25.75', '25.75', 101],
        ['pay_1:pay_in', 'available', 'USDT', '7.000000', '7.000000', 101],
        ['po_1:payout', 'held', 'USD', '-25.00', '0.75', 102],
        ['po_1:payout_fee', 'held', 'USD', '-0.75', '0.00', 102],
        ['po_2:payout_hold', 'available', 'USD', '-10.00', '64.50', 102],
        ['po_2:payout_hold', 'held', 'USD', '10.00', '10.00', 102],
        ['po_2:payout_release', 'held', 'USD', '-10.00', '0.00', 103],
        ['po_2:payout_release', 'available', 'USD', '10.00', '74.50', 103],
      ]);
      expect(await read('acc_2')).toEqual([
        ['dep_9:deposit', 'available', 'USD', '3.00', '3.00', 100],
      ]);

      // After the upgrade: a journal of a second already in the ledger lists after its records;
      // one dated before them all raises every later balance_after of its bucket.
      await store.transaction(async (tx) => {
        await tx.ledger.post(payoutHoldJournal(head('po_3'), usd('4.50')), 102);
        await tx.ledger.post(depositJournal(head('dep_new'), usd('1.00')), 98);
      });
      expect(await read('acc_1')).toEqual([
        ['dep_new:deposit', 'available', 'USD', '1.00', '1.00', 98],
        ['dep_0:deposit', 'available', 'USD', '0.25', '1.25', 99],
        ['dep_1:deposit', 'available', 'USD', '100.00', '101.25', 100],
        ['po_1:payout_hold', 'available', 'USD', '-25.75', '75.50', 101],
        ['po_1:payout_hold', 'held', 'USD', '25.75', '25.75', 101],
        ['pay_1:pay_in', 'available', 'USDT', '7.000000', '7.000000', 101],
        ['po_1:payout', 'held', 'USD', '-25.00', '0.75', 102],
        ['po_1:payout_fee', 'held', 'USD', '-0.75', '0.00', 102],
        ['po_2:payout_hold', 'available', 'USD', '-10.00', '65.50', 102],
        ['po_2:payout_hold', 'held', 'USD', '10.00', '10.00', 102],
        ['po_3:payout_hold', 'available', 'USD', '-4.50', '61.00', 102],
        ['po_3:payout_hold', 'held', 'USD', '4.50', '14.50', 102],
        ['po_2:payout_release', 'held', 'USD', '-10.00', '4.50', 103],
        ['po_2:payout_release', 'available', 'USD', '10.00', '71.00', 103],
      ]);
      expect(await store.transaction((tx) => tx.ledger.balances('acc_1'))).toEqual([
        { currency: 'USD', available: '71.00', held: '4.50' },
        { currency: 'USDT', available: '7.000000', held: '0.000000' },
      ]);
    } finally {
      await store.close();
    }
  });
});
