/**
 * What readiness and metrics read of a store (docs/observability.md): the outbox's pending
 * messages and the oldest one's `created_at`, and the connection pool's use, on PGlite and on a
 * PostgreSQL server.
 */
import type { NewOutboxMessage } from '@payrail/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createPGliteStore } from './pglite-store.js';
import { freshSchema, serverForTests, serverUrl } from './postgres-harness.test-support.js';
import { createPostgresStore } from './postgres-store.js';
import { isPostgresStore, type PostgresStore } from './sql-store.js';

const server = await serverForTests();

const message = (n: number, createdAt: number): NewOutboxMessage => ({
  outbox_id: `obx_${n}`,
  event_id: `evt_${n}`,
  account_id: 'acc_1',
  business_type: 'payout',
  business_id: `po_${n}`,
  event_type: 'payout.created',
  destination: { kind: 'notify_url', url: 'https://merchant.example.com/cb' },
  payload: { n },
  available_at: createdAt,
  created_at: createdAt,
});

const opened: PostgresStore[] = [];
afterAll(async () => {
  for (const store of opened) await store.close();
});

/** Three messages, the oldest delivered: two pending, the oldest of them created at 1_700_000_020. */
const expectBacklog = async (store: PostgresStore): Promise<void> => {
  expect(await store.outboxBacklog()).toEqual({ pending: 0, oldestCreatedAt: undefined });
  await store.transaction((tx) =>
    tx.outbox.enqueue([
      message(1, 1_700_000_010),
      message(2, 1_700_000_020),
      message(3, 1_700_000_030),
    ]),
  );
  const [first] = await store.transaction((tx) =>
    tx.outbox.claim({ worker: 'w', now: 1_700_000_100, limit: 1, leaseSeconds: 60 }),
  );
  expect(first?.outbox_id).toBe('obx_1');
  await store.transaction((tx) => tx.outbox.complete('obx_1', 'w'));
  expect(await store.outboxBacklog()).toEqual({ pending: 2, oldestCreatedAt: 1_700_000_020 });
};

describe('store probes on PGlite', () => {
  it('counts the pending outbox and names its oldest; has no pool', async () => {
    const store = await createPGliteStore();
    opened.push(store);
    expect(isPostgresStore(store)).toBe(true);
    expect(isPostgresStore({ transaction: () => undefined })).toBe(false);
    await expectBacklog(store);
    expect(store.poolUse()).toBeUndefined();
  });
});

describe.skipIf(server.skip)('store probes on a PostgreSQL server', () => {
  it('counts the pending outbox, and tells the pool’s connections as they are used', async () => {
    const store = await createPostgresStore({
      connectionString: serverUrl,
      schema: freshSchema(),
      maxConnections: 3,
    });
    opened.push(store);
    await expectBacklog(store);
    // Two units of work hold a connection each while a third is looked at.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const busy = [1, 2].map(() => store.transaction(() => held));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(store.poolUse()).toEqual({ total: 2, idle: 0, waiting: 0, max: 3 });
    release();
    await Promise.all(busy);
    expect(store.poolUse()).toMatchObject({ total: 2, idle: 2, waiting: 0, max: 3 });
  });
});
