/**
 * The ledger on three tables: journals and postings (history, NUMERIC amounts) and the running
 * balance of every merchant bucket (NUMERIC, with a CHECK that it stays at zero or above). A
 * journal's buckets are updated by guarded statements in the same transaction; a bucket that
 * would go below zero refuses the whole journal, whose writes are undone to its savepoint.
 * Journals number themselves as they are inserted (`seq`, an identity column), which is the
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
  merchantLedgerAccount,
  type Page,
  StoreFailure,
} from '@payrail/core';
import { type SqlValue, sqlStateOf } from './sql-executor.js';
import type { UnitContext } from './sql-unit-of-work.js';

const merchantPrefix = 'merchant:';

/** An amount at its currency's scale, as the memory store and the core's `balancesOf` give it. */
const atScale = (currency: string, amount: string | null): string => {
  const value = amount ?? '0';
  return isCurrency(currency) ? formatAmount({ currency, value: new Decimal(value) }) : value;
};

export const sqlLedger = (context: UnitContext): LedgerPort => {
  const { session } = context;
  const journals = context.table('ledger_journals');
  const postings = context.table('ledger_postings');
  const balances = context.table('ledger_balances');

  const insertJournal = async (journal: Journal, at: number): Promise<void> => {
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
      if (
        sqlStateOf(error) === '23505' &&
        (error as { constraint?: unknown }).constraint === 'ledger_journals_pkey'
      ) {
        throw new StoreFailure('duplicate_journal', 'ledger');
      }
      throw error;
    }
  };

  const insertPostings = async (journal: Journal): Promise<void> => {
    if (journal.postings.length === 0) return;
    const params: SqlValue[] = [journal.journalId];
    const rows = journal.postings.map((posting, position) => {
      params.push(position, posting.ledgerAccount, posting.currency, posting.amount);
      const n = params.length;
      return `($1, $${n - 3}, $${n - 2}, $${n - 1}, $${n}::numeric)`;
    });
    await session.query(
      `INSERT INTO ${postings} (journal_id, position, ledger_account, currency, amount)
        VALUES ${rows.join(', ')}`,
      params,
    );
  };

  /**
   * Adds the journal's postings to its merchant buckets, one bucket at a time in key order, so
   * two journals touching the same buckets lock them in the same order and never deadlock. A
   * credit inserts the bucket on first use; a debit only updates an existing bucket, and only
   * while it stays at zero or above, so a refused debit returns no row.
   */
  const applyToBalances = async (journal: Journal): Promise<void> => {
    const deltas = new Map<string, { account: string; currency: string; amount: Decimal }>();
    for (const p of journal.postings) {
      if (!p.ledgerAccount.startsWith(merchantPrefix)) continue;
      const key = JSON.stringify([p.ledgerAccount, p.currency]);
      const current = deltas.get(key);
      deltas.set(key, {
        account: p.ledgerAccount,
        currency: p.currency,
        amount: (current?.amount ?? new Decimal(0)).plus(p.amount),
      });
    }
    const ordered = [...deltas.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [, { account, currency, amount }] of ordered) {
      const params = [account, currency, amount.toFixed()];
      const { rows } = amount.isNegative()
        ? await session.query(
            `UPDATE ${balances} SET amount = amount + $3::numeric
              WHERE ledger_account = $1 AND currency = $2 AND amount + $3::numeric >= 0
              RETURNING 1 AS applied`,
            params,
          )
        : await session.query(
            `INSERT INTO ${balances} AS b (ledger_account, currency, amount)
               VALUES ($1, $2, $3::numeric)
             ON CONFLICT (ledger_account, currency) DO UPDATE SET amount = b.amount + excluded.amount
             RETURNING 1 AS applied`,
            params,
          );
      if (rows.length === 0) throw new StoreFailure('insufficient_balance', 'ledger');
    }
  };

  return {
    post: (journal: Journal, at: number) =>
      context.run(async () => {
        if (!isBalanced(journal)) throw new StoreFailure('unbalanced_journal', 'ledger');
        await context.savepoint(async () => {
          await insertJournal(journal, at);
          await insertPostings(journal);
          await applyToBalances(journal);
        });
      }),

    balances: (accountId: string) =>
      context.run(async (): Promise<readonly Balance[]> => {
        const available = merchantLedgerAccount(accountId, 'available');
        const held = merchantLedgerAccount(accountId, 'held');
        const { rows } = await session.query<{
          currency: string;
          available: string | null;
          held: string | null;
        }>(
          `SELECT currency,
                  max(amount) FILTER (WHERE ledger_account = $1) AS available,
                  max(amount) FILTER (WHERE ledger_account = $2) AS held
             FROM ${balances}
            WHERE ledger_account IN ($1, $2)
            GROUP BY currency
            ORDER BY currency`,
          [available, held],
        );
        return rows.map((row) => ({
          currency: row.currency as Currency,
          available: atScale(row.currency, row.available),
          held: atScale(row.currency, row.held),
        }));
      }),

    entries: (query: LedgerQuery) =>
      context.run(async (): Promise<Page<LedgerEntry>> => {
        const params: SqlValue[] = [query.accountId];
        const conditions = ['account_id = $1'];
        const add = (condition: string, value: SqlValue): void => {
          params.push(value);
          conditions.push(`${condition} $${params.length}`);
        };
        if (query.currency !== undefined) add('currency =', query.currency);
        if (query.recordType !== undefined) add('record_type =', query.recordType);
        if (query.createdFrom !== undefined) add('created_at >=', query.createdFrom);
        if (query.createdTo !== undefined) add('created_at <=', query.createdTo);
        const where = conditions.join(' AND ');
        const direction = query.sort === 'asc' ? 'ASC' : 'DESC';
        const n = params.length;
        const page = await session.query<LedgerEntry>(
          `SELECT journal_id, record_type, account_id, currency, amount, business_type,
                  business_id, created_at
             FROM ${journals} WHERE ${where}
            ORDER BY created_at ${direction}, seq ${direction}
            LIMIT $${n + 1} OFFSET $${n + 2}`,
          [...params, Math.max(0, query.limit), Math.max(0, query.offset)],
        );
        const count = await session.query<{ total: number }>(
          `SELECT count(*) AS total FROM ${journals} WHERE ${where}`,
          params,
        );
        return {
          items: page.rows,
          total: count.rows[0]?.total ?? 0,
          limit: query.limit,
          offset: query.offset,
        };
      }),
  };
};
