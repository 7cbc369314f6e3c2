/**
 * The embedded store on its own: in memory by default, on a data directory that a new store
 * opens again, units of work one at a time, exact NUMERIC balances, and the guards around a
 * unit of work.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import {
  balancesOf,
  type Currency,
  Decimal,
  depositJournal,
  formatAmount,
  isStoreFailure,
  type Journal,
  money,
  payoutHoldJournal,
  payoutReleaseJournal,
  payoutSettleJournals,
  type StoreTransaction,
} from '@payrail/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { exitOf, ownerProcess } from './owner-process.test-support.js';
import { createPGliteStore } from './pglite-store.js';
import { pgliteStores } from './postgres-harness.test-support.js';
import { createPostgresStore } from './postgres-store.js';
import { postgresOracle } from './testing/index.js';

const stores = pgliteStores('memory');
afterAll(() => stores.close());

const idempotency = (key: string) => ({
  scope: 'acc_1',
  key,
  request_hash: 'h',
  resource_id: `po_${key}`,
  created_at: 1,
});

describe('createPGliteStore', () => {
  it('runs in memory without options, and refuses units of work once closed', async () => {
    const store = await createPGliteStore();
    await store.transaction((tx) => tx.idempotency.put(idempotency('k1')));
    expect(await store.transaction((tx) => tx.idempotency.get('acc_1', 'k1'))).toEqual(
      idempotency('k1'),
    );
    expect(store.schema).toBe('payrail');
    await store.close();
    expect(store.closed).toBe(true);
    await expect(store.transaction(async () => 1)).rejects.toThrow(/closed/);
  });

  it('keeps its data in a data directory that a new store opens again, one store at a time', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'payrail-pglite-test-'));
    try {
      const first = await createPGliteStore({ dataDir });
      await first.transaction(async (tx) => {
        await tx.idempotency.put(idempotency('k1'));
        await tx.ledger.post(
          depositJournal({ accountId: 'acc_1', businessId: 'd1' }, money('USD', '7.50')),
          1,
        );
      });
      // One owner at a time: a second store on the directory is refused while the first is open.
      await expect(createPGliteStore({ dataDir })).rejects.toThrow(
        `${dataDir} is already open in this process (pid ${process.pid})`,
      );
      await first.close();
      const second = await createPGliteStore({ dataDir });
      try {
        const seen = await second.transaction(async (tx) => ({
          key: await tx.idempotency.get('acc_1', 'k1'),
          balances: await tx.ledger.balances('acc_1'),
        }));
        expect(seen).toEqual({
          key: idempotency('k1'),
          balances: [{ currency: 'USD', available: '7.50', held: '0.00' }],
        });
      } finally {
        await second.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 30_000);

  it('on a data directory: refuses a second process while one holds it, and keeps what it committed through a SIGKILL', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'payrail-pglite-owner-'));
    try {
      const owner = await ownerProcess('createPGliteStore', dataDir);
      await expect(createPGliteStore({ dataDir })).rejects.toThrow(
        `another payrail process (pid ${owner.child.pid}) is using ${dataDir}`,
      );
      owner.child.kill('SIGKILL');
      expect(await exitOf(owner.child)).toBe('SIGKILL');
      // A process crash loses nothing it committed (an OS crash may: ADR 0037).
      const after = await createPGliteStore({ dataDir });
      try {
        expect(await after.transaction((tx) => tx.ledger.balances('acc_1'))).toEqual([
          { currency: 'USD', available: '5.00', held: '0.00' },
        ]);
      } finally {
        await after.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('runs units of work one after another on its single connection', async () => {
    const h = await stores.harness();
    try {
      const timeline: string[] = [];
      const unit = (name: string) =>
        h.store.transaction(async (tx) => {
          timeline.push(`${name} starts`);
          await tx.idempotency.put(idempotency(name));
          await new Promise((resolve) => setTimeout(resolve, 5));
          await tx.idempotency.get('acc_1', name);
          timeline.push(`${name} ends`);
        });
      await Promise.all([unit('a'), unit('b'), unit('c')]);
      expect(timeline).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
    } finally {
      await h.close();
    }
  });
});

describe('a unit of work', () => {
  it('that swallows a failed statement commits nothing and rejects', async () => {
    const h = await stores.harness();
    try {
      const unit = h.store.transaction(async (tx) => {
        await tx.idempotency.put(idempotency('k1'));
        // A NUL byte is not valid text in PostgreSQL: the statement fails, the work ignores it.
        await tx.payouts
          .list({ where: { status: 'bad\u0000' }, limit: 1, offset: 0 })
          .catch(() => undefined);
      });
      await expect(unit).rejects.toThrow();
      expect(await h.oracle.idempotencyCount()).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('stays usable after a refusal: the refused operation wrote nothing, the rest commits', async () => {
    const h = await stores.harness();
    try {
      await h.store.transaction(async (tx) => {
        await tx.ledger.post(
          depositJournal({ accountId: 'acc_1', businessId: 'd1' }, money('USD', '1.00')),
          1,
        );
        const refused = await tx.ledger
          .post(
            payoutHoldJournal({ accountId: 'acc_1', businessId: 'po_1' }, money('USD', '2.00')),
            2,
          )
          .catch((error: unknown) => error);
        expect(isStoreFailure(refused) && refused.reason).toBe('insufficient_balance');
        await tx.idempotency.put(idempotency('k1'));
      });
      expect(await h.oracle.journalIds()).toEqual(['d1:deposit']);
      expect(await h.oracle.idempotencyCount()).toBe(1);
    } finally {
      await h.close();
    }
  });

  it('refuses to be used after it ended', async () => {
    const h = await stores.harness();
    try {
      let kept: StoreTransaction | undefined;
      await h.store.transaction(async (tx) => {
        kept = tx;
      });
      expect(() => kept?.idempotency.get('acc_1', 'k1')).toThrow(/already ended/);
    } finally {
      await h.close();
    }
  });
});

describe('createPostgresStore', () => {
  it('says what it needs when it has no connection string, pool, or DATABASE_URL', () => {
    const saved = process.env.DATABASE_URL;
    delete process.env.DATABASE_URL;
    try {
      expect(() => createPostgresStore()).toThrow(/connectionString, a pool, or DATABASE_URL/);
    } finally {
      if (saved !== undefined) process.env.DATABASE_URL = saved;
    }
  });
});

describe('the ledger on NUMERIC', () => {
  it('keeps amounts with 24 integer digits exact', async () => {
    const h = await stores.harness();
    try {
      const big = '999999999999999999999999.999999';
      await h.store.transaction(async (tx) => {
        await tx.ledger.post(
          depositJournal({ accountId: 'acc_1', businessId: 'd1' }, money('USDT', big)),
          1,
        );
        await tx.ledger.post(
          payoutHoldJournal({ accountId: 'acc_1', businessId: 'po_1' }, money('USDT', '0.000001')),
          2,
        );
      });
      expect(await h.store.transaction((tx) => tx.ledger.balances('acc_1'))).toEqual([
        { currency: 'USDT', available: '999999999999999999999999.999998', held: '0.000001' },
      ]);
      const postings = await h.oracle.postings();
      expect(postings.map((p) => p.amount)).toContain('-999999999999999999999999.999999');
    } finally {
      await h.close();
    }
  });

  type Step =
    | { kind: 'deposit'; currency: Currency; amount: string }
    | { kind: 'hold' | 'release' | 'settle'; currency: Currency; amount: string; payout: number };

  const amount = fc
    .tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 99 }))
    .map(([whole, cents]) => `${whole}.${String(cents).padStart(2, '0')}`);
  const currency = fc.constantFrom<Currency>('USD', 'USDT');
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('deposit' as const), currency, amount }),
    fc.record({
      kind: fc.constantFrom('hold' as const, 'release' as const, 'settle' as const),
      currency,
      amount,
      payout: fc.integer({ min: 0, max: 4 }),
    }),
  );

  const journalsOf = (s: Step, n: number): readonly Journal[] => {
    const value = money(s.currency, s.amount);
    if (s.kind === 'deposit')
      return [depositJournal({ accountId: 'acc_1', businessId: `d${n}` }, value)];
    const head = { accountId: 'acc_1', businessId: `po_${s.payout}_${n}` };
    if (s.kind === 'hold') return [payoutHoldJournal(head, value)];
    if (s.kind === 'release') return [payoutReleaseJournal(head, value)];
    return payoutSettleJournals(head, value, money(s.currency, '0.01'));
  };

  it('matches a decimal model and its own postings over random journals, never below zero', async () => {
    // Each run opens a store and empties its schema afterwards: 300 runs (not the global 1000)
    // keep this file within seconds on two cores and still cover refusals, multi-journal
    // settles and both currencies.
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 25 }), async (steps) => {
        const h = await stores.harness();
        try {
          const model = new Map<string, Decimal>();
          const get = (key: string) => model.get(key) ?? new Decimal(0);
          for (const [n, s] of steps.entries()) {
            const journals = journalsOf(s, n);
            const next = new Map(model);
            for (const j of journals) {
              for (const p of j.postings) {
                if (!p.ledgerAccount.startsWith('merchant:')) continue;
                const key = `${p.ledgerAccount}|${p.currency}`;
                next.set(key, (next.get(key) ?? get(key)).plus(p.amount));
              }
            }
            const fits = [...next.values()].every((v) => v.greaterThanOrEqualTo(0));
            const outcome = await h.store
              .transaction(async (tx) => {
                for (const j of journals) await tx.ledger.post(j, n);
                return 'posted';
              })
              .catch((error: unknown) =>
                isStoreFailure(error) ? error.reason : Promise.reject(error),
              );
            expect(outcome).toBe(fits ? 'posted' : 'insufficient_balance');
            if (fits) for (const [k, v] of next) model.set(k, v);
          }
          const balances = await h.store.transaction((tx) => tx.ledger.balances('acc_1'));
          const expected = (['USD', 'USDT'] as const)
            .filter(
              (c) =>
                model.has(`merchant:acc_1:available|${c}`) || model.has(`merchant:acc_1:held|${c}`),
            )
            .map((c) => ({
              currency: c,
              available: formatAmount({ currency: c, value: get(`merchant:acc_1:available|${c}`) }),
              held: formatAmount({ currency: c, value: get(`merchant:acc_1:held|${c}`) }),
            }));
          expect(balances).toEqual(expected);
          const fromPostings = balancesOf('acc_1', await h.oracle.postings());
          expect([...fromPostings].sort((a, b) => a.currency.localeCompare(b.currency))).toEqual(
            balances,
          );
        } finally {
          await h.close();
        }
      }),
      { numRuns: 300 },
    );
  }, 120_000);
});

describe('postgresOracle', () => {
  it('refuses a store it did not make', () => {
    expect(() => postgresOracle({} as never)).toThrow(/not a store made by/);
  });
});

describe('planner statistics', () => {
  const enqueue = (store: Awaited<ReturnType<typeof createPGliteStore>>, batch: number) =>
    store.transaction((tx) =>
      tx.outbox.enqueue(
        Array.from({ length: 10 }, (_, j) => ({
          outbox_id: `obx_${batch}_${j}`,
          event_id: `evt_${batch}_${j}`,
          account_id: 'acc_1',
          business_type: 'payout',
          business_id: `po_${batch}_${j}`,
          event_type: 'payout.review.approved',
          destination: { kind: 'notify_url' as const, url: 'https://example.com/hook' },
          payload: {},
          available_at: 1,
          created_at: 1,
        })),
      ),
    );

  it('runs ANALYZE every analyzeEvery units of work, since PGlite has no autovacuum', async () => {
    const pglite = await PGlite.create('memory://');
    // Opening the store migrates it: that is its first unit of work.
    const store = await createPGliteStore({ pglite, schema: 'stats', analyzeEvery: 3 });
    const estimate = async (): Promise<number> => {
      const { rows } = await pglite.query<{ reltuples: number }>(
        `SELECT reltuples FROM pg_class WHERE oid = 'stats.outbox'::regclass`,
      );
      return Number(rows[0]?.reltuples);
    };
    try {
      await enqueue(store, 1);
      expect(await estimate()).toBeLessThanOrEqual(0); // never analyzed yet
      await enqueue(store, 2); // the third unit of work: ANALYZE runs after it commits
      expect(await estimate()).toBe(20);
    } finally {
      await store.close();
      await pglite.close();
    }
  });
});
