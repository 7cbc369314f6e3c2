/**
 * `onWork` across processes: two stores on one schema (as two server processes) hear each
 * other's committed work through LISTEN/NOTIFY, never a rolled-back unit of work, never a store
 * on another schema; each hears its own work once; `close()` ends the listening connection.
 * Behind PgBouncer in transaction mode (ADR 0052) they hear each other through a LISTEN on the
 * server itself (`listenConnectionString`); with LISTEN off they still hear their own and still
 * tell others.
 */
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverForTests, serverStores, serverUrl } from './postgres-harness.test-support.js';
import { createPostgresStore } from './postgres-store.js';
import { type PostgresStore, workChannelOf } from './sql-store.js';
import { type PgBouncer, pgBouncerMissing, startPgBouncer } from './testing/index.js';

const server = await serverForTests();

const message = (id: string) => ({
  outbox_id: id,
  event_id: `evt_${id}`,
  account_id: 'acc_1',
  business_type: 'payout',
  business_id: `po_${id}`,
  event_type: 'payout.created',
  destination: { kind: 'webhook', webhookId: 'wh_1' } as const,
  payload: { id },
  available_at: 1_700_000_000,
  created_at: 1_700_000_000,
});

/** Counts a store's work signals; `next()` resolves at the next one. */
const hear = (store: PostgresStore) => {
  let count = 0;
  let waiting: (() => void) | undefined;
  const unsubscribe = store.onWork(() => {
    count += 1;
    waiting?.();
    waiting = undefined;
  });
  return {
    get count() {
      return count;
    },
    next: () =>
      new Promise<void>((resolve) => {
        waiting = resolve;
      }),
    unsubscribe,
  };
};

describe.skipIf(server.skip)('onWork on a PostgreSQL server', () => {
  const stores = serverStores();
  let admin: Client;
  beforeAll(async () => {
    admin = new Client({ connectionString: serverUrl });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await stores.close();
  });

  /** Listening connections on the channel of `schema`, from pg_stat_activity. */
  const listeners = async (schema: string): Promise<number> => {
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1`,
      [`LISTEN "${workChannelOf(schema)}"`],
    );
    return (rows[0] as { n: number }).n;
  };

  it("two stores on one schema hear each other's commits, once each, and no rollback", async () => {
    const h = await stores.harness();
    const other = await createPostgresStore({
      connectionString: serverUrl,
      schema: h.store.schema,
    });
    const elsewhere = await stores.harness();
    try {
      const a = hear(h.store);
      const b = hear(other);
      const c = hear(elsewhere.store);
      // The listening connections open with the first subscription; wait until both listen.
      await expect.poll(() => listeners(h.store.schema), { timeout: 5000 }).toBe(2);

      const heardByA = a.next();
      await other.transaction((tx) => tx.outbox.enqueue([message('ob_1')]));
      expect(b.count).toBe(1);
      await heardByA;
      expect(a.count).toBe(1);

      await expect(
        other.transaction(async (tx) => {
          await tx.timers.set({
            timer_id: 'order.expiry:ord_1',
            name: 'order.expiry',
            business_type: 'acquiring',
            business_id: 'ord_1',
            account_id: 'acc_1',
            due_at: 1_700_000_000,
          });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');

      // Notifications arrive in commit order: by the time B hears this, it has also seen (and
      // skipped) the copy of its own first commit, and A would have heard the rolled-back one.
      const heardByB = b.next();
      const heardByAAgain = a.next();
      await h.store.transaction((tx) => tx.outbox.enqueue([message('ob_2')]));
      await heardByB;
      await heardByAAgain;
      expect(a.count).toBe(2);
      expect(b.count).toBe(2);
      expect(c.count).toBe(0);
      a.unsubscribe();
      b.unsubscribe();
      c.unsubscribe();
    } finally {
      await other.close();
      await elsewhere.close();
      await h.close();
    }
  });

  it('close() ends the listening connection', async () => {
    const h = await stores.harness();
    const store = await createPostgresStore({
      connectionString: serverUrl,
      schema: h.store.schema,
    });
    try {
      expect(await listeners(store.schema)).toBe(0);
      const heard = hear(store);
      await expect.poll(() => listeners(store.schema), { timeout: 5000 }).toBe(1);
      heard.unsubscribe();
      await store.close();
      await expect.poll(() => listeners(h.store.schema), { timeout: 5000 }).toBe(0);
    } finally {
      await store.close();
      await h.close();
    }
  });
});

/** Outside CI a machine without pgbouncer skips these, with a message; in CI they fail. */
const bouncerMissing = server.skip ? 'no server' : pgBouncerMissing();
if (bouncerMissing !== undefined && process.env.CI !== 'true') {
  console.warn(`PgBouncer cannot run here (${bouncerMissing}): its onWork tests are skipped`);
}

describe.skipIf(bouncerMissing !== undefined && process.env.CI !== 'true')(
  'onWork behind PgBouncer in transaction mode',
  () => {
    const stores = serverStores();
    let bouncer: PgBouncer;
    let admin: Client;
    beforeAll(async () => {
      bouncer = await startPgBouncer({ server: serverUrl, poolSize: 4 });
      admin = new Client({ connectionString: serverUrl });
      await admin.connect();
    });
    afterAll(async () => {
      await admin?.end();
      await stores.close();
      await bouncer?.stop();
    });

    const listeners = async (schema: string): Promise<number> => {
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1`,
        [`LISTEN "${workChannelOf(schema)}"`],
      );
      return (rows[0] as { n: number }).n;
    };

    it("stores on PgBouncer that LISTEN on the server hear each other's commits", async () => {
      const h = await stores.harness();
      const through = (listenConnectionString: string) =>
        createPostgresStore({
          connectionString: bouncer.url,
          schema: h.store.schema,
          listenConnectionString,
        });
      const a = await through(serverUrl);
      const b = await through(serverUrl);
      try {
        const heardByA = hear(a);
        const heardByB = hear(b);
        await expect.poll(() => listeners(h.store.schema), { timeout: 5000 }).toBe(2);
        const woken = heardByA.next();
        await b.transaction((tx) => tx.outbox.enqueue([message('ob_b1')]));
        await woken;
        expect(heardByA.count).toBe(1);
        expect(heardByB.count).toBe(1);
        heardByA.unsubscribe();
        heardByB.unsubscribe();
      } finally {
        await a.close();
        await b.close();
        await h.close();
      }
    });

    it('with LISTEN off a store opens no listening connection, hears its own work, and still tells others', async () => {
      const h = await stores.harness();
      const silent = await createPostgresStore({
        connectionString: bouncer.url,
        schema: h.store.schema,
        listenConnectionString: false,
      });
      try {
        const direct = hear(h.store);
        const own = hear(silent);
        await expect.poll(() => listeners(h.store.schema), { timeout: 5000 }).toBe(1);
        const heardDirect = direct.next();
        await silent.transaction((tx) => tx.outbox.enqueue([message('ob_s1')]));
        expect(own.count).toBe(1);
        await heardDirect;
        expect(direct.count).toBe(1);
        // Another's commit reaches the silent store only through its loops' safety net.
        await h.store.transaction((tx) => tx.outbox.enqueue([message('ob_s2')]));
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(own.count).toBe(1);
        expect(await listeners(h.store.schema)).toBe(1);
        direct.unsubscribe();
        own.unsubscribe();
      } finally {
        await silent.close();
        await h.close();
      }
    });
  },
);

describe('the work channel', () => {
  it('is payrail_work_<schema> for a plain schema, else a hash within 63 bytes', () => {
    expect(workChannelOf('payrail')).toBe('payrail_work_payrail');
    const odd = workChannelOf('Payrail "tenant" 1');
    expect(odd).toMatch(/^payrail_work_[0-9a-f]{40}$/);
    expect(workChannelOf('x'.repeat(60)).length).toBeLessThanOrEqual(63);
  });
});
