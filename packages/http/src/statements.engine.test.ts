/**
 * Statements that tie out, over HTTP (issue 21, ADR 0045), on every store of the http package's
 * list: a merchant's money moves over two days (credits in two currencies, payouts completed,
 * failed and left held), another merchant receives 520 deposits in one second and the next (more
 * than a page of the export, ties across the page's edge). Then, as a merchant and an operator
 * read them: `GET /payment/statements` ties out per bucket, its records are the ledger's of the
 * period and it closes at `GET /payment/balances`; `GET /payment/statements.csv` streams rows that
 * parse (RFC 4180) and replay to its closing rows, which are the JSON's, the same over a real
 * socket, and refuses with the envelope; `GET /payment/balances?at=` is the ledger replayed up to that second; and
 * `GET /admin/reports/settlement` adds every account's rows up to the platform's totals. Amounts
 * are compared as decimal strings at the currency's scale, never as numbers.
 */

import { request } from 'node:http';
import { type Currency, Decimal, depositJournal, formatAmount, money } from '@payrail/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  type EngineApp,
  engineApp,
  okData,
  operatorToken,
  quickPayout,
  testNow,
} from './engine-app.test-support.js';
import { serve } from './serve.js';
import { storesUnderTest } from './stores.test-support.js';

interface LedgerRecord {
  readonly transaction_id: string;
  readonly record_type: string;
  readonly currency: Currency;
  readonly bucket: 'available' | 'held';
  readonly amount: string;
  readonly balance_after: string;
  readonly created_at: number;
}

interface BucketStatement {
  readonly opening: string;
  readonly totals: Readonly<Record<string, string>>;
  readonly closing: string;
}

const buckets = ['available', 'held'] as const;
const day = 86_400;

/** RFC 4180 read back into rows keyed by the header's names; CRLF after every row. */
const csvRows = (text: string): Record<string, string>[] => {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charAt(i);
    if (quoted && c === '"' && text.charAt(i + 1) === '"') {
      field += '"';
      i += 1;
    } else if (c === '"') quoted = !quoted;
    else if (!quoted && c === ',') {
      row.push(field);
      field = '';
    } else if (!quoted && c === '\r' && text.charAt(i + 1) === '\n') {
      rows.push([...row, field]);
      [row, field] = [[], ''];
      i += 1;
    } else field += c;
  }
  expect(field + row.join(''), 'the CSV ends with CRLF').toBe('');
  const [header = [], ...body] = rows;
  return body.map((fields) => {
    expect(fields).toHaveLength(header.length);
    return Object.fromEntries(header.map((name, i) => [name, fields[i] ?? '']));
  });
};

const ties = (statement: Readonly<Record<(typeof buckets)[number], BucketStatement>>) =>
  buckets.every((bucket) => {
    const { opening, totals, closing } = statement[bucket];
    const sum = Object.values(totals).reduce((t, v) => t.plus(v), new Decimal(opening));
    return sum.equals(closing);
  });

describe.each(storesUnderTest)('statements that tie out (real engine, $name)', (under) => {
  let h: EngineApp;
  let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;
  let acme: Awaited<ReturnType<EngineApp['merchant']>>;
  let busy: Awaited<ReturnType<EngineApp['merchant']>>;
  let now = testNow;

  const advance = async (seconds: number) => {
    await h.admin('POST', '/admin/sandbox/clock/advance', { seconds });
    now += seconds;
  };
  const execute = (payoutId: string, outcome: string) =>
    h.admin('POST', `/admin/sandbox/payouts/${payoutId}/execution`, {
      outcome,
      ...(outcome === 'failed' ? { reason: 'recipient wallet closed' } : {}),
    });
  const payout = async (
    reference: string,
    amount: string,
    fate: 'completed' | 'failed' | 'held',
  ) => {
    const { payout: made } = okData(
      await h.as(acme.token).post('/payment/quickpayout', { ...quickPayout(reference), amount }),
    );
    await h.admin('POST', `/admin/payouts/${made.payout_id}/review`, { action: 'approve' });
    await execute(made.payout_id, 'processing');
    if (fate !== 'held') await execute(made.payout_id, fate);
  };
  const get = (token: string, path: string) => h.as(token).get(path);
  const csv = (token: string, query: string) =>
    h.app.request(`/payment/statements.csv?${query}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
  const ledger = async (token: string, query: string): Promise<LedgerRecord[]> => {
    const records: LedgerRecord[] = [];
    for (;;) {
      const page = okData(
        await get(
          token,
          `/payment/ledger?sort_order=asc&limit=100&offset=${records.length}&${query}`,
        ),
      );
      records.push(...page.items);
      if (page.items.length === 0 || records.length >= page.total) return records;
    }
  };

  beforeAll(async () => {
    store = await under.open();
    h = engineApp({ store });
    await h.seedCatalogue();
    acme = await h.merchant('Acme');
    busy = await h.merchant('Busy');
    await h.admin('POST', `/admin/accounts/${acme.accountId}/credit`, {
      currency: 'USD',
      amount: '1000.00',
    });
    await h.admin('POST', `/admin/accounts/${acme.accountId}/credit`, {
      currency: 'USDT',
      amount: '50.000000',
    });
    await advance(30);
    await payout('ST1', '100.00', 'completed');
    await payout('ST2', '40.00', 'failed');
    await advance(day);
    await payout('ST3', '25.00', 'held');
    // 520 deposits over two seconds: more than a page of the export, a page's edge in a second.
    await store.transaction(async (tx) => {
      for (let i = 0; i < 520; i += 1) {
        const journal = depositJournal(
          { accountId: busy.accountId, businessId: `dep_busy_${i}` },
          money('USD', new Decimal(i + 1).dividedBy(100)),
        );
        await tx.ledger.post(journal, now + (i < 300 ? 0 : 1));
      }
    });
    await advance(5);
    await payout('ST4', '10.00', 'completed');
  }, 120_000);

  afterAll(async () => {
    await store.close?.();
  });

  it('a statement ties out, shows the ledger of its period, and up to now closes at the balances', async () => {
    const query = `currency=USD&start_at=${testNow + 30}&end_at=${now}`;
    const { statement, records } = okData(
      await get(acme.token, `/payment/statements?${query}&limit=100`),
    );
    expect(statement).toMatchObject({ currency: 'USD', start_at: testNow + 30, end_at: now });
    expect(ties(statement)).toBe(true);
    // [start_at, end_at): the ledger's inclusive window ends a second earlier.
    const inPeriod = await ledger(
      acme.token,
      `currency=USD&start_at=${testNow + 30}&end_at=${now - 1}`,
    );
    expect(records.items).toEqual(
      inPeriod.map((r) =>
        expect.objectContaining({ transaction_id: r.transaction_id, amount: r.amount }),
      ),
    );
    expect(statement.available).toMatchObject({ opening: '1000.00', closing: '872.75' });
    expect(statement.held).toMatchObject({ opening: '0.00', closing: '25.75' });

    const whole = okData(
      await get(acme.token, `/payment/statements?currency=USD&start_at=0&end_at=${now + 999_999}`),
    ).statement;
    expect(whole).toMatchObject({ start_at: 0, end_at: now + 1 });
    const [balance] = okData(await get(acme.token, '/payment/balances?currency=USD')).items;
    expect([whole.available.closing, whole.held.closing]).toEqual([
      balance.available,
      balance.held,
    ]);
    expect(ties(whole)).toBe(true);
  });

  it('consecutive statements chain: the closing of one is the opening of the next', async () => {
    const bounds = [0, testNow + 30, testNow + 30 + day, now, now + 1];
    let previous: Readonly<Record<string, BucketStatement>> | undefined;
    for (const [i, from] of bounds.slice(0, -1).entries()) {
      const path = `/payment/statements?currency=USD&start_at=${from}&end_at=${bounds[i + 1]}&limit=1`;
      const { statement } = okData(await get(acme.token, path));
      expect(ties(statement)).toBe(true);
      if (previous !== undefined) {
        expect(statement.available.opening).toBe(previous.available?.closing);
        expect(statement.held.opening).toBe(previous.held?.closing);
      }
      previous = statement;
    }
  });

  it('the CSV streams rows that replay to its closing rows, the JSON statement’s, over pages', async () => {
    for (const [who, from] of [
      [acme, testNow + 30],
      [busy, 0],
    ] as const) {
      const query = `currency=USD&start_at=${from}&end_at=${now + 1}`;
      const res = await csv(who.token, query);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="statement-${who.accountId}-USD-${from}-${now + 1}.csv"`,
      );
      const rows = csvRows(await res.text());
      const { statement, records } = okData(
        await get(who.token, `/payment/statements?${query}&limit=1`),
      );
      const lines = rows.map((row) => row.line);
      expect(lines.filter((line) => line === 'record')).toHaveLength(records.total);
      expect([lines.slice(0, 2), lines.slice(-2)]).toEqual([
        ['opening', 'opening'],
        ['closing', 'closing'],
      ]);
      const running = new Map<string, Decimal>();
      for (const row of rows) {
        const bucket = row.bucket ?? '';
        if (row.line === 'opening') running.set(bucket, new Decimal(row.balance_after ?? ''));
        if (row.line === 'record') {
          running.set(bucket, (running.get(bucket) ?? new Decimal(0)).plus(row.amount ?? ''));
          expect(
            formatAmount({ currency: 'USD', value: running.get(bucket) ?? new Decimal(0) }),
          ).toBe(row.balance_after);
        }
        if (row.line === 'closing') {
          expect(row.balance_after).toBe(statement[bucket].closing);
          expect(running.get(bucket)?.equals(row.balance_after ?? '')).toBe(true);
        }
      }
    }
    // 520 deposits of 0.01 to 5.20: 1354.60 in all.
    const busyRows = csvRows(
      await (await csv(busy.token, `currency=USD&start_at=0&end_at=${now}`)).text(),
    );
    expect(busyRows.at(-2)).toMatchObject({
      line: 'closing',
      bucket: 'available',
      balance_after: '1354.60',
    });
    expect(new Set(busyRows.map((row) => row.transaction_id)).size).toBe(521);
  });

  it('streams the same CSV over a real socket, chunk by chunk', async () => {
    const running = await serve(h.app, { port: 0, hostname: '127.0.0.1' });
    try {
      const query = `currency=USD&start_at=0&end_at=${now + 1}`;
      const { hostname, port } = new URL(running.url);
      const received = await new Promise<{ status: number; chunks: number; text: string }>(
        (resolve, reject) => {
          const path = `/payment/statements.csv?${query}`;
          const headers = { Authorization: `Bearer ${busy.token}` };
          const req = request({ hostname, port, path, headers }, (res) => {
            let [text, chunks] = ['', 0];
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              text += chunk;
              chunks += 1;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, chunks, text }));
          });
          req.on('error', reject);
          req.end();
        },
      );
      expect(received.status).toBe(200);
      expect(received.chunks).toBeGreaterThan(1);
      expect(received.text).toBe(await (await csv(busy.token, query)).text());
    } finally {
      await running.close();
    }
  });

  it('the CSV refuses with the envelope before anything is streamed', async () => {
    const missing = await csv(acme.token, 'start_at=0&end_at=1');
    expect(missing.status).toBe(400);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await missing.json()).toEqual({ code: 51, message: 'currency required', data: null });
    const backwards = await h.call(
      'GET',
      '/payment/statements.csv?currency=USD&start_at=5&end_at=4',
      {
        Authorization: `Bearer ${acme.token}`,
      },
    );
    expect(backwards.body).toEqual({ code: 51, message: 'invalid end_at', data: null });
    const wallet = await h.issueKey(acme.accountId, { permissions: ['payment.wallet.read'] });
    const forbidden: Answer = await h.call(
      'GET',
      '/payment/statements.csv?currency=USD&start_at=0&end_at=1',
      {
        Authorization: `Bearer ${wallet.token}`,
      },
    );
    expect([forbidden.status, forbidden.body.message]).toEqual([403, 'forbidden']);
  });

  it('balances?at= is the ledger replayed up to that second', async () => {
    const records = await ledger(acme.token, '');
    for (const at of [testNow - 1, testNow, testNow + 30, testNow + 30 + day, now - 1, now]) {
      const { items } = okData(await get(acme.token, `/payment/balances?at=${at}`));
      for (const balance of items) {
        const sum = (bucket: string) =>
          formatAmount({
            currency: balance.currency,
            value: records
              .filter(
                (r) => r.currency === balance.currency && r.bucket === bucket && r.created_at <= at,
              )
              .reduce((total, r) => total.plus(r.amount), new Decimal(0)),
          });
        expect([balance.available, balance.held], `${balance.currency} at ${at}`).toEqual([
          sum('available'),
          sum('held'),
        ]);
      }
    }
    expect(okData(await get(acme.token, `/payment/balances?at=${now}`))).toEqual(
      okData(await get(acme.token, '/payment/balances')),
    );
  });

  it("the operator's settlement report: every row as its statement, summed into the platform totals", async () => {
    const date = new Date((testNow + day) * 1000).toISOString().slice(0, 10);
    const dayStart = Date.parse(`${date}T00:00:00Z`) / 1000;
    const { report, accounts } = await h.admin(
      'GET',
      `/admin/reports/settlement?date=${date}&limit=100`,
    );
    expect(report).toMatchObject({
      date,
      start_at: dayStart,
      end_at: Math.min(dayStart + day, now + 1),
    });
    expect(
      accounts.items.map((row: { account_id: string; currency: string }) => [
        row.account_id,
        row.currency,
      ]),
    ).toEqual([
      [acme.accountId, 'USD'],
      [acme.accountId, 'USDT'],
      [busy.accountId, 'USD'],
    ]);
    const token = (accountId: string) => (accountId === acme.accountId ? acme.token : busy.token);
    for (const row of accounts.items) {
      expect(ties(row)).toBe(true);
      const path = `/payment/statements?currency=${row.currency}&start_at=${report.start_at}&end_at=${report.end_at}&limit=1`;
      const { statement } = okData(await get(token(row.account_id), path));
      expect([row.available, row.held]).toEqual([statement.available, statement.held]);
    }
    const usd = report.platform_totals.find(
      (total: { currency: string }) => total.currency === 'USD',
    );
    expect(usd.accounts).toBe(2);
    for (const bucket of buckets) {
      for (const line of ['opening', 'closing'] as const) {
        const sum = accounts.items
          .filter((row: { currency: string }) => row.currency === 'USD')
          .reduce(
            (total: Decimal, row: Record<string, BucketStatement>) =>
              total.plus(row[bucket]?.[line] ?? '0'),
            new Decimal(0),
          );
        expect(usd[bucket][line]).toBe(formatAmount({ currency: 'USD', value: sum }));
      }
    }
    expect(report.platform_totals.every(ties)).toBe(true);
    const refused = await h.call('GET', '/admin/reports/settlement?date=2027-02-30', {
      Authorization: `Bearer ${operatorToken}`,
    });
    expect(refused.body).toEqual({ code: 51, message: 'invalid date', data: null });
  });
});
