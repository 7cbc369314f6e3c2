/**
 * The read-only account endpoints (interface "Account (read-only)"): the caller's account, the
 * merchant's accounts, balances, deposits, withdrawals and the ledger. Every read is scoped to
 * the caller: the account (and, for the account list, the merchant) of its key.
 */
import {
  AccountListQuery,
  type AccountRecord,
  BalanceListQuery,
  type Currency,
  DepositListQuery,
  decodeWith,
  type FundingRecord,
  type ListQuery,
  WithdrawalListQuery,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { orRefuse, readUnit } from '../command/command.handler.js';
import type { Caller, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { balancesAt } from '../statements/statement-records.store.js';
import { accountView, balanceView, fundingView, zeroBalance } from './access.views.js';
import { requirePermission } from './access-control.policy.js';
import { accountLedger } from './account-ledger.use-case.js';
import { merchantRead, type ReaderAccess, readerAccount } from './caller-account.store.js';
import { createdWithin, definedOf } from './list-filters.store.js';
import { pageView } from './list-pages.views.js';

/** The caller's account (`GET /payment/account`): its own read endpoints answer a frozen one too. */
const currentAccount = async (deps: EngineDeps, caller: Caller) => {
  const account = await readerAccount(deps.store, caller, {
    permissions: ['payment.account.read'],
    frozen: 'allowed',
  });
  return E.map((checked: AccountRecord) => ({ account: accountView(checked) }))(account);
};

const listAccounts = (deps: EngineDeps, caller: Caller, raw: Query) =>
  readUnit(deps.store, async (tx) => {
    requirePermission(caller, 'payment.account.read');
    const query = orRefuse(decodeWith(AccountListQuery)(raw));
    const page = await tx.accounts.list({
      scope: caller.merchant_id,
      where: definedOf(query, ['status']),
      limit: query.limit,
      offset: query.offset,
    });
    return pageView(page, accountView);
  });

/** The wallet's reads: `payment.wallet.read`, on the account even when frozen. */
const walletReader: ReaderAccess = { permissions: ['payment.wallet.read'], frozen: 'allowed' };

/**
 * One item per currency of the account, and per currency it has postings in (a pay-in in a
 * token the account does not list), in currency code order; a currency never moved shows zeros.
 * With `at`, each as it stood at the end of that second (ADR 0045).
 */
const balances = (deps: EngineDeps, caller: Caller, raw: Query) =>
  merchantRead(deps.store, caller, walletReader, async (tx, account) => {
    const query = orRefuse(decodeWith(BalanceListQuery)(raw));
    const posted =
      query.at === undefined
        ? await tx.ledger.balances(account.account_id)
        : await balancesAt(tx, account.account_id, query.at);
    const codes = [...new Set<Currency>([...account.currencies, ...posted.map((b) => b.currency)])]
      .filter((currency) => query.currency === undefined || currency === query.currency)
      .sort();
    return {
      items: codes.map((currency) =>
        balanceView(posted.find((b) => b.currency === currency) ?? zeroBalance(currency)),
      ),
    };
  });

const fundingListQuery = (
  caller: Caller,
  query: DepositListQuery | WithdrawalListQuery,
): ListQuery<FundingRecord> => ({
  scope: caller.account_id,
  where: definedOf(query, ['currency', 'network', 'status']),
  ...createdWithin(query),
  limit: query.limit,
  offset: query.offset,
});

/** Deposits or withdrawals: the same records, the same filters, in their own collections. */
const fundingList =
  (collection: 'deposits' | 'withdrawals', codec: typeof DepositListQuery) =>
  (deps: EngineDeps, caller: Caller, raw: Query) =>
    readUnit(deps.store, async (tx) => {
      requirePermission(caller, 'payment.wallet.read');
      const query = orRefuse(decodeWith(codec)(raw));
      const page = await tx[collection].list(fundingListQuery(caller, query));
      return pageView(page, fundingView);
    });

const deposits = fundingList('deposits', DepositListQuery);
const withdrawals = fundingList('withdrawals', WithdrawalListQuery);

export const accountReadUseCases = (deps: EngineDeps) => ({
  current: (caller: Caller) => currentAccount(deps, caller),
  list: (caller: Caller, raw: Query) => listAccounts(deps, caller, raw),
  balances: (caller: Caller, raw: Query) => balances(deps, caller, raw),
  deposits: (caller: Caller, raw: Query) => deposits(deps, caller, raw),
  withdrawals: (caller: Caller, raw: Query) => withdrawals(deps, caller, raw),
  ledger: (caller: Caller, raw: Query) => accountLedger(deps, caller, raw),
});
