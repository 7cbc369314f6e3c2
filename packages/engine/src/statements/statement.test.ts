/**
 * Statements that tie out (issue 21, ADR 0045), as a merchant and an operator notice them: a
 * merchant's money moves over several seconds (credits, payouts completed, failed and held, in two
 * currencies); its statements tie out (opening + Σ records = closing, per bucket), a statement
 * up to now closes at `balances`, its records are the ledger's records of the period, a CSV
 * statement's rows replay, `balances?at=` is the replay up to that second, and the operator's
 * settlement report adds every account's rows up to the platform's totals.
 */
import {
  Decimal,
  formatAmount,
  type LedgerEntryView,
  recordTypes,
  type StatementView,
  tiesOut,
} from '@payrail/core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../engine.api.js';
import { bootstrapOperator } from '../operators/operators.use-cases.js';
import {
  csvRows,
  messageOf,
  replayCsv,
  rightOf,
  start,
  statementWorld,
  textOf,
} from './statement.test-support.js';

let w: Awaited<ReturnType<typeof statementWorld>>;
let acme: Caller;
let other: Caller;
/** When each step happened: the seconds the periods below are cut at. */
const at: Record<string, number> = {};

beforeAll(async () => {
  w = await statementWorld();
  acme = await w.merchant('Acme');
  other = await w.merchant('Other');
  at.first = w.now();
  await w.credit(acme, 'USD', '1000.00');
  await w.credit(acme, 'USDT', '50.000000');
  w.tick(10);
  at.payouts = w.now();
  await w.payout(acme, '100.00', 'completed');
  await w.payout(acme, '40.00', 'failed');
  w.tick(86_400);
  at.nextDay = w.now();
  await w.payout(acme, '25.00', 'held');
  await w.credit(other, 'USD', '7.00');
  w.tick(5);
  await w.payout(acme, '10.00', 'completed');
  at.last = w.now();
  w.tick(3);
});

const statementOf = async (who: Caller, query: Record<string, string>) =>
  rightOf(await w.engine.statements.statement(who, { limit: '100', ...query }));

const ledgerOf = async (who: Caller, query: Record<string, string>) => {
  const records: LedgerEntryView[] = [];
  for (;;) {
    const page = rightOf(
      await w.engine.accounts.ledger(who, {
        sort_order: 'asc',
        limit: '100',
        offset: String(records.length),
        ...query,
      }),
    );
    records.push(...page.items);
    if (page.items.length === 0 || records.length >= page.total) return records;
  }
};

const sumOf = (amounts: readonly string[]) =>
  amounts.reduce((total, amount) => total.plus(amount), new Decimal(0));

describe('GET /payment/statements', () => {
  it('ties out in every bucket, and its records are the ledger of the period', async () => {
    const query = { currency: 'USD', start_at: String(at.payouts), end_at: String(at.last) };
    const { statement, records } = await statementOf(acme, query);
    expect(tiesOut(statement)).toBe(true);
    expect(statement).toMatchObject({ currency: 'USD', start_at: at.payouts, end_at: at.last });
    expect(statement.available.opening).toBe('1000.00');
    expect(Object.keys(statement.available.totals)).toEqual([...recordTypes]);
    // The period is [start_at, end_at): the last payout, at `end_at`, is not in it.
    const ledger = await ledgerOf(acme, {
      currency: 'USD',
      start_at: String(at.payouts),
      end_at: String((at.last ?? 0) - 1),
    });
    expect(records.items).toEqual(ledger);
    expect(records.total).toBe(ledger.length);
    for (const bucket of ['available', 'held'] as const) {
      const amounts = ledger.filter((r) => r.bucket === bucket).map((r) => r.amount);
      const closing = new Decimal(statement[bucket].opening).plus(sumOf(amounts));
      expect(statement[bucket].closing).toBe(formatAmount({ currency: 'USD', value: closing }));
    }
    // 100.00 + fee 1.50 paid, 25.00 + 0.75 held, 40.00 + 0.90 held and released.
    expect(statement.available.closing).toBe('872.75');
    expect(statement.held).toMatchObject({ opening: '0.00', closing: '25.75' });
    expect(statement.held.totals).toMatchObject({
      payout_hold: '168.15',
      payout: '-100.00',
      payout_fee: '-1.50',
      payout_release: '-40.90',
    });
    // Every payout record shows its reference, as the ledger does.
    expect(records.items.some((r) => r.reference === '=INV-2')).toBe(true);
  });

  it('up to now, closes at the balances; a bound past now reads as now + 1', async () => {
    const { statement } = await statementOf(acme, {
      currency: 'USD',
      start_at: '0',
      end_at: String(w.now() + 1_000_000),
    });
    expect(statement).toMatchObject({ start_at: 0, end_at: w.now() + 1 });
    expect(statement.available.opening).toBe('0.00');
    const { items } = rightOf(await w.engine.accounts.balances(acme, { currency: 'USD' }));
    expect([statement.available.closing, statement.held.closing]).toEqual([
      items[0]?.available,
      items[0]?.held,
    ]);
    expect(tiesOut(statement)).toBe(true);
    const future = await statementOf(acme, {
      currency: 'USD',
      start_at: String(w.now() + 50),
      end_at: String(w.now() + 60),
    });
    expect(future.statement).toMatchObject({ start_at: w.now() + 1, end_at: w.now() + 1 });
    expect(future.statement.available.opening).toBe(statement.available.closing);
    expect(future.records.total).toBe(0);
  });

  it('chains: the closing of one period is the opening of the next', async () => {
    const bounds = [0, at.payouts, at.nextDay, at.last, w.now() + 1].map(Number);
    const statements: StatementView[] = [];
    for (const [i, from] of bounds.slice(0, -1).entries()) {
      const to = String(bounds[i + 1]);
      statements.push(
        (await statementOf(acme, { currency: 'USD', start_at: `${from}`, end_at: to })).statement,
      );
    }
    for (const [i, next] of statements.slice(1).entries()) {
      const previous = statements[i];
      expect([next.available.opening, next.held.opening]).toEqual([
        previous?.available.closing,
        previous?.held.closing,
      ]);
    }
    expect(statements.every(tiesOut)).toBe(true);
  });

  it('pages its records without changing its totals', async () => {
    const query = { currency: 'USD', start_at: '0', end_at: String(w.now() + 1) };
    const whole = await statementOf(acme, query);
    const page = rightOf(
      await w.engine.statements.statement(acme, { ...query, limit: '3', offset: '4' }),
    );
    expect(page.statement).toEqual(whole.statement);
    expect(page.records).toMatchObject({ total: whole.records.total, limit: 3, offset: 4 });
    expect(page.records.items).toEqual(whole.records.items.slice(4, 7));
  });

  it('refuses a query without its currency or period, a period backwards, a key without the permission', async () => {
    const refused = async (query: Record<string, string>, caller = acme) =>
      messageOf(await w.engine.statements.statement(caller, query));
    expect(await refused({ start_at: '0', end_at: '1' })).toBe('currency required');
    expect(await refused({ currency: 'USD', end_at: '1' })).toBe('start_at required');
    expect(await refused({ currency: 'USD', start_at: '0', end_at: '' })).toBe('end_at required');
    expect(await refused({ currency: 'EUR', start_at: '0', end_at: '1' })).toBe('invalid currency');
    expect(await refused({ currency: 'USD', start_at: '5', end_at: '4' })).toBe('invalid end_at');
    expect(await refused({ currency: 'USD', start_at: '0', end_at: '1', limit: '101' })).toBe(
      'invalid limit',
    );
    const reader = { ...acme, permissions: ['payment.wallet.read'] };
    expect(await refused({ currency: 'USD', start_at: '0', end_at: '1' }, reader)).toBe(
      'forbidden',
    );
    expect(messageOf(await w.engine.statements.statementCsv(reader, {}))).toBe('forbidden');
    expect(messageOf(await w.engine.statements.statementCsv(acme, { currency: 'USD' }))).toBe(
      'start_at required',
    );
  });
});

describe('GET /payment/statements.csv', () => {
  it('streams the statement: its rows replay to the closing rows and match the JSON', async () => {
    const query = { currency: 'USD', start_at: String(at.payouts), end_at: String(w.now() + 1) };
    const exported = rightOf(await w.engine.statements.statementCsv(acme, query));
    expect(exported.media_type).toBe('text/csv');
    expect(exported.filename).toBe(
      `statement-${acme.account_id}-USD-${at.payouts}-${w.now() + 1}.csv`,
    );
    const rows = csvRows(await textOf(exported));
    const { statement, records } = await statementOf(acme, query);
    expect(rows.map((row) => row.line)).toEqual([
      'opening',
      'opening',
      ...records.items.map(() => 'record'),
      'closing',
      'closing',
    ]);
    const { running, closing, mismatches } = replayCsv(rows);
    expect(mismatches).toEqual([]);
    for (const bucket of ['available', 'held'] as const) {
      expect(running.get(bucket)?.equals(statement[bucket].closing)).toBe(true);
      expect(closing.get(bucket)).toBe(statement[bucket].closing);
    }
    const recordRows = rows.filter((row) => row.line === 'record');
    expect(recordRows.map((row) => [row.transaction_id, row.amount, row.created_at])).toEqual(
      records.items.map((r) => [r.transaction_id, r.amount, String(r.created_at)]),
    );
    // A reference a spreadsheet would run as a formula is text; RFC 4180 quoting round-trips.
    expect(recordRows.map((row) => row.reference)).toContain("'=INV-2");
    expect(recordRows.map((row) => row.reference)).toContain('INV, "1"');
    expect(rows[0]).toMatchObject({
      created_at: String(at.payouts),
      created_utc: '2027-01-15 08:00:10',
    });
  });

  it('reads its records as it is consumed, a page at a time', async () => {
    const exported = rightOf(
      await w.engine.statements.statementCsv(acme, {
        currency: 'USDT',
        start_at: '0',
        end_at: String(w.now() + 1),
      }),
    );
    const iterator = exported.chunks[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toMatch(/^line,created_at,created_utc,currency,bucket,record_type,amount/);
    const chunks = [first.value];
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      chunks.push(next.value);
    }
    // Header and openings, one page of records, the closings.
    expect(chunks).toHaveLength(3);
    expect(replayCsv(csvRows(chunks.join(''))).closing.get('available')).toBe('50.000000');
  });
});

describe('GET /payment/balances?at=', () => {
  it('is the replay of every record created at or before that second', async () => {
    const ledger = await ledgerOf(acme, {});
    for (const second of [start - 1, at.first, at.payouts, (at.nextDay ?? 0) + 2, at.last]) {
      const { items } = rightOf(await w.engine.accounts.balances(acme, { at: String(second) }));
      const replayed = items.map((balance) => {
        const sum = (bucket: string) =>
          formatAmount({
            currency: balance.currency,
            value: sumOf(
              ledger
                .filter(
                  (r) =>
                    r.currency === balance.currency &&
                    r.bucket === bucket &&
                    r.created_at <= (second ?? 0),
                )
                .map((r) => r.amount),
            ),
          });
        return { ...balance, available: sum('available'), held: sum('held') };
      });
      expect(items, `at ${second}`).toEqual(
        replayed.map((b) => ({
          ...b,
          total: formatAmount({
            currency: b.currency,
            value: new Decimal(b.available).plus(b.held),
          }),
        })),
      );
    }
    const now = rightOf(await w.engine.accounts.balances(acme, {}));
    expect(rightOf(await w.engine.accounts.balances(acme, { at: String(w.now()) }))).toEqual(now);
    expect(messageOf(await w.engine.accounts.balances(acme, { at: 'yesterday' }))).toBe(
      'invalid at',
    );
  });
});

describe('GET /admin/reports/settlement', () => {
  const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

  it('adds every account of the day up to the platform totals, each row as its statement', async () => {
    const date = day(at.nextDay ?? 0);
    const { report, accounts } = rightOf(
      await w.engine.admin.settlementReport(bootstrapOperator, { date, limit: '100' }),
    );
    const dayStart = Date.parse(`${date}T00:00:00Z`) / 1000;
    expect(report).toMatchObject({ date, start_at: dayStart, end_at: w.now() + 1 });
    expect(accounts.items.map((row) => [row.account_id, row.currency])).toEqual([
      [acme.account_id, 'USD'],
      [acme.account_id, 'USDT'],
      [other.account_id, 'USD'],
    ]);
    for (const row of accounts.items) {
      expect(tiesOut(row)).toBe(true);
      const who = row.account_id === acme.account_id ? acme : other;
      const { statement } = await statementOf(who, {
        currency: row.currency,
        start_at: String(report.start_at),
        end_at: String(report.end_at),
      });
      expect({ available: row.available, held: row.held }).toEqual({
        available: statement.available,
        held: statement.held,
      });
    }
    const usd = report.platform_totals.find((total) => total.currency === 'USD');
    expect(usd?.accounts).toBe(2);
    expect(usd?.available.closing).toBe(
      formatAmount({
        currency: 'USD',
        value: sumOf(
          accounts.items.filter((r) => r.currency === 'USD').map((r) => r.available.closing),
        ),
      }),
    );
    expect(report.platform_totals.every(tiesOut)).toBe(true);
  });

  it('leaves out what did not move and held nothing; refuses a day that does not exist', async () => {
    const before = rightOf(
      await w.engine.admin.settlementReport(bootstrapOperator, { date: day(start - 86_400) }),
    );
    expect(before.accounts).toEqual({ items: [], total: 0, limit: 20, offset: 0 });
    expect(before.report.platform_totals).toEqual([]);
    const refused = async (query: Record<string, string>) =>
      messageOf(await w.engine.admin.settlementReport(bootstrapOperator, query));
    expect(await refused({})).toBe('date required');
    expect(await refused({ date: '2027-02-30' })).toBe('invalid date');
    expect(await refused({ date: '15/01/2027' })).toBe('invalid date');
  });
});
