/**
 * The ledger in memory: journals by id, each numbered in posting order, and a running balance
 * per (ledger account, currency) kept in the same unit of work as the postings, so a balance
 * read never sums history.
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
  type Page,
  StoreFailure,
} from '@payrail/core';
import { balanceKey, type MemoryState, type StoredJournal } from './memory-state.js';
import type { UndoLog } from './undo-log.js';

const entryOf = ({ journal, at }: StoredJournal): LedgerEntry => ({
  journal_id: journal.journalId,
  record_type: journal.recordType,
  account_id: journal.accountId,
  currency: journal.currency,
  amount: journal.amount,
  business_type: journal.businessType,
  business_id: journal.businessId,
  created_at: at,
});

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
      const direction = query.sort === 'asc' ? 1 : -1;
      const matching = [...state.journals.values()]
        .filter(
          ({ journal, at }) =>
            journal.accountId === query.accountId &&
            (query.currency === undefined || journal.currency === query.currency) &&
            (query.recordType === undefined || journal.recordType === query.recordType) &&
            (query.createdFrom === undefined || at >= query.createdFrom) &&
            (query.createdTo === undefined || at <= query.createdTo),
        )
        .sort((a, b) => direction * (a.at - b.at || a.sequence - b.sequence))
        .map(entryOf);
      return {
        items: matching.slice(query.offset, query.offset + query.limit),
        total: matching.length,
        limit: query.limit,
        offset: query.offset,
      };
    },
  };
};
