/**
 * A store's `read` (ADR 0054) without a cluster: two PGlite databases stand for the primary and a
 * replica that has not replayed the latest commit yet (the replica is a copy of the schema
 * holding none of the primary's later writes). Reads go to the replica, units of work never do, a
 * replica that cannot be reached sends its reads to the primary, and any other failure of a read
 * is the read's own. The real standby is exercised in packages/server
 * (read-replica.replicated.process.test.ts).
 */
import { PGlite } from '@electric-sql/pglite';
import type { AccountRecord, StoreReads, StoreTransaction } from '@payrail/core';
import { afterEach, describe, expect, it } from 'vitest';
import { pgliteExecutor } from './pglite.executor.js';
import { isUnreachable } from './read-replica.js';
import type { SqlExecutor } from './sql-executor.js';
import { createSqlStore, type PostgresStore } from './sql-store.js';

const schema = 'replica_test';

const account = (id: string): Omit<AccountRecord, 'version'> => ({
  account_id: id,
  merchant_id: 'mch_1',
  status: 'active',
  currencies: ['USD'],
  verification_enabled: false,
  auto_approve: false,
  products: { payout: true, acquiring: true },
  enabled_pay_tokens: [],
  default_pay_tokens: [],
  notify_secret: 'whsec_x',
  created_at: 1,
  updated_at: 1,
});

const accountIds = async (tx: StoreReads): Promise<string[]> =>
  (await tx.accounts.list({ limit: 10, offset: 0, sort: 'asc' })).items.map((a) => a.account_id);

/** An executor that fails every unit of work with `error`, counting them. */
const failing = (error: unknown) => {
  const calls = { transactions: 0, closed: false };
  const executor: SqlExecutor = {
    query: () => Promise.reject(error),
    exec: () => Promise.reject(error),
    transaction: () => {
      calls.transactions += 1;
      return Promise.reject(error);
    },
    close: async () => {
      calls.closed = true;
    },
  };
  return { executor, calls };
};

/** The ports a read was given are a unit of work's: a read that writes by mistake reaches them. */
const isWritable = (tx: StoreReads): tx is StoreTransaction =>
  typeof Reflect.get(tx.accounts, 'insert') === 'function';

/** A read that slips in a write: what the `READ ONLY` transaction must refuse. */
const slippedWrite = async (tx: StoreReads): Promise<void> => {
  if (!isWritable(tx)) throw new Error('the read was given no writable ports');
  await tx.accounts.insert(account('acc_slipped'));
};

const opened: PostgresStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

/** A primary holding `acc_old` and `acc_new`, and what a replica behind it holds: `acc_old`. */
const primaryAndLaggingReplica = async () => {
  const replicaDb = await PGlite.create('memory://');
  const replicaSide = await createSqlStore(
    pgliteExecutor(replicaDb, { ownsDatabase: true }),
    schema,
  );
  await replicaSide.transaction((tx) => tx.accounts.insert(account('acc_old')));
  const primaryDb = await PGlite.create('memory://');
  const primary = pgliteExecutor(primaryDb, { ownsDatabase: true });
  const replica = pgliteExecutor(replicaDb, { ownsDatabase: false });
  const store = await createSqlStore(
    primary,
    schema,
    {},
    { executor: replica, unreachable: isUnreachable },
  );
  opened.push(store, replicaSide);
  await store.transaction(async (tx) => {
    await tx.accounts.insert(account('acc_old'));
    await tx.accounts.insert(account('acc_new'));
  });
  return store;
};

describe('a store with a read replica', () => {
  it('reads on the replica, as far as it has replayed; units of work on the primary', async () => {
    const store = await primaryAndLaggingReplica();
    expect(await store.read(accountIds)).toEqual(['acc_old']);
    expect(await store.transaction(accountIds)).toEqual(['acc_new', 'acc_old'].sort());
  });

  it('reads on the primary when the replica cannot be reached', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5433'), {
      code: 'ECONNREFUSED',
    });
    const replica = failing(refused);
    const store = await createSqlStore(
      pgliteExecutor(await PGlite.create('memory://'), { ownsDatabase: true }),
      schema,
      {},
      { executor: replica.executor, unreachable: isUnreachable },
    );
    opened.push(store);
    await store.transaction((tx) => tx.accounts.insert(account('acc_1')));
    expect(await store.read(accountIds)).toEqual(['acc_1']);
    expect(replica.calls.transactions).toBe(1);
    await store.close();
    expect(replica.calls.closed).toBe(true);
  });

  it('answers a read’s own failure as it is, without running it again on the primary', async () => {
    const replica = failing(Object.assign(new Error('relation does not exist'), { code: '42P01' }));
    const store = await createSqlStore(
      pgliteExecutor(await PGlite.create('memory://'), { ownsDatabase: true }),
      schema,
      {},
      { executor: replica.executor, unreachable: isUnreachable },
    );
    opened.push(store);
    let runs = 0;
    await expect(
      store.read(async (tx) => {
        runs += 1;
        return accountIds(tx);
      }),
    ).rejects.toThrow('relation does not exist');
    expect(runs).toBe(0);
  });

  it('refuses a write slipped into a read, on the replica and on the primary alike', async () => {
    const store = await primaryAndLaggingReplica();
    await expect(store.read(slippedWrite)).rejects.toThrow(/read-only transaction/);
    const alone = await createSqlStore(
      pgliteExecutor(await PGlite.create('memory://'), { ownsDatabase: true }),
      schema,
    );
    opened.push(alone);
    await expect(alone.read(slippedWrite)).rejects.toThrow(/read-only transaction/);
    expect(await alone.transaction(accountIds)).toEqual([]);
    expect(await store.transaction(accountIds)).toEqual(['acc_new', 'acc_old'].sort());
  });

  it('answers a write the replica refused (25006) as the read’s error, not again on the primary', async () => {
    const refused = Object.assign(new Error('cannot execute INSERT in a read-only transaction'), {
      code: '25006',
    });
    const replica = failing(refused);
    const store = await createSqlStore(
      pgliteExecutor(await PGlite.create('memory://'), { ownsDatabase: true }),
      schema,
      {},
      { executor: replica.executor, unreachable: isUnreachable },
    );
    opened.push(store);
    let runs = 0;
    await expect(
      store.read(async (tx) => {
        runs += 1;
        return accountIds(tx);
      }),
    ).rejects.toBe(refused);
    expect(runs).toBe(0);
  });

  it('without a replica, reads on the primary', async () => {
    const store = await createSqlStore(
      pgliteExecutor(await PGlite.create('memory://'), { ownsDatabase: true }),
      schema,
    );
    opened.push(store);
    await store.transaction((tx) => tx.accounts.insert(account('acc_1')));
    expect(await store.read(accountIds)).toEqual(['acc_1']);
  });
});

describe('isUnreachable', () => {
  it('tells a replica that is down or going away from a failing statement', () => {
    const coded = (code: string) => Object.assign(new Error(code), { code });
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P03', '08006']) {
      expect(isUnreachable(coded(code)), code).toBe(true);
    }
    expect(isUnreachable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isUnreachable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    // A write refused in the read's READ ONLY transaction is the read's own error.
    for (const code of ['42P01', '23505', '40001', '25006']) {
      expect(isUnreachable(coded(code)), code).toBe(false);
    }
    expect(isUnreachable(new Error('payout not found'))).toBe(false);
  });
});
