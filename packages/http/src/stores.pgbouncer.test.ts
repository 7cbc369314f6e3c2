/**
 * The suites' server store really goes through PgBouncer (ADR 0052): were it to reach the server
 * directly, the HTTP suites would pass without ever meeting a transaction-mode pooler. PgBouncer's
 * own console must list the suites' pool among its clients, in transaction mode.
 */
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import {
  serverThroughPgBouncer,
  storesUnderTest,
  suitesApplicationName,
} from './stores.test-support.js';

const bouncer = inject('pgBouncer');
const variant = storesUnderTest.find((store) => store.name === serverThroughPgBouncer);

/** Rows of `SHOW <what>` on PgBouncer's console (simple queries only). */
const show = async (adminUrl: string, what: 'CLIENTS' | 'POOLS'): Promise<pg.QueryResultRow[]> => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return (await admin.query(`SHOW ${what}`)).rows;
  } finally {
    await admin.end();
  }
};

describe.skipIf(variant === undefined && process.env.CI !== 'true')(serverThroughPgBouncer, () => {
  it('is among the stores under test, in CI always', () => {
    expect(storesUnderTest.map((store) => store.name)).toContain(serverThroughPgBouncer);
  });

  it("is PgBouncer's client, in transaction mode", async () => {
    if (variant === undefined || 'missing' in bouncer) throw new Error('no PgBouncer variant');
    const store = await variant.open();
    await store.transaction((tx) => tx.timers.nextDueAt());
    const clients = await show(bouncer.adminUrl, 'CLIENTS');
    const database = new URL(bouncer.url).pathname.slice(1);
    expect(
      clients.filter(
        (client) =>
          client.application_name === suitesApplicationName && client.database === database,
      ).length,
    ).toBeGreaterThan(0);
    const pools = await show(bouncer.adminUrl, 'POOLS');
    expect(pools.find((pool) => pool.database === database)?.pool_mode).toBe('transaction');
  });
});
