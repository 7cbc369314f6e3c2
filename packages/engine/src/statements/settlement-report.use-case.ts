/**
 * The operator's daily settlement report (issue 21, ADR 0045): for one UTC day, per account and
 * currency, each bucket's opening balance, totals by record type and closing balance, exactly as
 * the merchant's statement of that day reads them, and the platform's totals per currency: the
 * sums of the rows, which tie out because every row does. A row is an account's currency that
 * moved that day or held money at its start; every other one would read all zeros.
 */
import {
  type AccountRecord,
  type Currency,
  Decimal,
  decodeWith,
  type PlatformTotalView,
  payrailError,
  SettlementReportQuery,
  type SettlementRowView,
  type StoreTransaction,
  sumOfStatements,
  utcDayStart,
} from '@payrail/core';
import { windowView } from '../access/list-pages.views.js';
import { orRefuse, refuse, unitOfWork } from '../command/command.handler.js';
import type { Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { type Period, periodAsRead } from './statement-period.policy.js';
import { periodStatement } from './statement-records.store.js';

const secondsPerDay = 86_400;
const accountsPerRead = 100;

/** Every account of the store, oldest first, a page at a time. */
async function* everyAccount(tx: StoreTransaction): AsyncGenerator<AccountRecord> {
  for (let offset = 0; ; offset += accountsPerRead) {
    const page = await tx.accounts.list({ sort: 'asc', limit: accountsPerRead, offset });
    yield* page.items;
    if (page.items.length < accountsPerRead) return;
  }
}

/** The account's rows: its currencies in code order, those that moved or held money. */
const accountRows = async (
  tx: StoreTransaction,
  account: AccountRecord,
  period: Period,
): Promise<SettlementRowView[]> => {
  const rows: SettlementRowView[] = [];
  for (const { currency } of await tx.ledger.balances(account.account_id)) {
    const of = { accountId: account.account_id, currency, period };
    const { statements, records } = await periodStatement(tx, of);
    const { available, held } = statements;
    if (records > 0 || [available, held].some((s) => !new Decimal(s.opening).isZero())) {
      rows.push({
        merchant_id: account.merchant_id,
        account_id: account.account_id,
        currency,
        available,
        held,
      });
    }
  }
  return rows;
};

/** Per currency in code order: the rows' sums, and how many accounts have a row in it. */
const platformTotals = (rows: readonly SettlementRowView[]): PlatformTotalView[] => {
  const byCurrency = new Map<Currency, SettlementRowView[]>();
  for (const row of rows)
    byCurrency.set(row.currency, [...(byCurrency.get(row.currency) ?? []), row]);
  return [...byCurrency.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, of]) => {
      const { available, held } = sumOfStatements(currency, of);
      return { currency, accounts: new Set(of.map((row) => row.account_id)).size, available, held };
    });
};

export const settlementReport = (deps: EngineDeps) => (raw: Query) =>
  unitOfWork(deps.store, async (tx) => {
    const query = orRefuse(decodeWith(SettlementReportQuery)(raw));
    // The codec takes only days that exist, so there is always a start.
    const dayStart =
      utcDayStart(query.date) ?? refuse(payrailError('invalid_query_param', { param: 'date' }));
    const period = periodAsRead(
      { start_at: dayStart, end_at: dayStart + secondsPerDay },
      deps.clock.now(),
    );
    const rows: SettlementRowView[] = [];
    for await (const account of everyAccount(tx))
      rows.push(...(await accountRows(tx, account, period)));
    return {
      report: { date: query.date, ...period, platform_totals: platformTotals(rows) },
      accounts: windowView(rows, query, (row) => row),
    };
  });
