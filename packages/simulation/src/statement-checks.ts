/**
 * Statements and the settlement report tie out (ADR 0045), judged against the merchant's own
 * ledger as it pages through `/payment/ledger`: per bucket, the opening is what the records before
 * the period add up to, the totals by record type are the period's records, opening + Σ totals =
 * closing, the statement's own records add up to the same, the balances at the period's bounds
 * (`/payment/balances?at=`) are its opening and closing, and a period that reaches now closes at
 * `/payment/balances`.
 */
import { Decimal } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import type { SimMerchant } from './model.js';
import type { World } from './world.js';

/** One record of the merchant's ledger, as `/payment/ledger` and statements show it. */
export interface LedgerRecord {
  readonly transaction_id: string;
  readonly record_type: string;
  readonly currency: string;
  readonly bucket: string;
  readonly amount: string;
  readonly balance_after: string;
  readonly business_id: string;
  readonly created_at: number;
}

const zero = new Decimal(0);
const buckets = ['available', 'held'] as const;

/** Every record of the merchant's ledger, oldest first, paged as a merchant pages it. */
export const ledgerOf = async (
  world: World,
  merchant: SimMerchant,
): Promise<E.Either<string, LedgerRecord[]>> => {
  const records: LedgerRecord[] = [];
  for (;;) {
    const page = await world.engine.accounts.ledger(merchant.callers[0], {
      limit: '100',
      offset: String(records.length),
      sort_order: 'asc',
    });
    if (E.isLeft(page))
      return E.left(`${merchant.accountId}: ledger refused: ${page.left.message}`);
    records.push(...page.right.items);
    if (page.right.items.length === 0 || records.length >= page.right.total) break;
  }
  return E.right(records);
};

/** The period a statement or report reads: both bounds at most now + 1, start never after end. */
const periodRead = (startAt: number, endAt: number, now: number) => {
  const end_at = Math.min(endAt, now + 1);
  return { start_at: Math.min(startAt, end_at), end_at };
};

interface Replayed {
  readonly opening: Decimal;
  readonly closing: Decimal;
  readonly totals: ReadonlyMap<string, Decimal>;
  readonly count: number;
}

/** What the ledger says of one bucket over `[start, end)`. */
const replay = (
  records: readonly LedgerRecord[],
  currency: string,
  bucket: string,
  start: number,
  end: number,
): Replayed => {
  let opening = zero;
  let closing = zero;
  let count = 0;
  const totals = new Map<string, Decimal>();
  for (const r of records) {
    if (r.currency !== currency || r.bucket !== bucket || r.created_at >= end) continue;
    closing = closing.plus(r.amount);
    if (r.created_at < start) opening = opening.plus(r.amount);
    else {
      totals.set(r.record_type, (totals.get(r.record_type) ?? zero).plus(r.amount));
      count += 1;
    }
  }
  return { opening, closing, totals, count };
};

/** One bucket of a statement or of a report's row. */
interface BucketView {
  readonly opening: string;
  readonly totals: Readonly<Record<string, string>>;
  readonly closing: string;
}

const sumOf = (values: Iterable<string | Decimal>): Decimal =>
  [...values].reduce<Decimal>((total, v) => total.plus(v), zero);

/** The bucket ties out by itself: opening + Σ totals = closing. */
const tiesOut = (name: string, view: BucketView): string[] => {
  const totals = sumOf(Object.values(view.totals));
  return new Decimal(view.opening).plus(totals).equals(view.closing)
    ? []
    : [`${name}: opening ${view.opening} + totals ${totals} is not its closing ${view.closing}`];
};

/** The bucket ties out and says what the ledger replays to. */
const bucketProblems = (name: string, view: BucketView, replayed: Replayed): string[] => {
  const problems = tiesOut(name, view);
  if (!replayed.opening.equals(view.opening)) {
    problems.push(
      `${name}: opening ${view.opening}, the ledger before it sums to ${replayed.opening}`,
    );
  }
  if (!replayed.closing.equals(view.closing)) {
    problems.push(
      `${name}: closing ${view.closing}, the ledger to its end sums to ${replayed.closing}`,
    );
  }
  for (const type of new Set([...Object.keys(view.totals), ...replayed.totals.keys()])) {
    const got = view.totals[type];
    const want = replayed.totals.get(type) ?? zero;
    if (got === undefined || !want.equals(got)) {
      problems.push(`${name}: ${type} totals ${got ?? 'nothing'}, the period's records ${want}`);
    }
  }
  return problems;
};

/** `data` of a statement, as the simulation reads it. */
export interface StatementData {
  readonly statement: {
    readonly currency: string;
    readonly start_at: number;
    readonly end_at: number;
    readonly available: BucketView;
    readonly held: BucketView;
  };
  readonly records: { readonly items: readonly LedgerRecord[]; readonly total: number };
}

/** The statement's records, every page, the first one as answered. */
const statementRecords = async (
  world: World,
  merchant: SimMerchant,
  query: Readonly<Record<string, string>>,
  data: StatementData,
): Promise<E.Either<string, LedgerRecord[]>> => {
  const records = [...data.records.items];
  while (records.length < data.records.total) {
    const page = await world.engine.statements.statement(merchant.callers[0], {
      ...query,
      offset: String(records.length),
    });
    if (E.isLeft(page)) return E.left(`its next page was refused: ${page.left.message}`);
    if (page.right.records.items.length === 0) break;
    records.push(...page.right.records.items);
  }
  return E.right(records);
};

/** Each bucket's balance at the end of second `at` (none: now), as `/payment/balances` says. */
const balancesAt = async (
  world: World,
  merchant: SimMerchant,
  currency: string,
  at: number | undefined,
): Promise<E.Either<string, Record<'available' | 'held', string>>> => {
  const answer = await world.engine.accounts.balances(
    merchant.callers[0],
    at === undefined ? {} : { at: String(at) },
  );
  if (E.isLeft(answer)) return E.left(`balances refused: ${answer.left.message}`);
  const found = answer.right.items.find((b) => b.currency === currency);
  return E.right({ available: found?.available ?? '0', held: found?.held ?? '0' });
};

/** The statement's bounds agree with the balances at them, and with now's when it reaches now. */
const boundsProblems = async (
  world: World,
  merchant: SimMerchant,
  data: StatementData,
  now: number,
): Promise<string[]> => {
  const s = data.statement;
  const checks: [string, number | undefined, 'opening' | 'closing'][] = [
    [`balances at ${s.start_at - 1}`, s.start_at - 1, 'opening'],
    [`balances at ${s.end_at - 1}`, s.end_at - 1, 'closing'],
  ];
  if (s.end_at === now + 1) checks.push(['GET /payment/balances', undefined, 'closing']);
  const problems: string[] = [];
  for (const [source, at, side] of checks) {
    if (at !== undefined && at < 0) continue;
    const balances = await balancesAt(world, merchant, s.currency, at);
    if (E.isLeft(balances)) return [balances.left];
    for (const bucket of buckets) {
      if (!new Decimal(balances.right[bucket]).equals(s[bucket][side])) {
        problems.push(
          `${bucket} ${side} ${s[bucket][side]}, ${source} says ${balances.right[bucket]}`,
        );
      }
    }
  }
  return problems;
};

/**
 * Everything a statement must be: the period as asked (bounds past now read as now + 1), each
 * bucket tied out and equal to the ledger's replay, its records (every page) adding up from the
 * opening to the closing, and the balances at its bounds its opening and closing.
 */
export const statementProblems = async (
  world: World,
  merchant: SimMerchant,
  query: Readonly<Record<string, string>>,
  data: StatementData,
  now: number,
): Promise<string[]> => {
  const s = data.statement;
  const name = `statement of ${merchant.accountId} ${query.currency} [${s.start_at}, ${s.end_at})`;
  const problems: string[] = [];
  const period = periodRead(Number(query.start_at), Number(query.end_at), now);
  if (
    s.currency !== query.currency ||
    s.start_at !== period.start_at ||
    s.end_at !== period.end_at
  ) {
    problems.push(`${name}: the period read should be [${period.start_at}, ${period.end_at})`);
  }
  const ledger = await ledgerOf(world, merchant);
  if (E.isLeft(ledger)) return [...problems, ledger.left];
  const records = await statementRecords(world, merchant, query, data);
  if (E.isLeft(records)) return [...problems, `${name}: ${records.left}`];
  let count = 0;
  for (const bucket of buckets) {
    const replayed = replay(ledger.right, s.currency, bucket, s.start_at, s.end_at);
    count += replayed.count;
    problems.push(...bucketProblems(`${name} ${bucket}`, s[bucket], replayed));
    const mine = records.right.filter((r) => r.bucket === bucket);
    const outside = mine.filter(
      (r) => r.currency !== s.currency || r.created_at < s.start_at || r.created_at >= s.end_at,
    );
    if (outside.length > 0)
      problems.push(`${name}: record ${outside[0]?.transaction_id} is outside it`);
    const moved = sumOf(mine.map((r) => r.amount));
    if (!new Decimal(s[bucket].opening).plus(moved).equals(s[bucket].closing)) {
      problems.push(
        `${name} ${bucket}: opening ${s[bucket].opening} + its records ${moved} is not its closing ${s[bucket].closing}`,
      );
    }
  }
  if (records.right.length !== count || data.records.total !== count) {
    problems.push(
      `${name}: ${records.right.length} records of ${data.records.total}, the ledger has ${count}`,
    );
  }
  problems.push(...(await boundsProblems(world, merchant, data, now)).map((p) => `${name}: ${p}`));
  return problems;
};

/** A settlement report row or a platform total: a currency's two buckets. */
interface ReportBuckets {
  readonly currency: string;
  readonly available: BucketView;
  readonly held: BucketView;
}

/** `data` of a settlement report, as the simulation reads it. */
export interface ReportData {
  readonly report: {
    readonly start_at: number;
    readonly end_at: number;
    readonly platform_totals: readonly (ReportBuckets & { readonly accounts: number })[];
  };
  readonly accounts: {
    readonly items: readonly (ReportBuckets & { readonly account_id: string })[];
    readonly total: number;
  };
}

/** The platform's totals of a currency are its rows summed, bucket by bucket, type by type. */
const platformProblems = (data: ReportData): string[] => {
  const problems: string[] = [];
  const currencies = new Set(data.accounts.items.map((r) => r.currency));
  for (const t of data.report.platform_totals) currencies.add(t.currency);
  for (const currency of currencies) {
    const rows = data.accounts.items.filter((r) => r.currency === currency);
    const total = data.report.platform_totals.find((t) => t.currency === currency);
    if (total === undefined || total.accounts !== rows.length) {
      problems.push(
        `report ${currency}: ${rows.length} rows, the platform totals count ${total?.accounts}`,
      );
      continue;
    }
    for (const bucket of buckets) {
      problems.push(...tiesOut(`report platform ${currency} ${bucket}`, total[bucket]));
      const view = total[bucket];
      const sums: [string, string, Decimal][] = [
        ['opening', view.opening, sumOf(rows.map((r) => r[bucket].opening))],
        ['closing', view.closing, sumOf(rows.map((r) => r[bucket].closing))],
        ...Object.entries(view.totals).map(([type, got]): [string, string, Decimal] => [
          type,
          got,
          sumOf(rows.map((r) => r[bucket].totals[type] ?? '0')),
        ]),
      ];
      for (const [what, got, want] of sums) {
        if (!want.equals(got))
          problems.push(
            `report platform ${currency} ${bucket} ${what} ${got}, its rows sum to ${want}`,
          );
      }
    }
  }
  return problems;
};

/**
 * The operator's report of a day: the period as read, every row tied out, the platform's totals
 * its rows summed, and each simulated merchant's rows exactly the currencies that moved that day
 * or held money at its start, each bucket what the merchant's ledger replays to.
 */
export const settlementProblems = async (
  world: World,
  merchants: readonly SimMerchant[],
  dayStart: number,
  data: ReportData,
  now: number,
): Promise<string[]> => {
  const { start_at, end_at } = data.report;
  const period = periodRead(dayStart, dayStart + 86_400, now);
  const problems: string[] = [];
  if (start_at !== period.start_at || end_at !== period.end_at) {
    problems.push(
      `report read [${start_at}, ${end_at}), not [${period.start_at}, ${period.end_at})`,
    );
  }
  if (data.accounts.items.length !== data.accounts.total) {
    problems.push(
      `report: ${data.accounts.items.length} rows of ${data.accounts.total} on a page of 100`,
    );
  }
  problems.push(...platformProblems(data));
  for (const merchant of merchants) {
    const ledger = await ledgerOf(world, merchant);
    if (E.isLeft(ledger)) return [...problems, ledger.left];
    const rows = data.accounts.items.filter((r) => r.account_id === merchant.accountId);
    for (const currency of new Set([
      ...ledger.right.map((r) => r.currency),
      ...rows.map((r) => r.currency),
    ])) {
      const name = `report row ${merchant.accountId} ${currency}`;
      const replayed = buckets.map((b) => replay(ledger.right, currency, b, start_at, end_at));
      const due = replayed.some((r) => r.count > 0 || !r.opening.isZero());
      const row = rows.find((r) => r.currency === currency);
      if (due !== (row !== undefined)) {
        problems.push(
          `${name}: ${row === undefined ? 'missing' : 'there'}, but it ${due ? 'moved or held money' : 'neither moved nor held money'}`,
        );
        continue;
      }
      buckets.forEach((bucket, i) => {
        if (row !== undefined)
          problems.push(
            ...bucketProblems(`${name} ${bucket}`, row[bucket], replayed[i] as Replayed),
          );
      });
    }
  }
  return problems;
};
