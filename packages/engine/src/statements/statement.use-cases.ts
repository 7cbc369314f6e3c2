/**
 * Statements (issue 21, ADR 0045): one currency of the caller's account over a period, as JSON
 * (opening, totals by record type and closing per bucket, and a page of the records) and as a CSV
 * export streamed page by page. `opening + Σ records = closing` holds by construction: the
 * closing is the opening plus every record of the period, summed in decimals.
 */
import {
  decodeWith,
  type LedgerEntry,
  type LedgerEntryView,
  StatementExportQuery,
  StatementQuery,
  type StoreReads,
  statementTally,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { ledgerEntryView } from '../access/access.views.js';
import { requirePermission } from '../access/access-control.policy.js';
import { payoutReferencesOf } from '../access/account-ledger.use-case.js';
import { type Outcome, orRefuse, readsOf, readUnit } from '../command/command.handler.js';
import type { Caller, Query, TextExport } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import type { StatementAnswer } from '../engine-answers.views.js';
import {
  balanceCsvLines,
  recordCsvLine,
  statementCsvHeader,
  statementFilename,
  statementView,
} from './statement.views.js';
import { type Period, periodAsRead } from './statement-period.policy.js';
import {
  openingBalances,
  type PeriodOf,
  periodRecords,
  periodStatement,
} from './statement-records.store.js';

/** Records as `/payment/ledger` shows them, each payout's with its reference. */
const recordViews = async (
  tx: StoreReads,
  accountId: string,
  records: readonly LedgerEntry[],
): Promise<LedgerEntryView[]> => {
  const references = await payoutReferencesOf(tx, accountId, records);
  return records.map((record) =>
    ledgerEntryView(
      record,
      record.business_type === 'payout' ? (references.get(record.business_id) ?? null) : null,
    ),
  );
};

/** Reads the whole period in the caller's unit of work, keeping only the page asked for. */
const statement = (
  deps: EngineDeps,
  caller: Caller,
  raw: Query,
): Promise<Outcome<StatementAnswer>> =>
  readUnit(deps.store, async (tx) => {
    requirePermission(caller, 'payment.ledger.read');
    const query = orRefuse(decodeWith(StatementQuery)(raw));
    const of: PeriodOf = {
      accountId: caller.account_id,
      currency: query.currency,
      period: periodAsRead(query, deps.clock.now()),
    };
    const window: LedgerEntry[] = [];
    const { statements, records } = await periodStatement(tx, of, (record, n) => {
      if (n >= query.offset && window.length < query.limit) window.push(record);
    });
    return {
      statement: statementView(query.currency, of.period, statements),
      records: {
        items: await recordViews(tx, of.accountId, window),
        total: records,
        limit: query.limit,
        offset: query.offset,
      },
    };
  });

/**
 * The CSV's text, chunk by chunk: the header and opening rows, then one chunk per page of
 * records, each page read in a unit of work of its own when the transport asks for the next
 * chunk, then the closing rows, the opening plus the rows written.
 */
async function* statementCsvChunks(
  deps: EngineDeps,
  of: PeriodOf,
  opening: Readonly<Record<'available' | 'held', string>>,
): AsyncGenerator<string> {
  const tally = statementTally(of.currency, opening);
  yield statementCsvHeader + balanceCsvLines('opening', of.period.start_at, of.currency, opening);
  const read = readsOf(deps.store);
  for await (const records of periodRecords(read, of)) {
    for (const record of records) tally.add(record);
    const views = await read((tx) => recordViews(tx, of.accountId, records));
    yield views.map(recordCsvLine).join('');
  }
  yield balanceCsvLines('closing', of.period.end_at, of.currency, tally.balances());
}

/**
 * Checks the caller and the query and reads the opening balances before anything is written, so
 * every refusal is an `Outcome` (the envelope); the records are read as the export is consumed.
 */
const statementCsv = async (
  deps: EngineDeps,
  caller: Caller,
  raw: Query,
): Promise<Outcome<TextExport>> => {
  const head = await readUnit(deps.store, async (tx) => {
    requirePermission(caller, 'payment.ledger.read');
    const query = orRefuse(decodeWith(StatementExportQuery)(raw));
    const period: Period = periodAsRead(query, deps.clock.now());
    const of: PeriodOf = { accountId: caller.account_id, currency: query.currency, period };
    return { of, opening: await openingBalances(tx, of.accountId, of.currency, period) };
  });
  if (E.isLeft(head)) return head;
  const { of, opening } = head.right;
  return E.right({
    media_type: 'text/csv',
    filename: statementFilename(of.accountId, of.currency, of.period),
    chunks: statementCsvChunks(deps, of, opening),
  });
};

export const statementUseCases = (deps: EngineDeps) => ({
  statement: (caller: Caller, raw: Query) => statement(deps, caller, raw),
  statementCsv: (caller: Caller, raw: Query) => statementCsv(deps, caller, raw),
});
