/**
 * The ledger in memory: journals by id, each numbered in posting order, and a running balance
 * per (ledger account, currency) kept in the same unit of work as the postings, so a balance
 * read never sums history. Ledger records and their `balance_after` are derived when read, by one
 * pass over the account's journals in the ledger's order: a list already scans every journal,
 * and a derived running balance is right by construction, whatever order journals were posted in.
 */
import {
  type Balance,
  type Currency,
  currencies,
  Decimal,
  formatAmount,
  isBalanced,
  type Journal,
  keepsBalancesNonNegative,
  type LedgerEntry,
  type LedgerPort,
  type LedgerQuery,
  merchantLedgerAccount,
  merchantPostingsOf,
  type Page,
  StoreFailure,
} from '@payrail/core';
import { balanceKey, type MemoryState, type StoredJournal } from './memory-state.js';
import type { UndoLog } from './undo-log.js';

/** By `created_at`, then posting order. */
const ledgerOrder = (a: StoredJournal, b: StoredJournal): number =>
  a.at - b.at || a.sequence - b.sequence;

/**
 * Every record of the account, oldest first, each with its bucket's running balance: a journal's
 * merchant postings in posting order, journals by `created_at` then posting order.
 */
const recordsOf = (journals: Iterable<StoredJournal>, accountId: string): LedgerEntry[] => {
  const running = new Map<string, Decimal>();
  const records: LedgerEntry[] = [];
  for (const { journal, at } of [...journals].sort(ledgerOrder)) {
    for (const p of merchantPostingsOf(journal)) {
      if (p.accountId !== accountId) continue;
      const key = balanceKey(p.bucket, p.currency);
      const after = (running.get(key) ?? new Decimal(0)).plus(p.amount);
      running.set(key, after);
      records.push({
        journal_id: journal.journalId,
        record_type: journal.recordType,
        account_id: accountId,
        bucket: p.bucket,
        currency: p.currency,
        amount: formatAmount({ currency: p.currency, value: new Decimal(p.amount) }),
        balance_after: formatAmount({ currency: p.currency, value: after }),
        business_type: journal.businessType,
        business_id: journal.businessId,
        created_at: at,
      });
    }
  }
  return records;
};

export const memoryLedger = (state: MemoryState, undo: UndoLog, guard: () => void): LedgerPort => {
  const current = (ledgerAccount: string, currency: Currency): Decimal =>
    state.balances.get(balanceKey(ledgerAccount, currency)) ?? new Decimal(0);

  return {
    async post(journal: Journal, at: number): Promise<void> {
      guard();
      if (!isBalanced(journal)) throw new StoreFailure('unbalanced_journal', 'ledger');
      if (state.journals.has(journal.journalId)) {
        throw new StoreFailure('duplicate_journal', 'ledger');
      }
      if (!keepsBalancesNonNegative(journal, current)) {
        throw new StoreFailure('insufficient_balance', 'ledger');
      }
      undo.set(state.journals, journal.journalId, {
        journal: structuredClone(journal),
        at,
        sequence: state.nextJournalSequence++,
      });
      for (const p of journal.postings) {
        const next = current(p.ledgerAccount, p.currency).plus(p.amount);
        undo.set(state.balances, balanceKey(p.ledgerAccount, p.currency), next);
      }
    },

    async balances(accountId: string): Promise<readonly Balance[]> {
      guard();
      const available = merchantLedgerAccount(accountId, 'available');
      const held = merchantLedgerAccount(accountId, 'held');
      const touched = (account: string, currency: Currency): boolean =>
        state.balances.has(balanceKey(account, currency));
      return [...currencies]
        .sort()
        .filter((currency) => touched(available, currency) || touched(held, currency))
        .map((currency) => ({
          currency,
          available: formatAmount({ currency, value: current(available, currency) }),
          held: formatAmount({ currency, value: current(held, currency) }),
        }));
    },

    async entries(query: LedgerQuery): Promise<Page<LedgerEntry>> {
      guard();
      const matching = recordsOf(state.journals.values(), query.accountId).filter(
        (record) =>
          (query.currency === undefined || record.currency === query.currency) &&
          (query.recordType === undefined || record.record_type === query.recordType) &&
          (query.bucket === undefined || record.bucket === query.bucket) &&
          (query.createdFrom === undefined || record.created_at >= query.createdFrom) &&
          (query.createdTo === undefined || record.created_at <= query.createdTo),
      );
      if (query.sort !== 'asc') matching.reverse();
      return {
        items: matching.slice(query.offset, query.offset + query.limit),
        total: matching.length,
        limit: query.limit,
        offset: query.offset,
      };
    },
  };
};
