/**
 * What statements read of the ledger port (ADR 0045): a bucket's balance at a point in time (the
 * `balance_after` of its last record at or before it) and a period's records, oldest first, page
 * by page, so a period of any length is read in pages of `statementPageSize` records.
 */
import {
  type Balance,
  type BucketStatements,
  type Currency,
  Decimal,
  formatAmount,
  type LedgerEntry,
  type MerchantBucket,
  type StoreReads,
  statementTally,
} from '@payrail/core';
import type { Period } from './statement-period.policy.js';

/** Records per read of a period: a page of a month's records is all that is held at once. */
const statementPageSize = 500;

type Buckets = Readonly<Record<MerchantBucket, string>>;

/** The bucket's balance after its last record created at or before `at`; zero if none. */
const bucketBalanceAt = async (
  tx: StoreReads,
  where: { readonly accountId: string; readonly currency: Currency },
  bucket: MerchantBucket,
  at: number,
): Promise<string> => {
  const last = await tx.ledger.entries({
    ...where,
    bucket,
    createdTo: at,
    sort: 'desc',
    limit: 1,
    offset: 0,
  });
  return (
    last.items[0]?.balance_after ??
    formatAmount({ currency: where.currency, value: new Decimal(0) })
  );
};

/** Both buckets of one currency at the end of second `at` (a negative `at`: before any record). */
const bucketsAt = async (
  tx: StoreReads,
  accountId: string,
  currency: Currency,
  at: number,
): Promise<Buckets> => {
  const zero = formatAmount({ currency, value: new Decimal(0) });
  if (at < 0) return { available: zero, held: zero };
  const [available, held] = [
    await bucketBalanceAt(tx, { accountId, currency }, 'available', at),
    await bucketBalanceAt(tx, { accountId, currency }, 'held', at),
  ];
  return { available, held };
};

/** A statement's opening balances: each bucket as it stood before the period's first second. */
export const openingBalances = (
  tx: StoreReads,
  accountId: string,
  currency: Currency,
  period: Period,
): Promise<Buckets> => bucketsAt(tx, accountId, currency, period.start_at - 1);

/**
 * The balances as they stood at the end of second `at`, one per currency the account has records
 * in (as `LedgerPort.balances` lists them): what replaying every record created at or before
 * `at` adds up to.
 */
export const balancesAt = async (
  tx: StoreReads,
  accountId: string,
  at: number,
): Promise<readonly Balance[]> => {
  const balances: Balance[] = [];
  for (const { currency } of await tx.ledger.balances(accountId)) {
    balances.push({ currency, ...(await bucketsAt(tx, accountId, currency, at)) });
  }
  return balances;
};

/** Runs one read: in the caller's unit of work, or in a unit of work of its own per page. */
export type Reader = <T>(read: (tx: StoreReads) => Promise<T>) => Promise<T>;

export interface PeriodOf {
  readonly accountId: string;
  readonly currency: Currency;
  readonly period: Period;
}

/**
 * The records of one currency's period, oldest first (the ledger's order), in pages. Each page
 * starts where the last one ended: at the last record's second, past the records of that second
 * already read, so a page never re-reads the period from its start (no growing offset).
 */
export async function* periodRecords(
  read: Reader,
  { accountId, currency, period }: PeriodOf,
  pageSize = statementPageSize,
): AsyncGenerator<readonly LedgerEntry[]> {
  if (period.end_at <= period.start_at) return;
  let from = period.start_at;
  let readAtFrom = 0;
  for (;;) {
    const page = await read((tx) =>
      tx.ledger.entries({
        accountId,
        currency,
        createdFrom: from,
        createdTo: period.end_at - 1,
        sort: 'asc',
        limit: pageSize,
        offset: readAtFrom,
      }),
    );
    if (page.items.length > 0) yield page.items;
    const last = page.items.at(-1)?.created_at;
    if (page.items.length < pageSize || last === undefined) return;
    const atLast = page.items.filter((record) => record.created_at === last).length;
    readAtFrom = last === from ? readAtFrom + atLast : atLast;
    from = last;
  }
}

/**
 * A period's statement read in the caller's unit of work: the opening balances, then every
 * record of the period added, each also shown to `see` (oldest first, counted from 0). Answers
 * the buckets' statements and how many records the period holds.
 */
export const periodStatement = async (
  tx: StoreReads,
  of: PeriodOf,
  see: (record: LedgerEntry, n: number) => void = () => undefined,
): Promise<{ readonly statements: BucketStatements; readonly records: number }> => {
  const tally = statementTally(
    of.currency,
    await openingBalances(tx, of.accountId, of.currency, of.period),
  );
  let records = 0;
  for await (const page of periodRecords((read) => read(tx), of)) {
    for (const record of page) {
      tally.add(record);
      see(record, records);
      records += 1;
    }
  }
  return { statements: tally.statements(), records };
};
