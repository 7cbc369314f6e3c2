/**
 * Ledger growth (issue 11: "ledger page and balances at 1e6 ledger rows vs at 1e4, <= 1.5x"):
 * for each size, a fresh schema on the PostgreSQL server opened with `createPostgresStore` (which
 * migrates it), N journals and their ledger records for one account inserted straight into its
 * tables with generate_series (with the per-account counts migration 0005 keeps), ANALYZE, then
 * the store's own reads timed: a ledger page (20, newest first) and the balances, the mean of 200
 * after 20 warm-ups, each in a unit of work of its own. The schemas are dropped after.
 */
import { createPostgresStore } from '@payrail/store-postgres';
import pg from 'pg';
import { ownedSchema } from './floors.mjs';
import { log, uniqueSuffix } from './run-context.mjs';

const accountId = 'acc_ledger_bench';
const warmups = 20;
const samples = 200;

const fill = async (databaseUrl, schema, n) => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`SET search_path = ${schema}`);
    await client.query(
      `INSERT INTO ledger_journals
         (journal_id, record_type, account_id, currency, amount, business_type, business_id, created_at)
       SELECT 'j' || g, 'deposit', $1, 'USD', 1, 'deposit', 'd' || g, 1700000000 + g
         FROM generate_series(1, $2::int) g`,
      [accountId, n],
    );
    await client.query(
      `INSERT INTO ledger_entries
         (journal_id, position, account_id, bucket, currency, amount, balance_after, record_type,
          business_type, business_id, created_at)
       SELECT 'j' || g, 0, $1, 'available', 'USD', 1, g, 'deposit', 'deposit', 'd' || g,
              1700000000 + g
         FROM generate_series(1, $2::int) g`,
      [accountId, n],
    );
    await client.query(
      `INSERT INTO ledger_entry_counts (account_id, currency, record_type, entries)
       SELECT account_id, currency, record_type, count(*) FROM ledger_entries GROUP BY 1, 2, 3`,
    );
    // The balances the records sum to, as posting keeps them (one row per bucket and currency).
    await client.query(
      `INSERT INTO ledger_balances (ledger_account, currency, amount, account_id)
       VALUES ('merchant:' || $1 || ':available', 'USD', $2::numeric, $1),
              ('merchant:' || $1 || ':held', 'USD', 0, $1)`,
      [accountId, n],
    );
    // Autovacuum would otherwise start on the fresh million rows while they are being timed.
    await client.query(
      'VACUUM ANALYZE ledger_journals, ledger_entries, ledger_entry_counts, ledger_balances',
    );
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
};

const meanMs = async (operation) => {
  for (let i = 0; i < warmups; i += 1) await operation();
  const t0 = performance.now();
  for (let i = 0; i < samples; i += 1) await operation();
  return (performance.now() - t0) / samples;
};

const measureSize = async (databaseUrl, n) => {
  const schema = `bench_ledger_${uniqueSuffix()}`;
  const dropSchema = await ownedSchema(databaseUrl, schema);
  try {
    const store = await createPostgresStore({ connectionString: databaseUrl, schema });
    try {
      const t0 = performance.now();
      await fill(databaseUrl, schema, n);
      const fillSeconds = (performance.now() - t0) / 1000;
      const page = await meanMs(() =>
        store.transaction((tx) =>
          tx.ledger.entries({ accountId, limit: 20, offset: 0, sort: 'desc' }),
        ),
      );
      const balances = await meanMs(() => store.transaction((tx) => tx.ledger.balances(accountId)));
      log(
        `ledger at ${n} rows (filled in ${fillSeconds.toFixed(1)} s): page ${page.toFixed(2)} ms, ` +
          `balances ${balances.toFixed(2)} ms`,
      );
      return { rows: n, fillSeconds, pageMs: page, balancesMs: balances };
    } finally {
      await store.close();
    }
  } finally {
    await dropSchema();
  }
};

/** Both sizes, small first; answers each size's means and the large/small ratio per operation. */
export const measureLedgerGrowth = async ({ databaseUrl, ledgerSizes }) => {
  const [smallRows, largeRows] = ledgerSizes;
  const small = await measureSize(databaseUrl, smallRows);
  const large = await measureSize(databaseUrl, largeRows);
  return {
    small,
    large,
    pageRatio: large.pageMs / small.pageMs,
    balancesRatio: large.balancesMs / small.balancesMs,
  };
};
