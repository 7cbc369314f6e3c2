/**
 * The suite must fail a store that breaks the contract, or passing it proves nothing. Here the
 * memory store is wrapped to break one rule at a time, the suite is collected with a runner of
 * our own, and the tests that guard that rule must fail (the model-based run among them: against
 * the memory store itself it can only agree, so this is where it shows that it bites).
 */
import assert from 'node:assert/strict';
import {
  type LedgerPort,
  merchantPostingsOf,
  type OutboxPort,
  type Store,
  type StoreTransaction,
  type TimerPort,
} from '@payrail/core';
import { runStoreConformance, type StoreHarness } from '@payrail/store-testkit';
import { describe, it } from 'vitest';
import { createMemoryHarness } from './memory-harness.test-support.js';

interface CollectedTest {
  readonly title: string;
  readonly body: () => Promise<void> | void;
}

const collect = (
  createHarness: () => Promise<StoreHarness>,
  reopen?: (harness: StoreHarness) => Promise<StoreHarness>,
): readonly CollectedTest[] => {
  const tests: CollectedTest[] = [];
  const path: string[] = [];
  runStoreConformance({
    name: 'broken',
    describe: (name, body) => {
      path.push(name);
      body();
      path.pop();
    },
    it: (name, body) => tests.push({ title: [...path.slice(1), name].join(' > '), body }),
    createHarness,
    createModel: createMemoryHarness,
    // Enough random sequences that each broken store below is caught on every seed tried.
    modelRuns: 300,
    capabilities: {
      concurrentTransactions: { supported: false, reason: 'wrapped memory store' },
      durable:
        reopen === undefined
          ? { supported: false, reason: 'wrapped memory store' }
          : { supported: true },
    },
    ...(reopen === undefined ? {} : { reopen }),
  });
  return tests;
};

/** Titles of the tests matching `pattern` that fail on the store `createHarness` makes. */
const failing = async (
  createHarness: () => Promise<StoreHarness>,
  pattern: RegExp,
  reopen?: (harness: StoreHarness) => Promise<StoreHarness>,
): Promise<readonly string[]> => {
  const failed: string[] = [];
  for (const test of collect(createHarness, reopen).filter((t) => pattern.test(t.title))) {
    try {
      await test.body();
    } catch {
      failed.push(test.title);
    }
  }
  return failed;
};

/** A wrapper breaks one rule; what it leaves out (the environment claim) passes through. */
type BrokenStore = Omit<Store, 'claimEnvironment'> & Partial<Pick<Store, 'claimEnvironment'>>;

const wrapped = (wrap: (store: Store) => BrokenStore) => async (): Promise<StoreHarness> => {
  const harness = await createMemoryHarness();
  const inner = harness.store;
  return {
    ...harness,
    store: {
      claimEnvironment: (environment) => inner.claimEnvironment(environment),
      ...wrap(inner),
    },
  };
};

/** Every operation commits on its own: no unit of work at all. */
const autocommit = wrapped((inner) => {
  const port = <K extends keyof StoreTransaction>(name: K): StoreTransaction[K] =>
    new Proxy({} as StoreTransaction[K], {
      get:
        (_, method: string) =>
        (...args: unknown[]) =>
          inner.transaction((tx) => {
            const target = tx[name] as unknown as Record<string, (...a: unknown[]) => unknown>;
            return Promise.resolve(target[method]?.(...args));
          }),
    });
  const tx = new Proxy({} as StoreTransaction, {
    get: (_, name: string) => port(name as keyof StoreTransaction),
  });
  return { transaction: (work) => work(tx), close: () => inner.close() };
});

/** Updates always win: the version a caller read is ignored. */
const lastWriterWins = wrapped((inner) => ({
  transaction: (work) =>
    inner.transaction((tx) =>
      work({
        ...tx,
        payouts: {
          ...tx.payouts,
          update: async (record) => {
            const current = await tx.payouts.get(record.payout_id);
            return tx.payouts.update({ ...record, version: current?.version ?? record.version });
          },
        },
      }),
    ),
  close: () => inner.close(),
}));

/** Claims come back newest first. */
const unorderedClaims = wrapped((inner) => ({
  transaction: (work) =>
    inner.transaction((tx) => {
      const outbox: OutboxPort = {
        ...tx.outbox,
        claim: async (options) => [...(await tx.outbox.claim(options))].reverse(),
      };
      return work({ ...tx, outbox });
    }),
  close: () => inner.close(),
}));

/** Ledger entries tie-broken by journal id (the old rule), not by posting order. */
const idOrderedLedger = wrapped((inner) => ({
  transaction: (work) =>
    inner.transaction((tx) => {
      const ledger: LedgerPort = {
        ...tx.ledger,
        entries: async (query) => {
          const all = await tx.ledger.entries({ ...query, limit: 10_000, offset: 0 });
          const direction = query.sort === 'asc' ? 1 : -1;
          const sorted = [...all.items].sort(
            (a, b) =>
              direction *
              (a.created_at - b.created_at ||
                (a.journal_id < b.journal_id ? -1 : a.journal_id > b.journal_id ? 1 : 0)),
          );
          return {
            ...all,
            items: sorted.slice(query.offset, query.offset + query.limit),
            limit: query.limit,
            offset: query.offset,
          };
        },
      };
      return work({ ...tx, ledger });
    }),
  close: () => inner.close(),
}));

/**
 * `balance_after` as the bucket stood when the journal was posted (posting order), not in the
 * ledger's order: wrong once a journal is posted with an earlier created_at than records
 * already written.
 */
const postingTimeBalances = wrapped((inner) => {
  const written = new Map<string, string>();
  return {
    transaction: (work) =>
      inner.transaction((tx) => {
        const ledger: LedgerPort = {
          ...tx.ledger,
          post: async (journal, at) => {
            await tx.ledger.post(journal, at);
            for (const p of merchantPostingsOf(journal)) {
              const balance = (await tx.ledger.balances(p.accountId)).find(
                (b) => b.currency === p.currency,
              );
              if (balance) written.set(`${journal.journalId} ${p.bucket}`, balance[p.bucket]);
            }
          },
          entries: async (query) => {
            const page = await tx.ledger.entries(query);
            return {
              ...page,
              items: page.items.map((r) => ({
                ...r,
                balance_after: written.get(`${r.journal_id} ${r.bucket}`) ?? r.balance_after,
              })),
            };
          },
        };
        return work({ ...tx, ledger });
      }),
    close: () => inner.close(),
  };
});

/** Every claim answers what it asked for: nothing is recorded (ADR 0035). */
const forgetfulEnvironment = wrapped((inner) => ({
  transaction: (work) => inner.transaction(work),
  claimEnvironment: async (environment) => environment,
  close: () => inner.close(),
}));

/** Claims ignore the buckets asked for (ADR 0053): every bucket, always. */
const bucketBlindClaims = wrapped((inner) => ({
  transaction: (work) =>
    inner.transaction((tx) => {
      const outbox: OutboxPort = {
        ...tx.outbox,
        claim: ({ buckets: _ignored, ...options }) => tx.outbox.claim(options),
      };
      const timers: TimerPort = {
        ...tx.timers,
        claimDue: ({ buckets: _ignored, ...options }) => tx.timers.claimDue(options),
      };
      return work({ ...tx, outbox, timers });
    }),
  close: () => inner.close(),
}));

/** A memory store whose `close()` keeps it open, so "reopening" it finds the same data. */
const keptOpen = wrapped((inner) => ({
  transaction: (work) => inner.transaction(work),
  close: async () => {},
}));

describe('the conformance suite fails broken stores', () => {
  it('collects every test of the suite under our own runner', () => {
    assert.ok(collect(createMemoryHarness).length > 300);
  });

  it('an unwrapped memory store passes the tests used below', async () => {
    const pattern =
      /crash safety|stale version|claim answers the oldest|posting order|earlier created_at|model-based/;
    assert.deepEqual(await failing(createMemoryHarness, pattern), []);
  });

  it('a store without units of work fails crash safety and the model-based run', async () => {
    const failed = await failing(autocommit, /unit of work|model-based/);
    assert.ok(
      failed.some((t) => t.includes('crash safety')),
      failed.join('\n'),
    );
    assert.ok(
      failed.some((t) => t.includes('model-based')),
      failed.join('\n'),
    );
  });

  it('a store that ignores versions fails optimistic concurrency and the model-based run', async () => {
    const failed = await failing(lastWriterWins, /collection payouts|model-based/);
    assert.ok(
      failed.some((t) => t.includes('stale version')),
      failed.join('\n'),
    );
    assert.ok(
      failed.some((t) => t.includes('model-based')),
      failed.join('\n'),
    );
  });

  it('a store that claims out of order fails the outbox tests and the model-based run', async () => {
    const failed = await failing(unorderedClaims, /outbox|model-based/);
    assert.ok(
      failed.some((t) => t.includes('oldest first')),
      failed.join('\n'),
    );
    assert.ok(
      failed.some((t) => t.includes('model-based')),
      failed.join('\n'),
    );
  });

  it('a store whose claims ignore their buckets fails every claims-by-bucket test', async () => {
    const failed = await failing(bucketBlindClaims, /work bucket/);
    for (const title of [
      'outbox: a claim for a bucket',
      'timers: a claim for a bucket',
      'disjoint buckets',
    ]) {
      assert.ok(
        failed.some((t) => t.includes(title)),
        `${title}\n${failed.join('\n')}`,
      );
    }
    assert.deepEqual(await failing(createMemoryHarness, /work bucket/), []);
  });

  it('a store that orders ledger ties by journal id fails the posting-order tests and the model-based run', async () => {
    const failed = await failing(idOrderedLedger, /ledger|model-based/);
    assert.ok(
      failed.some((t) => t.includes('in the order they were posted')),
      failed.join('\n'),
    );
    assert.ok(
      failed.some((t) => t.includes('then posting order')),
      failed.join('\n'),
    );
    assert.ok(
      failed.some((t) => t.includes('model-based')),
      failed.join('\n'),
    );
  });

  it('a store that keeps balance_after as of posting fails the back-dated and replay tests and the model-based run', async () => {
    const failed = await failing(postingTimeBalances, /ledger|model-based/);
    assert.ok(
      failed.some((t) => t.includes('earlier created_at')),
      failed.join('\n'),
    );
    assert.ok(
      failed.some((t) => t.includes('model-based')),
      failed.join('\n'),
    );
  });

  it('the durability test passes a store that keeps its data and fails one that loses it', async () => {
    const keeps = async (harness: StoreHarness) => harness;
    assert.deepEqual(await failing(keptOpen, /durability/, keeps), []);
    const loses = () => createMemoryHarness();
    const failed = await failing(keptOpen, /durability/, loses);
    assert.equal(failed.length, 2, 'both durability tests ran and failed');
  });

  it('a store that records no environment fails the environment tests', async () => {
    assert.deepEqual(await failing(createMemoryHarness, /environment/), []);
    const failed = await failing(forgetfulEnvironment, /environment/);
    assert.ok(
      failed.some((t) => t.includes('records the first claim (sandbox)')),
      failed.join('\n'),
    );
    assert.ok(
      failed.some((t) => t.includes('records the first claim (live)')),
      failed.join('\n'),
    );
    assert.ok(
      failed.some((t) => t.includes('concurrent first claims agree')),
      failed.join('\n'),
    );
  });
});
