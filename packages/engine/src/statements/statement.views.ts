/**
 * The answers of statements (ADR 0045): the JSON statement, typed with the core's answer codecs,
 * and the CSV export's lines. The CSV is one header row, an `opening` row per bucket, one
 * `record` row per ledger record (the fields `/payment/ledger` shows), and a `closing` row per
 * bucket: the amounts of a bucket's `record` rows added to its `opening` row's balance give its
 * `closing` row's, and each `record` row's `balance_after` is the running sum. Fields are quoted
 * per RFC 4180, lines end in CRLF, and a text field a spreadsheet would read as a formula starts
 * with `'`.
 */
import {
  type BucketStatements,
  type Currency,
  type LedgerEntryView,
  type MerchantBucket,
  merchantBuckets,
  type StatementView,
} from '@payrail/core';
import type { Period } from './statement-period.policy.js';

export const statementView = (
  currency: Currency,
  period: Period,
  buckets: BucketStatements,
): StatementView => ({
  currency,
  start_at: period.start_at,
  end_at: period.end_at,
  available: buckets.available,
  held: buckets.held,
});

/** The CSV's columns, in order. */
const statementCsvColumns = [
  'line',
  'created_at',
  'created_utc',
  'currency',
  'bucket',
  'record_type',
  'amount',
  'balance_after',
  'transaction_id',
  'business_type',
  'business_id',
  'reference',
] as const;

type CsvRow = Readonly<Partial<Record<(typeof statementCsvColumns)[number], string | number>>>;

/**
 * A field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break, and also
 * a semicolon or a tab, the list separators of spreadsheets in other locales, so that one of
 * those never splits the field into cells either.
 */
const csvField = (value: string): string =>
  /[",;\t\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;

/**
 * A text field (an id, a reference) that a spreadsheet would run as a formula is made inert
 * (OWASP's CSV injection advice): a `'`, which spreadsheets show as text, goes before every `=`,
 * `+`, `-`, `@`, tab or carriage return that begins the field or follows a list separator (`,`
 * `;` a tab or a line break), past spaces and quotes. A spreadsheet whose list separator is not the comma
 * may split the field there whatever its quotes, and each cell it makes then starts as text.
 * Amounts are signed numbers and stay as they are.
 */
const inertText = (value: string): string => {
  let text = '';
  let cellStart = true;
  for (const c of value) {
    if (cellStart && (c === ' ' || c === '"')) {
      text += c;
      continue;
    }
    text += cellStart && formulaTriggers.has(c) ? `'${c}` : c;
    cellStart = listSeparators.has(c);
  }
  return text;
};
const formulaTriggers = new Set(['=', '+', '-', '@', '\t', '\r']);
const listSeparators = new Set([',', ';', '\t', '\r', '\n']);

const csvLine = (row: CsvRow): string =>
  `${statementCsvColumns.map((column) => csvField(String(row[column] ?? ''))).join(',')}\r\n`;

/** `2027-01-15 08:00:00`: a time every spreadsheet reads as one (UTC). */
const utcText = (seconds: number): string =>
  new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');

export const statementCsvHeader = `${statementCsvColumns.join(',')}\r\n`;

/** A bucket's balance at a bound of the period: `opening` at start_at, `closing` at end_at. */
const balanceCsvLine = (
  line: 'opening' | 'closing',
  at: number,
  currency: Currency,
  bucket: MerchantBucket,
  balance: string,
): string =>
  csvLine({
    line,
    created_at: at,
    created_utc: utcText(at),
    currency,
    bucket,
    balance_after: balance,
  });

/** Both buckets' balances at a bound of the period, `available` first. */
export const balanceCsvLines = (
  line: 'opening' | 'closing',
  at: number,
  currency: Currency,
  balances: Readonly<Record<MerchantBucket, string>>,
): string =>
  merchantBuckets
    .map((bucket) => balanceCsvLine(line, at, currency, bucket, balances[bucket]))
    .join('');

/** One ledger record, as `/payment/ledger` shows it. */
export const recordCsvLine = (record: LedgerEntryView): string =>
  csvLine({
    line: 'record',
    created_at: record.created_at,
    created_utc: utcText(record.created_at),
    currency: record.currency,
    bucket: record.bucket,
    record_type: record.record_type,
    amount: record.amount,
    balance_after: record.balance_after,
    transaction_id: inertText(record.transaction_id),
    business_type: inertText(record.business_type),
    business_id: inertText(record.business_id),
    reference: record.reference === null ? '' : inertText(record.reference),
  });

/** `statement-<account>-<currency>-<start_at>-<end_at>.csv`, in characters any file system takes. */
export const statementFilename = (accountId: string, currency: Currency, period: Period): string =>
  `statement-${accountId}-${currency}-${period.start_at}-${period.end_at}.csv`.replace(
    /[^A-Za-z0-9._-]/g,
    '_',
  );
