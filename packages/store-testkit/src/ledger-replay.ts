/**
 * The reconciliation a merchant runs on the ledger, as assertions: read every record of an
 * account oldest first, page by page, replay the signed amounts per currency and bucket from
 * zero, and check each record's `balance_after` on the way and the store's balances (and the
 * oracle's sums of postings) at the end. Amounts are compared as decimal strings at the
 * currency's scale, never as numbers.
 */
import assert from 'node:assert/strict';
import {
  type Balance,
  balancesOf,
  type Currency,
  Decimal,
  formatAmount,
  isCurrency,
  type LedgerEntry,
} from '@payrail/core';
import type { StoreHarness } from './harness.js';

/** What names a record: its journal and its bucket. */
export const recordKey = (record: Pick<LedgerEntry, 'journal_id' | 'bucket'>): string =>
  `${record.journal_id} ${record.bucket}`;

/**
 * Every record of the account in ascending order, read with `limit`/`offset` pages (a small
 * page size, so paging is exercised) until `total` is reached.
 */
export const allRecords = async (
  h: StoreHarness,
  accountId: string,
  pageSize = 7,
): Promise<LedgerEntry[]> => {
  const records: LedgerEntry[] = [];
  for (;;) {
    const page = await h.store.transaction((tx) =>
      tx.ledger.entries({ accountId, sort: 'asc', limit: pageSize, offset: records.length }),
    );
    records.push(...page.items);
    if (page.items.length < pageSize) {
      assert.equal(records.length, page.total, 'the pages add up to total');
      return records;
    }
  }
};

const atScale = (currency: Currency, value: string | Decimal): string =>
  formatAmount({ currency, value: new Decimal(value) });

/**
 * Replays the account's whole ledger: each record's `balance_after` is the running sum of its
 * bucket's amounts, and the sums at the end are the store's balances and the oracle's.
 */
export const assertReplays = async (h: StoreHarness, accountId: string): Promise<void> => {
  const records = await allRecords(h, accountId);
  const running = new Map<Currency, { available: Decimal; held: Decimal }>();
  const seen = new Set<string>();
  for (const [i, record] of records.entries()) {
    const where = `record ${i} (${recordKey(record)})`;
    assert.ok(isCurrency(record.currency), where);
    assert.equal(record.account_id, accountId, where);
    assert.ok(!seen.has(recordKey(record)), `${where} appears once`);
    seen.add(recordKey(record));
    assert.equal(record.amount, atScale(record.currency, record.amount), `${where} at scale`);
    const sums = running.get(record.currency) ?? {
      available: new Decimal(0),
      held: new Decimal(0),
    };
    const after = sums[record.bucket].plus(record.amount);
    running.set(record.currency, { ...sums, [record.bucket]: after });
    assert.equal(record.balance_after, atScale(record.currency, after), `${where} balance_after`);
  }
  const replayed: Balance[] = [...running]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, sums]) => ({
      currency,
      available: atScale(currency, sums.available),
      held: atScale(currency, sums.held),
    }));
  const stored = await h.store.transaction((tx) => tx.ledger.balances(accountId));
  assert.deepEqual(replayed, stored, `replaying ${accountId}'s ledger gives its balances`);
  const summed = [...balancesOf(accountId, await h.oracle.postings())].sort((a, b) =>
    a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0,
  );
  assert.deepEqual(replayed, summed, `replaying ${accountId}'s ledger gives the oracle's sums`);
};
