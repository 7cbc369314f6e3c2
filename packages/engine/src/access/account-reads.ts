/**
 * The read-only account endpoints (interface "Account (read-only)"): the caller's account, the
 * merchant's accounts, balances, deposits, withdrawals and the ledger. Every read is scoped to
 * the caller: the account (and, for the account list, the merchant) of its key.
 */
import {
  AccountListQuery,
  BalanceListQuery,
  type Currency,
  DepositListQuery,
  decodeWith,
  type FundingRecord,
  type LedgerEntry,
  LedgerListQuery,
  type ListQuery,
  type StoreTransaction,
  WithdrawalListQuery,
} from '@payrail/core';
import { requirePermission } from '../access-control.js';
import type { Caller, Query } from '../engine-api.js';
import type { EngineDeps } from '../engine-deps.js';
import { callerAccount } from '../store-reads.js';
import { decide, type Outcome, orRefuse, unitOfWork } from '../unit-of-work.js';
import {
  accountView,
  balanceView,
  fundingView,
  ledgerEntryView,
  zeroBalance,
} from './access.views.js';
import type { KeyCheckCache } from './key-check-cache.js';

/** The account's own read endpoints answer a frozen account too. */
const loadAccount = (tx: StoreTransaction, caller: Caller) => callerAccount(tx, caller, 'allowed');

/**
 * The merchant's reference of each payout on a page of ledger records. Pay-ins are journalled
 * per payment (business_id is the payment_id, found through the order's payments) and deposits
 * have no merchant number, so only payouts have one.
 */
const payoutReferencesOf = async (
  tx: StoreTransaction,
  accountId: string,
  entries: readonly LedgerEntry[],
): Promise<ReadonlyMap<string, string>> => {
  const references = new Map<string, string>();
  for (const entry of entries) {
    if (entry.business_type !== 'payout' || references.has(entry.business_id)) continue;
    const payout = await tx.payouts.get(entry.business_id, accountId);
    if (payout) references.set(entry.business_id, payout.reference);
  }
  return references;
};

type FundingQuery = DepositListQuery | WithdrawalListQuery;

const fundingListQuery = (caller: Caller, query: FundingQuery): ListQuery<FundingRecord> => ({
  scope: caller.account_id,
  where: {
    ...(query.currency === undefined ? {} : { currency: query.currency }),
    ...(query.network === undefined ? {} : { network: query.network }),
    ...(query.status === undefined ? {} : { status: query.status }),
  },
  ...(query.start_at === undefined ? {} : { createdFrom: query.start_at }),
  ...(query.end_at === undefined ? {} : { createdTo: query.end_at }),
  limit: query.limit,
  offset: query.offset,
});

export const accountReadUseCases = (deps: EngineDeps, keyChecks: KeyCheckCache) => {
  const read = <T>(work: (tx: StoreTransaction) => Promise<T>): Promise<Outcome<T>> =>
    unitOfWork(deps.store, work);

  /**
   * The account as the key check read it when that read is still fresh (ADR 0029: at most
   * `keyCheckCacheMs` old, forgotten at once when this engine changes the account), else as the
   * store has it now.
   */
  const current = async (caller: Caller) => {
    const checked = keyChecks.recordsOf(caller.key_id)?.account;
    if (checked?.account_id === caller.account_id && checked.merchant_id === caller.merchant_id) {
      return decide(() => {
        requirePermission(caller, 'payment.account.read');
        return { account: accountView(checked) };
      });
    }
    return read(async (tx) => {
      requirePermission(caller, 'payment.account.read');
      return { account: accountView(await loadAccount(tx, caller)) };
    });
  };

  const list = (caller: Caller, raw: Query) =>
    read(async (tx) => {
      requirePermission(caller, 'payment.account.read');
      const query = orRefuse(decodeWith(AccountListQuery)(raw));
      const page = await tx.accounts.list({
        scope: caller.merchant_id,
        where: query.status === undefined ? {} : { status: query.status },
        limit: query.limit,
        offset: query.offset,
      });
      return { ...page, items: page.items.map(accountView) };
    });

  /**
   * One item per currency of the account, and per currency it has postings in (a pay-in in a
   * token the account does not list), in currency code order; a currency never moved shows zeros.
   */
  const balances = (caller: Caller, raw: Query) =>
    read(async (tx) => {
      requirePermission(caller, 'payment.wallet.read');
      const query = orRefuse(decodeWith(BalanceListQuery)(raw));
      const account = await loadAccount(tx, caller);
      const posted = await tx.ledger.balances(account.account_id);
      const codes = [
        ...new Set<Currency>([...account.currencies, ...posted.map((b) => b.currency)]),
      ]
        .filter((currency) => query.currency === undefined || currency === query.currency)
        .sort();
      return {
        items: codes.map((currency) =>
          balanceView(posted.find((b) => b.currency === currency) ?? zeroBalance(currency)),
        ),
      };
    });

  const fundingList =
    (collection: 'deposits' | 'withdrawals', codec: typeof DepositListQuery) =>
    (caller: Caller, raw: Query) =>
      read(async (tx) => {
        requirePermission(caller, 'payment.wallet.read');
        const query = orRefuse(decodeWith(codec)(raw));
        const page = await tx[collection].list(fundingListQuery(caller, query));
        return { ...page, items: page.items.map(fundingView) };
      });

  const ledger = (caller: Caller, raw: Query) =>
    read(async (tx) => {
      requirePermission(caller, 'payment.ledger.read');
      const query = orRefuse(decodeWith(LedgerListQuery)(raw));
      const page = await tx.ledger.entries({
        accountId: caller.account_id,
        ...(query.currency === undefined ? {} : { currency: query.currency }),
        ...(query.record_type === undefined ? {} : { recordType: query.record_type }),
        ...(query.start_at === undefined ? {} : { createdFrom: query.start_at }),
        ...(query.end_at === undefined ? {} : { createdTo: query.end_at }),
        sort: query.sort_order,
        limit: query.limit,
        offset: query.offset,
      });
      const references = await payoutReferencesOf(tx, caller.account_id, page.items);
      return {
        ...page,
        items: page.items.map((entry) =>
          ledgerEntryView(
            entry,
            entry.business_type === 'payout' ? (references.get(entry.business_id) ?? null) : null,
          ),
        ),
      };
    });

  return {
    current,
    list,
    balances,
    deposits: fundingList('deposits', DepositListQuery),
    withdrawals: fundingList('withdrawals', WithdrawalListQuery),
    ledger,
  };
};
