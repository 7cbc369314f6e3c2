/** `admin.credit`: money for a sandbox account to pay out, as if deposited (docs/spec/decisions.md §8). */
import {
  type AccountRecord,
  decodeAccountCredit,
  depositJournal,
  type FundingRecord,
  formatAmount,
  type Money,
  money,
  payrailError,
  type StoreTransaction,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { clockedUnitOfWork, orRefuse, refuse } from '../command/command.handler.js';
import type { EngineDeps } from '../engine.deps.js';
import { balanceView, fundingView, zeroBalance } from './access.views.js';
import { accountInPath } from './admin-records.store.js';

/** What a sandbox credit is recorded as having arrived through (a deposit's `network`). */
const sandboxCreditNetwork = 'SANDBOX';

/** A completed deposit of `amount` to `account`, and its `deposit` journal. */
const depositCredit = async (
  deps: EngineDeps,
  tx: StoreTransaction,
  {
    account,
    amount,
    now,
  }: { readonly account: AccountRecord; readonly amount: Money; readonly now: number },
): Promise<FundingRecord> => {
  const deposit = await tx.deposits.insert({
    record_id: deps.ids.next('dep'),
    account_id: account.account_id,
    currency: amount.currency,
    network: sandboxCreditNetwork,
    amount: formatAmount(amount),
    status: 'completed',
    tx_hash: null,
    created_at: now,
    updated_at: now,
  });
  await tx.ledger.post(
    depositJournal({ accountId: account.account_id, businessId: deposit.record_id }, amount),
    now,
  );
  return deposit;
};

/**
 * Sandbox only (`forbidden` elsewhere): a completed deposit record and its `deposit` journal
 * in one unit of work, in a currency of the account (`currency not supported` otherwise).
 * Answers the deposit and the currency's balance after it.
 */
export const sandboxCredit = async (deps: EngineDeps, accountId: string, body: unknown) => {
  if (deps.settings.environment !== 'sandbox') return E.left(payrailError('forbidden'));
  return clockedUnitOfWork(deps, async (tx, now) => {
    const request = orRefuse(decodeAccountCredit(body));
    const account = await accountInPath(tx, accountId);
    if (!account.currencies.includes(request.currency)) {
      return refuse(payrailError('currency_not_supported'));
    }
    const amount = money(request.currency, request.amount);
    const deposit = await depositCredit(deps, tx, { account, amount, now });
    const balance =
      (await tx.ledger.balances(account.account_id)).find((b) => b.currency === request.currency) ??
      zeroBalance(request.currency);
    return { deposit: fundingView(deposit), balance: balanceView(balance) };
  });
};
