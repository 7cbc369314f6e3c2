/**
 * The timer loop of a server behind PgBouncer in transaction mode (ADR 0052), configured as an
 * operator would: DATABASE_URL names PgBouncer, PAYRAIL_DATABASE_LISTEN_URL the server itself
 * (a timer another process sets wakes the loop at once, long before its safety net) or `none`
 * (no LISTEN connection; the loop still fires a timer at its due time). Runs wherever a server
 * answers and pgbouncer is installed (CI always); skipped with a message elsewhere.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresStore, type PostgresStore } from '@payrail/store-postgres';
import { type PgBouncer, pgBouncerMissing, startPgBouncer } from '@payrail/store-postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { openConfiguredStore } from './embedded-store.js';
import {
  databaseUrl,
  dropSchema,
  freshSchema,
  postgresSkipped,
  sqlQuery,
} from './process-load.test-support.js';
import { claimingTimerLoop, expiryTimer as timer } from './timer-loop.test-support.js';

const serverSkipped = await postgresSkipped('the timer loop behind PgBouncer');
const missing = pgBouncerMissing();
const skipped = serverSkipped || (missing !== undefined && process.env.CI !== 'true');
if (!serverSkipped && skipped) {
  console.warn(`PgBouncer cannot run here (${missing}): the timer loop behind it is skipped`);
}

/** A minute: the safety net must not be what finds the timer. */
const safetyNetMs = 60_000;

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

describe.skipIf(skipped)('the timer loop behind PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer;
  let dataDir = '';
  const schemas: string[] = [];
  beforeAll(async () => {
    bouncer = await startPgBouncer({ server: databaseUrl, poolSize: 4 });
    dataDir = await mkdtemp(join(tmpdir(), 'payrail-pgbouncer-loop-'));
  });
  afterAll(async () => {
    await bouncer?.stop();
    for (const schema of schemas) await dropSchema(schema);
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The server's store as PAYRAIL_DATABASE_LISTEN_URL = `listen` makes it, and another process's. */
  const open = async (
    listen: string,
  ): Promise<{ readonly behind: PostgresStore; readonly other: PostgresStore }> => {
    const schema = freshSchema('payrail_bouncer');
    schemas.push(schema);
    const parsed = parseConfig(
      {
        DATABASE_URL: bouncer.url,
        PAYRAIL_DATABASE_LISTEN_URL: listen,
        PAYRAIL_DATABASE_SCHEMA: schema,
        PAYRAIL_DATA_DIR: dataDir,
        PAYRAIL_KEY_SECRET: 'k'.repeat(64),
      },
      dataDir,
    );
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const behind = await openConfiguredStore(parsed.config, () => undefined);
    const other = await createPostgresStore({ connectionString: databaseUrl, schema });
    return { behind, other };
  };

  /** A loop over `store` that claims due timers; `fired` lists what it claimed. */
  const loopOver = (store: PostgresStore) => {
    const fired: string[] = [];
    const loop = claimingTimerLoop(store, {
      clock: { now: nowSeconds },
      onWork: store.onWork.bind(store),
      intervalMs: safetyNetMs,
      fired: (t) => fired.push(t.timer_id),
    });
    return { fired, loop };
  };

  const listening = async (schema: string): Promise<number> => {
    const rows = await sqlQuery<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1',
      // The work channel of a plain schema (ADR 0030).
      [`LISTEN "payrail_work_${schema}"`],
    );
    return rows[0]?.n ?? 0;
  };

  it('listening on the server, a timer another process sets wakes the loop, not its safety net', async () => {
    const { behind, other } = await open(databaseUrl);
    const { fired, loop } = loopOver(behind);
    try {
      await expect.poll(() => listening(behind.schema), { timeout: 5000 }).toBe(1);
      await other.transaction((tx) => tx.timers.set(timer('ord_woken', nowSeconds())));
      await expect.poll(() => fired, { timeout: 15_000 }).toEqual(['order.expiry:ord_woken']);
    } finally {
      await loop.stop();
      await other.close();
      await behind.close();
    }
  });

  it('with none it opens no LISTEN connection and still fires a timer at its due time', async () => {
    const { behind, other } = await open('none');
    await other.transaction((tx) => tx.timers.set(timer('ord_due', nowSeconds() + 2)));
    const { fired, loop } = loopOver(behind);
    try {
      await expect.poll(() => fired, { timeout: 15_000 }).toEqual(['order.expiry:ord_due']);
      expect(await listening(behind.schema)).toBe(0);
    } finally {
      await loop.stop();
      await other.close();
      await behind.close();
    }
  });
});
