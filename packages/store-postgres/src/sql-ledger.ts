/**
 * The ledger on four tables: journals and postings (history, NUMERIC amounts), the running
 * balance of every merchant bucket (NUMERIC, with a CHECK that it stays at zero or above), and
 * the merchant's ledger records (one per posting to a merchant bucket, with `balance_after`). A
 * journal's buckets are updated by guarded statements in the same transaction; a bucket that
 * would go below zero refuses the whole journal, whose writes are undone to its savepoint.
 * Records are written while the journal holds its buckets' rows locked, so they number
 * themselves (`seq`, an identity column) in the order each bucket took its journals: the
 * posting order `entries` breaks ties of `created_at` by.
 */
import {
  type Balance,
  type Currency,
  Decimal,
  formatAmount,
  isBalanced,
  isCurrency,
  type Journal,
  type LedgerEntry,
  type LedgerPort,
  type LedgerQuery,
  type MerchantPosting,
  merchantBucketOf,
  merchantLedgerAccount,
  merchantPostingsOf,
  type Page,
  StoreFailure,
} from '@payrail/core';
import { constraintOf } from './error-code.js';
import { type SqlSession, type SqlValue, sqlStateOf } from './sql-executor.js';
import type { UnitContext } from './sql-unit-of-work.js';

const merchantPrefix = 'merchant:';

const bucketKey = (ledgerAccount: string, currency: string): string =>
  JSON.stringify([ledgerAccount, currency]);

/** An amount at its currency's scale, as the memory store and the core's `balancesOf` give it. */
const atScale = (currency: string, amount: string | null): string => {
  const value = amount ?? '0';
  return isCurrency(currency) ? formatAmount({ currency, value: new Decimal(value) }) : value;
};

/** The ledger's tables in the unit of work's schema, and the connection that writes them. */
interface LedgerTables {
  readonly session: SqlSession;
  readonly journals: string;
  readonly postings: string;
  readonly balances: string;
  readonly records: string;
  readonly counts: string;
}

const ledgerTablesOf = (context: UnitContext): LedgerTables => ({
  session: context.session,
  journals: context.table('ledger_journals'),
  postings: context.table('ledger_postings'),
  balances: context.table('ledger_balances'),
  records: context.table('ledger_entries'),
  counts: context.table('ledger_entry_counts'),
});

const insertJournal = async (
  { session, journals }: LedgerTables,
  journal: Journal,
  at: number,
): Promise<void> => {
  try {
    await session.query(
      `INSERT INTO ${journals}
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
  } catch (error) {
    if (sqlStateOf(error) === '23505' && constraintOf(error) === 'ledger_journals_pkey') {
      throw new StoreFailure('duplicate_journal', 'ledger');
    }
    throw error;
  }
};

const insertPostings = async (
  { session, postings }: LedgerTables,
  journal: Journal,
): Promise<void> => {
  if (journal.postings.length === 0) return;
  const params: SqlValue[] = [journal.journalId, journal.accountId];
  const rows = journal.postings.map((posting, position) => {
    params.push(position, posting.ledgerAccount, posting.currency, posting.amount);
    const n = params.length;
    return `($1, $2, $${n - 3}, $${n - 2}, $${n - 1}, $${n}::numeric)`;
  });
  await session.query(
    `INSERT INTO ${postings} (journal_id, account_id, position, ledger_account, currency, amount)
      VALUES ${rows.join(', ')}`,
    params,
  );
};

interface BucketDelta {
  readonly account: string;
  readonly currency: string;
  readonly amount: Decimal;
}

/** What the journal moves in each merchant bucket, by `bucketKey`, in key order. */
const bucketDeltasOf = (journal: Journal): [string, BucketDelta][] => {
  const deltas = new Map<string, BucketDelta>();
  for (const p of journal.postings) {
    if (!p.ledgerAccount.startsWith(merchantPrefix)) continue;
    const key = bucketKey(p.ledgerAccount, p.currency);
    const current = deltas.get(key);
    deltas.set(key, {
      account: p.ledgerAccount,
      currency: p.currency,
      amount: (current?.amount ?? new Decimal(0)).plus(p.amount),
    });
  }
  return [...deltas.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
};

/**
 * Adds the journal's postings to its merchant buckets, one bucket at a time in key order, so
 * two journals touching the same buckets lock them in the same order and never deadlock. A
 * credit inserts the bucket on first use; a debit only updates an existing bucket, and only
 * while it stays at zero or above, so a refused debit returns no row. Answers each bucket's
 * balance after the journal, by `bucketKey`.
 */
const applyToBalances = async (
  { session, balances }: LedgerTables,
  journal: Journal,
): Promise<ReadonlyMap<string, Decimal>> => {
  const after = new Map<string, Decimal>();
  for (const [key, { account, currency, amount }] of bucketDeltasOf(journal)) {
    // The bucket's row is keyed by its account too (migration 0010).
    const owner = merchantBucketOf(account)?.accountId ?? journal.accountId;
    const params = [account, currency, amount.toFixed(), owner];
    const { rows } = amount.isNegative()
      ? await session.query<{ amount: string }>(
          `UPDATE ${balances} SET amount = amount + $3::numeric
            WHERE ledger_account = $1 AND currency = $2 AND account_id = $4
              AND amount + $3::numeric >= 0
            RETURNING amount`,
          params,
        )
      : await session.query<{ amount: string }>(
          `INSERT INTO ${balances} AS b (ledger_account, currency, amount, account_id)
             VALUES ($1, $2, $3::numeric, $4)
           ON CONFLICT (ledger_account, currency, account_id)
             DO UPDATE SET amount = b.amount + excluded.amount
           RETURNING amount`,
          params,
        );
    const row = rows[0];
    if (row === undefined) throw new StoreFailure('insufficient_balance', 'ledger');
    after.set(key, new Decimal(row.amount));
  }
  return after;
};

const postingKey = (posting: MerchantPosting): string =>
  bucketKey(merchantLedgerAccount(posting.accountId, posting.bucket), posting.currency);

/**
 * Adds what the journal moves in each bucket to the `balance_after` of the bucket's records
 * ordered after it, and answers each bucket's balance after the journal less what those later
 * records moved, by `bucketKey`.
 */
const shiftLaterRecords = async (
  { session, records }: LedgerTables,
  postings: readonly MerchantPosting[],
  at: number,
  bucketsAfter: ReadonlyMap<string, Decimal>,
): Promise<Map<string, Decimal>> => {
  const moved = new Map<string, { posting: MerchantPosting; delta: Decimal }>();
  for (const posting of postings) {
    const key = postingKey(posting);
    const delta = (moved.get(key)?.delta ?? new Decimal(0)).plus(posting.amount);
    moved.set(key, { posting, delta });
  }
  const remaining = new Map<string, Decimal>();
  for (const [key, { posting, delta }] of moved) {
    const { rows } = await session.query<{ amount: string }>(
      `UPDATE ${records} SET balance_after = balance_after + $5::numeric
        WHERE account_id = $1 AND currency = $2 AND created_at > $3 AND bucket = $4
        RETURNING amount`,
      [posting.accountId, posting.currency, at, posting.bucket, delta.toFixed()],
    );
    const later = rows.reduce((sum, row) => sum.plus(row.amount), new Decimal(0));
    remaining.set(key, (bucketsAfter.get(key) ?? new Decimal(0)).minus(later));
  }
  return remaining;
};

/** Each posting's `balance_after`, by position, from what remains in its bucket at the end. */
const balancesAfterOf = (
  postings: readonly MerchantPosting[],
  remaining: Map<string, Decimal>,
): ReadonlyMap<number, Decimal> => {
  // Walking the postings backwards, each record's balance is what remains before the later
  // postings of its bucket in this journal are taken off.
  const balanceAfter = new Map<number, Decimal>();
  for (const posting of [...postings].reverse()) {
    const key = postingKey(posting);
    const balance = remaining.get(key) ?? new Decimal(0);
    balanceAfter.set(posting.position, balance);
    remaining.set(key, balance.minus(posting.amount));
  }
  return balanceAfter;
};

/** Inserts the journal's records and adds them to their counts, in one statement. */
const insertRecords = async (
  { session, records, counts }: LedgerTables,
  journal: Journal,
  at: number,
  postings: readonly MerchantPosting[],
  balanceAfter: ReadonlyMap<number, Decimal>,
): Promise<void> => {
  const params: SqlValue[] = [
    journal.journalId,
    journal.recordType,
    journal.businessType,
    journal.businessId,
    at,
  ];
  const rows = postings.map((posting) => {
    params.push(
      posting.position,
      posting.accountId,
      posting.bucket,
      posting.currency,
      posting.amount,
      (balanceAfter.get(posting.position) ?? new Decimal(0)).toFixed(),
    );
    const n = params.length;
    return `($1, $${n - 5}, $${n - 4}, $${n - 3}, $${n - 2}, $${n - 1}::numeric, $${n}::numeric, $2, $3, $4, $5)`;
  });
  // The records and their counts in one statement (0005-ledger-entry-counts).
  await session.query(
    `WITH written AS (
       INSERT INTO ${records} (journal_id, position, account_id, bucket, currency, amount,
           balance_after, record_type, business_type, business_id, created_at)
         VALUES ${rows.join(', ')}
       RETURNING account_id, currency, record_type)
     INSERT INTO ${counts} AS c (account_id, currency, record_type, entries)
     SELECT account_id, currency, record_type, count(*) FROM written
      GROUP BY account_id, currency, record_type
     ON CONFLICT (account_id, currency, record_type)
       DO UPDATE SET entries = c.entries + excluded.entries`,
    params,
  );
};

/**
 * Writes the journal's ledger records; runs while the journal holds its buckets' rows, so no
 * other unit of work writes records of these buckets until this one ends. A record's
 * `balance_after` is its bucket's balance after the journal, less what the journal's later
 * postings to the bucket moved, less what the bucket's records ordered after this journal
 * moved. Such records exist only when the journal is posted with a `created_at` earlier than
 * records already written (same-second records are numbered later, being written under the
 * lock): their `balance_after` grows by what this journal moved, so the running sum stays
 * true in the ledger's order.
 */
const writeRecords = async (
  tables: LedgerTables,
  journal: Journal,
  at: number,
  bucketsAfter: ReadonlyMap<string, Decimal>,
): Promise<void> => {
  const postings = merchantPostingsOf(journal);
  if (postings.length === 0) return;
  const remaining = await shiftLaterRecords(tables, postings, at, bucketsAfter);
  await insertRecords(tables, journal, at, postings, balancesAfterOf(postings, remaining));
};

const post = async (
  context: UnitContext,
  tables: LedgerTables,
  journal: Journal,
  at: number,
): Promise<void> => {
  if (!isBalanced(journal)) throw new StoreFailure('unbalanced_journal', 'ledger');
  await context.savepoint(async () => {
    await insertJournal(tables, journal, at);
    await insertPostings(tables, journal);
    await writeRecords(tables, journal, at, await applyToBalances(tables, journal));
  });
};

const balancesOf = async (
  { session, balances }: LedgerTables,
  accountId: string,
): Promise<readonly Balance[]> => {
  const available = merchantLedgerAccount(accountId, 'available');
  const held = merchantLedgerAccount(accountId, 'held');
  const { rows } = await session.query<{
    currency: Currency;
    available: string | null;
    held: string | null;
  }>(
    `SELECT currency,
            max(amount) FILTER (WHERE ledger_account = $1) AS available,
            max(amount) FILTER (WHERE ledger_account = $2) AS held
       FROM ${balances}
      WHERE account_id = $3 AND ledger_account IN ($1, $2)
      GROUP BY currency
      ORDER BY currency`,
    [available, held, accountId],
  );
  return rows.map((row) => ({
    currency: row.currency,
    available: atScale(row.currency, row.available),
    held: atScale(row.currency, row.held),
  }));
};

/** The query's conditions on the records (and on their counts), with their parameters. */
const entryConditionsOf = (query: LedgerQuery): { where: string; params: SqlValue[] } => {
  const params: SqlValue[] = [query.accountId];
  const conditions = ['account_id = $1'];
  const add = (condition: string, value: SqlValue): void => {
    params.push(value);
    conditions.push(`${condition} $${params.length}`);
  };
  if (query.currency !== undefined) add('currency =', query.currency);
  if (query.recordType !== undefined) add('record_type =', query.recordType);
  if (query.bucket !== undefined) add('bucket =', query.bucket);
  if (query.createdFrom !== undefined) add('created_at >=', query.createdFrom);
  if (query.createdTo !== undefined) add('created_at <=', query.createdTo);
  return { where: conditions.join(' AND '), params };
};

const entriesOf = async (
  { session, records, counts }: LedgerTables,
  query: LedgerQuery,
): Promise<Page<LedgerEntry>> => {
  const { where, params } = entryConditionsOf(query);
  const direction = query.sort === 'asc' ? 'ASC' : 'DESC';
  const n = params.length;
  const page = await session.query<LedgerEntry>(
    `SELECT journal_id, record_type, account_id, bucket, currency, amount, balance_after,
            business_type, business_id, created_at
       FROM ${records} WHERE ${where}
      ORDER BY created_at ${direction}, seq ${direction}
      LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...params, Math.max(0, query.limit), Math.max(0, query.offset)],
  );
  // Without a time range the kept counts answer; a range (or a bucket, which the counts do not
  // keep) is counted over its records.
  const ranged =
    query.createdFrom !== undefined || query.createdTo !== undefined || query.bucket !== undefined;
  const count = await session.query<{ total: number }>(
    ranged
      ? `SELECT count(*) AS total FROM ${records} WHERE ${where}`
      : `SELECT COALESCE(sum(entries), 0)::bigint AS total FROM ${counts} WHERE ${where}`,
    params,
  );
  return {
    items: page.rows.map((record) => ({
      ...record,
      amount: atScale(record.currency, record.amount),
      balance_after: atScale(record.currency, record.balance_after),
    })),
    total: count.rows[0]?.total ?? 0,
    limit: query.limit,
    offset: query.offset,
  };
};

export const sqlLedger = (context: UnitContext): LedgerPort => {
  const tables = ledgerTablesOf(context);
  return {
    post: (journal: Journal, at: number) => context.run(() => post(context, tables, journal, at)),
    balances: (accountId: string) => context.run(() => balancesOf(tables, accountId)),
    entries: (query: LedgerQuery) => context.run(() => entriesOf(tables, query)),
  };
};
