/**
 * The answers of statements and of the operator's settlement report (ADR 0045): per bucket of a
 * currency, the opening balance, the totals by record type (every type of `recordTypes`, so a new
 * record type appears here without a change) and the closing balance; opening plus every total
 * is the closing, to the currency's smallest unit.
 */
import * as t from 'io-ts';
import { recordTypes } from '../ledger/ledger.js';
import { recordOf } from '../typed-records.js';
import { LedgerEntryView } from './access-answers.codecs.js';
import {
  answerOf,
  CurrencyCode,
  DecimalString,
  pageOf,
  UnixSeconds,
  WholeNumber,
} from './common-answers.codecs.js';

/** One bucket over a period. */
export const BucketStatementView = t.strict({
  /** The bucket's balance at the start: its last record's `balance_after` before the period. */
  opening: DecimalString,
  /** Per record type, the sum of the bucket's records of the period ("0.00" when none). */
  totals: t.strict(recordOf(recordTypes, () => DecimalString)),
  /** The opening plus every record of the period. */
  closing: DecimalString,
});
export type BucketStatementView = t.TypeOf<typeof BucketStatementView>;

const buckets = { available: BucketStatementView, held: BucketStatementView };

/** The period a statement covers, as it was read: `[start_at, end_at)`, never past now + 1. */
const periodProps = { start_at: UnixSeconds, end_at: UnixSeconds };

/** `data.statement`: one currency of the caller's account over a period. */
export const StatementView = t.strict({ currency: CurrencyCode, ...periodProps, ...buckets });
export type StatementView = t.TypeOf<typeof StatementView>;

/** `data` of `GET /payment/statements`: the statement and a page of its records, oldest first. */
export const StatementAnswer = answerOf({
  statement: StatementView,
  records: pageOf(LedgerEntryView),
});
export type StatementAnswer = t.TypeOf<typeof StatementAnswer>;

/** One account's currency in the settlement report. */
export const SettlementRowView = t.strict({
  merchant_id: t.string,
  account_id: t.string,
  currency: CurrencyCode,
  ...buckets,
});
export type SettlementRowView = t.TypeOf<typeof SettlementRowView>;

/** One currency summed over every account of the report. */
export const PlatformTotalView = t.strict({
  currency: CurrencyCode,
  /** The accounts with a row in this currency. */
  accounts: WholeNumber,
  ...buckets,
});
export type PlatformTotalView = t.TypeOf<typeof PlatformTotalView>;

/** `data.report`: the UTC day, the period read, and the platform's totals per currency. */
export const SettlementReportView = t.strict({
  date: t.string,
  ...periodProps,
  platform_totals: t.readonlyArray(PlatformTotalView),
});
export type SettlementReportView = t.TypeOf<typeof SettlementReportView>;

/** `data` of `GET /admin/reports/settlement`: the report and a page of its account rows. */
export const SettlementReportAnswer = answerOf({
  report: SettlementReportView,
  accounts: pageOf(SettlementRowView),
});
export type SettlementReportAnswer = t.TypeOf<typeof SettlementReportAnswer>;
