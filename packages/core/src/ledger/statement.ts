/**
 * A statement's arithmetic (ADR 0045): per bucket of one currency, the opening balance, the sum
 * of the bucket's records by record type, and the closing balance, which is the opening plus
 * every record. Decimals throughout, formatted at the currency's scale, so `opening + Σ totals =
 * closing` holds to the smallest unit. Records are added one at a time: a statement of any
 * length is summed in constant memory, as its records stream past.
 */
import { type Currency, Decimal, formatAmount } from '../money/money.js';
import { recordOf } from '../typed-records.js';
import { type MerchantBucket, merchantBuckets, type RecordType, recordTypes } from './ledger.js';

/** One bucket over a period: every record type is in `totals`, `0` at scale when none moved. */
export interface BucketStatement {
  readonly opening: string;
  readonly totals: Readonly<Record<RecordType, string>>;
  readonly closing: string;
}

export type BucketStatements = Readonly<Record<MerchantBucket, BucketStatement>>;

/** What a statement reads of a ledger record. */
export interface StatementRecord {
  readonly bucket: MerchantBucket;
  readonly record_type: RecordType;
  /** Signed, at the currency's scale. */
  readonly amount: string;
}

export interface StatementTally {
  /** Adds one record of the period. */
  add(record: StatementRecord): void;
  /** The closing balance of each bucket so far: the opening plus the records added. */
  balances(): Readonly<Record<MerchantBucket, string>>;
  /** Each bucket's opening, totals by record type and closing, so far. */
  statements(): BucketStatements;
}

/** A tally of one currency's buckets from their opening balances. */
export const statementTally = (
  currency: Currency,
  opening: Readonly<Record<MerchantBucket, string>>,
): StatementTally => {
  const at = (value: Decimal): string => formatAmount({ currency, value });
  const sums = recordOf(merchantBuckets, () => recordOf(recordTypes, () => new Decimal(0)));
  const running = recordOf(merchantBuckets, (bucket) => new Decimal(opening[bucket]));
  const balances = () => recordOf(merchantBuckets, (bucket) => at(running[bucket]));
  return {
    add: (record) => {
      const totals = sums[record.bucket];
      totals[record.record_type] = totals[record.record_type].plus(record.amount);
      running[record.bucket] = running[record.bucket].plus(record.amount);
    },
    balances,
    statements: () => {
      const closing = balances();
      return recordOf(merchantBuckets, (bucket) => ({
        opening: at(new Decimal(opening[bucket])),
        totals: recordOf(recordTypes, (type) => at(sums[bucket][type])),
        closing: closing[bucket],
      }));
    },
  };
};

/** The sum of several statements of one currency, bucket by bucket and line by line. */
export const sumOfStatements = (
  currency: Currency,
  statements: readonly BucketStatements[],
): BucketStatements => {
  const at = (value: Decimal): string => formatAmount({ currency, value });
  const sum = (read: (s: BucketStatements) => string): string =>
    at(statements.reduce((total, s) => total.plus(read(s)), new Decimal(0)));
  return recordOf(merchantBuckets, (bucket) => ({
    opening: sum((s) => s[bucket].opening),
    totals: recordOf(recordTypes, (type) => sum((s) => s[bucket].totals[type])),
    closing: sum((s) => s[bucket].closing),
  }));
};

/** Whether `opening + Σ totals = closing` in every bucket, to the currency's smallest unit. */
export const tiesOut = (statements: BucketStatements): boolean =>
  merchantBuckets.every((bucket) => {
    const { opening, totals, closing } = statements[bucket];
    const sum = recordTypes.reduce((total, type) => total.plus(totals[type]), new Decimal(opening));
    return sum.equals(closing);
  });
