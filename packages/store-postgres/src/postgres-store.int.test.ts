/**
 * What only a real server shows, beyond the conformance suite: a connection killed in the middle
 * of a unit of work commits nothing, deadlocks are retried by running the unit of work again,
 * and outbox and timer claims stay exclusive and ordered across concurrent workers.
 */
import { randomBytes } from 'node:crypto';
import {
  depositJournal,
  isStoreFailure,
  money,
  type NewOutboxMessage,
  type NewRecord,
  type PayoutRecord,
} from '@payrail/core';
import { Client, Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionRolledBack } from './pg-pool.executor.js';
import { serverForTests, serverStores, serverUrl } from './postgres-harness.test-support.js';
import { createPostgresStore } from './postgres-store.js';

const server = await serverForTests();

const payout = (n: number, fields: Partial<PayoutRecord> = {}): NewRecord<PayoutRecord> => ({
  payout_id: `po_${String(n).padStart(4, '0')}`,
  account_id: 'acc_1',
  reference: `ref_${n}`,
  client_request_id: null,
  request_hash: 'hash',
  currency: 'USD',
  amount: '10.00',
  status: 'pending',
  review_status: 'pending_review',
  execution_status: 'not_started',
  batch_id: null,
  snapshot: { value: 'pendingReview', context: { n } },
  created_at: 1_700_000_000,
  updated_at: 1_700_000_000,
  ...fields,
});

/** A promise with its resolver, to hold a unit of work at a chosen point. */
interface Gate {
  readonly open: () => void;
  readonly opened: Promise<void>;
}

const gate = (): Gate => {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
};

describe.skipIf(server.skip)('the store on a PostgreSQL server', () => {
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

  describe('a connection killed in the middle of a unit of work', () => {
    /** A store whose connections are recognizable in pg_stat_activity. */
    const tagged = async () => {
      const tag = `payrail_crash_${randomBytes(4).toString('hex')}`;
      const pool = new Pool({ connectionString: serverUrl, application_name: tag, max: 4 });
      pool.on('error', () => undefined);
      const h = await stores.harness();
      // The harness's schema, on a pool we can find on the server.
      const store = await createPostgresStore({ pool, schema: h.store.schema });
      const kill = async (): Promise<number> => {
        const { rows } = await admin.query(
          `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
            WHERE application_name = $1 AND state = 'idle in transaction'`,
          [tag],
        );
        return rows.length;
      };
      const close = async () => {
        await store.close();
        await pool.end();
        await h.close();
      };
      return { store, oracle: h.oracle, kill, close };
    };

    it('commits nothing when the connection dies before COMMIT', async () => {
      const t = await tagged();
      try {
        const paused = gate();
        const resumed = gate();
        const unit = t.store.transaction(async (tx) => {
          await tx.payouts.insert(payout(1));
          await tx.ledger.post(
            depositJournal({ accountId: 'acc_1', businessId: 'd1' }, money('USD', '5.00')),
            1,
          );
          await tx.outbox.enqueue([]);
          paused.open();
          await resumed.opened;
          // No statement after the kill: COMMIT is the first to find the connection gone.
        });
        await paused.opened;
        expect(await t.kill()).toBe(1);
        resumed.open();
        await expect(unit).rejects.toThrow();
        expect(await t.oracle.count('payouts')).toBe(0);
        expect(await t.oracle.journalIds()).toEqual([]);
        expect(await t.oracle.postings()).toEqual([]);
        // The broken connection left the pool: the next unit of work commits normally.
        await t.store.transaction((tx) => tx.payouts.insert(payout(2)));
        expect(await t.oracle.count('payouts')).toBe(1);
      } finally {
        await t.close();
      }
    });

    it('commits nothing when the connection dies between two statements', async () => {
      const t = await tagged();
      try {
        const paused = gate();
        const resumed = gate();
        const unit = t.store.transaction(async (tx) => {
          await tx.payouts.insert(payout(1));
          paused.open();
          await resumed.opened;
          await tx.payouts.insert(payout(2));
        });
        await paused.opened;
        expect(await t.kill()).toBe(1);
        resumed.open();
        await expect(unit).rejects.toThrow(/terminat|Connection/i);
        expect(await t.oracle.count('payouts')).toBe(0);
      } finally {
        await t.close();
      }
    });
  });

  it('a unit of work that swallows a failed statement commits nothing and is told so', async () => {
    const h = await stores.harness();
    try {
      const unit = h.store.transaction(async (tx) => {
        await tx.payouts.insert(payout(1));
        // A NUL byte is not valid text in PostgreSQL: the statement fails, the work ignores it.
        await tx.payouts
          .list({ where: { status: 'bad\u0000' }, limit: 1, offset: 0 })
          .catch(() => undefined);
        return 'pretends to be fine';
      });
      await expect(unit).rejects.toBeInstanceOf(TransactionRolledBack);
      expect(await h.oracle.count('payouts')).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('a deadlock is retried by running the unit of work again, and both units commit', async () => {
    const h = await stores.harness();
    const timer = (id: string, dueAt: number) => ({
      timer_id: id,
      name: 'order.expiry',
      business_type: 'acquiring',
      business_id: id,
      account_id: 'acc_1',
      due_at: dueAt,
    });
    try {
      await h.store.transaction(async (tx) => {
        await tx.timers.set(timer('t1', 1));
        await tx.timers.set(timer('t2', 1));
      });
      const locked = { a: gate(), b: gate() };
      let attempts = 0;
      // Each unit locks one timer, waits until the other has locked the other one, then asks
      // for it: PostgreSQL detects the deadlock and aborts one of them.
      const crosswise = (first: string, second: string, dueAt: number, mine: Gate, theirs: Gate) =>
        h.store.transaction(async (tx) => {
          attempts++;
          await tx.timers.set(timer(first, dueAt));
          if (attempts <= 2) {
            mine.open();
            await theirs.opened;
          }
          await tx.timers.set(timer(second, dueAt));
        });
      await Promise.all([
        crosswise('t1', 't2', 10, locked.a, locked.b),
        crosswise('t2', 't1', 20, locked.b, locked.a),
      ]);
      expect(attempts).toBe(3);
      // The retried unit committed last, so both timers carry its due_at.
      const dues = (await h.oracle.timers()).map((t) => t.due_at);
      expect(dues[0] === dues[1] && [10, 20].includes(dues[0] ?? 0)).toBe(true);
    } finally {
      await h.close();
    }
  }, 30_000);

  it('four workers claiming concurrently keep each object in order and never hold two of its messages', async () => {
    const h = await stores.harness();
    try {
      const objects = 25;
      const perObject = 6;
      const messages: NewOutboxMessage[] = [];
      for (let m = 0; m < perObject; m++) {
        for (let o = 0; o < objects; o++) {
          messages.push({
            outbox_id: `ob_${o}_${m}`,
            event_id: `ev_${o}_${m}`,
            account_id: 'acc_1',
            business_type: 'payout',
            business_id: `po_${o}`,
            event_type: 'payout.updated',
            destination: { kind: 'webhook', webhookId: 'wh_1' },
            payload: { o, m },
            available_at: 0,
            created_at: 100,
          });
        }
      }
      await h.store.transaction((tx) => tx.outbox.enqueue(messages));
      const inFlight = new Set<string>();
      const delivered = new Map<string, number[]>();
      const violations: string[] = [];
      const work = async (worker: string): Promise<void> => {
        for (;;) {
          const batch = await h.store.transaction((tx) =>
            tx.outbox.claim({ worker, now: 200, limit: 7, leaseSeconds: 600 }),
          );
          if (batch.length === 0) {
            if (inFlight.size === 0) return;
            await new Promise((resolve) => setTimeout(resolve, 2));
            continue;
          }
          for (const message of batch) {
            if (inFlight.has(message.business_id)) violations.push(message.outbox_id);
            inFlight.add(message.business_id);
          }
          await h.store.transaction(async (tx) => {
            for (const message of batch)
              expect(await tx.outbox.complete(message.outbox_id, worker)).toBe(true);
          });
          for (const message of batch) {
            inFlight.delete(message.business_id);
            const order = delivered.get(message.business_id) ?? [];
            order.push((message.payload as { m: number }).m);
            delivered.set(message.business_id, order);
          }
        }
      };
      await Promise.all(['w1', 'w2', 'w3', 'w4'].map(work));
      expect(violations).toEqual([]);
      expect(delivered.size).toBe(objects);
      for (const order of delivered.values()) expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    } finally {
      await h.close();
    }
  }, 60_000);

  it('two workers claiming 500 due timers claim each exactly once', async () => {
    const h = await stores.harness();
    try {
      await h.store.transaction(async (tx) => {
        for (let i = 0; i < 500; i++) {
          await tx.timers.set({
            timer_id: `order.expiry:ord_${i}`,
            name: 'order.expiry',
            business_type: 'acquiring',
            business_id: `ord_${i}`,
            account_id: 'acc_1',
            due_at: 100 + (i % 7),
          });
        }
      });
      const drain = async (worker: string): Promise<string[]> => {
        const claimed: string[] = [];
        for (;;) {
          const batch = await h.store.transaction((tx) =>
            tx.timers.claimDue({ worker, now: 200, limit: 20, leaseSeconds: 600 }),
          );
          if (batch.length === 0) return claimed;
          claimed.push(...batch.map((timer) => timer.timer_id));
        }
      };
      const [a, b] = await Promise.all([drain('w1'), drain('w2')]);
      expect(a.length + b.length).toBe(500);
      expect(new Set([...a, ...b]).size).toBe(500);
    } finally {
      await h.close();
    }
  }, 60_000);

  it('a pool the host passes in stays open after the store closes', async () => {
    const pool = new Pool({ connectionString: serverUrl, max: 2 });
    const h = await stores.harness();
    const store = await createPostgresStore({ pool, schema: h.store.schema });
    await store.close();
    await expect(store.transaction(async () => 1)).rejects.toThrow(/closed/);
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await pool.end();
    await h.close();
  });

  it('refusals inside a unit of work leave it usable: the rest of it commits', async () => {
    const h = await stores.harness();
    try {
      await h.store.transaction(async (tx) => {
        await tx.payouts.insert(payout(1));
        const refused = await tx.payouts
          .insert(payout(2, { reference: 'ref_1' }))
          .catch((e: unknown) => e);
        expect(isStoreFailure(refused) && refused.reason).toBe('unique_violation');
        await tx.payouts.insert(payout(3));
      });
      expect(await h.oracle.count('payouts')).toBe(2);
    } finally {
      await h.close();
    }
  });
});
