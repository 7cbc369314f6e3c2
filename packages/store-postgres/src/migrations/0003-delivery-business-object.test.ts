/**
 * 0003 on a schema holding deliveries logged by an earlier release: each takes its business
 * object from the outbox message it last sent, or `null` when that message is not kept, and lists
 * by `business_id` like a delivery written after the upgrade.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExecutor } from '../pglite.executor.js';
import { createPGliteStore } from '../pglite-store.js';
import type { SqlExecutor } from '../sql-executor.js';
import { init } from './0001-init.js';
import { ledgerPostingOrder } from './0002-ledger-posting-order.js';
import { migrate, migrations } from './migrate.js';

let pglite: PGlite;
let executor: SqlExecutor;
const schema = 'deliveries_upgrade';

beforeAll(async () => {
  pglite = await PGlite.create();
  executor = pgliteExecutor(pglite, { ownsDatabase: true });
});
afterAll(() => executor.close());

/** A delivery record as the earlier release wrote it: no business_type, no business_id. */
const earlierDelivery = (id: string, createdAt: number, outboxId?: string) => ({
  delivery_id: id,
  account_id: 'acc_1',
  event_id: `evt_${id}`,
  event_type: 'payout.execution.failed',
  webhook_id: null,
  url: 'https://merchant.example/payout-callback',
  status: 'failed' as const,
  attempts: [
    {
      attempt: 1,
      at: createdAt,
      status_code: 500,
      latency_ms: 10,
      error: 'HTTP 500',
      response_body: '',
    },
  ],
  ...(outboxId === undefined ? {} : { outbox_id: outboxId }),
  created_at: createdAt,
  updated_at: createdAt,
  version: 1,
});

describe('0003-delivery-business-object', () => {
  it('fills the business object of earlier deliveries from their outbox message, else null', async () => {
    expect(await migrate(executor, schema, [init, ledgerPostingOrder])).toEqual([
      '0001-init',
      '0002-ledger-posting-order',
    ]);
    await executor.query(
      `INSERT INTO ${schema}.outbox (outbox_id, event_id, account_id, business_type, business_id,
         event_type, destination_key, destination, payload, status, attempts, available_at, created_at)
       VALUES ('obx_1', 'evt_dlv_1', 'acc_1', 'payout', 'po_1', 'payout.execution.failed',
         'notify_url:x', '{"kind":"notify_url","url":"https://merchant.example/payout-callback"}',
         '{}', 'failed', 8, 100, 100)`,
    );
    const rows = [
      earlierDelivery('dlv_1', 100, 'obx_1'),
      earlierDelivery('dlv_2', 101, 'obx_gone'),
      earlierDelivery('dlv_3', 102),
    ];
    for (const row of rows) {
      await executor.query(
        `INSERT INTO ${schema}.webhook_deliveries
           (id, account_id, event_id, webhook_id, url, status, created_at, updated_at, version, data)
         VALUES ($1, 'acc_1', $2, NULL, $3, 'failed', $4, $4, 1, $5)`,
        [row.delivery_id, row.event_id, row.url, row.created_at, JSON.stringify(row)],
      );
    }

    // Opening a store applies what the schema lacks, the way a new release starts.
    const store = await createPGliteStore({ pglite, schema });
    try {
      const applied = await executor.query<{ id: string }>(
        `SELECT id FROM ${schema}.payrail_migrations ORDER BY id`,
      );
      expect(applied.rows.map((row) => row.id)).toEqual(migrations.map((m) => m.id));
      const read = await store.transaction(async (tx) => ({
        ofPayout: await tx.webhookDeliveries.list({
          scope: 'acc_1',
          where: { business_id: 'po_1' },
          limit: 10,
          offset: 0,
        }),
        unknown: await tx.webhookDeliveries.list({
          scope: 'acc_1',
          where: { business_id: null },
          sort: 'asc',
          limit: 10,
          offset: 0,
        }),
      }));
      expect(read.ofPayout.items).toEqual([
        { ...rows[0], business_type: 'payout', business_id: 'po_1' },
      ]);
      expect(read.unknown.items).toEqual([
        { ...rows[1], business_type: null, business_id: null },
        { ...rows[2], business_type: null, business_id: null },
      ]);

      // A delivery logged after the upgrade lists beside the filled one.
      const { version: _, ...later } = earlierDelivery('dlv_4', 103, 'obx_4');
      await store.transaction((tx) =>
        tx.webhookDeliveries.insert({
          ...later,
          business_type: 'payout',
          business_id: 'po_1',
          status: 'succeeded',
        }),
      );
      const after = await store.transaction((tx) =>
        tx.webhookDeliveries.list({
          scope: 'acc_1',
          where: { business_id: 'po_1' },
          limit: 10,
          offset: 0,
        }),
      );
      expect(after.items.map((delivery) => delivery.delivery_id)).toEqual(['dlv_4', 'dlv_1']);
    } finally {
      await store.close();
    }
  });
});
