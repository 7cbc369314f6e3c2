/**
 * 0010 (issue 23): a schema written before it keeps every row and reads as before, and its rows
 * are filed as the new keys need: the deposit addresses already handed out are claimed (so
 * another merchant's order can never take one), the postings and balances take their account,
 * a platform object's audit record the empty account id, and the outbox and timers the work
 * bucket the core's `workBucketOf` gives their account (the SQL hash of the migration agrees
 * with it, multi-byte account ids included).
 */
import { PGlite } from '@electric-sql/pglite';
import { workBucketOf } from '@payrail/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExecutor } from '../pglite.executor.js';
import { createPGliteStore } from '../pglite-store.js';
import type { SqlExecutor } from '../sql-executor.js';
import type { PostgresStore } from '../sql-store.js';
import { migrate, migrations } from './migrate.js';

const schema = 'payrail_shard_ready_check';
/** Accounts whose ids hash across byte widths. */
const accounts = ['acc_1', 'acc_2', 'acc_é', 'acc_€😀', 'merchant-with-a-long-id-0001'];
let pglite: PGlite;
let executor: SqlExecutor;
let store: PostgresStore;

beforeAll(async () => {
  pglite = await PGlite.create();
  executor = pgliteExecutor(pglite, { ownsDatabase: false });
  await migrate(
    executor,
    schema,
    migrations.filter((migration) => migration.id < '0010'),
  );
  const values = (rows: readonly string[]) => rows.join(',\n');
  await executor.exec(`
    SET search_path TO "${schema}";
    INSERT INTO deposit_addresses (id, account_id, network, address, order_id, created_at, updated_at, version, data)
    VALUES ('dad_1', 'acc_1', 'TRON', 'TADDR1', 'ord_1', 1800000000, 1800000000, 1,
            '{"address_id":"dad_1","account_id":"acc_1","network":"TRON","address":"TADDR1","order_id":"ord_1","created_at":1800000000,"updated_at":1800000000,"version":1}');
    INSERT INTO audit_records (id, account_id, actor_type, actor_id, action, object_type, object_id, created_at, updated_at, version, data)
    VALUES ('aud_1', NULL, 'operator', 'op_1', 'operator.create', 'operator', 'op_2', 1800000000, 1800000000, 1, '{}'),
           ('aud_2', 'acc_1', 'merchant', 'key_1', 'payout.create', 'payout', 'po_1', 1800000001, 1800000001, 1, '{}');
    INSERT INTO ledger_journals (journal_id, record_type, account_id, currency, amount, business_type, business_id, created_at)
    VALUES ('dep_1:deposit', 'deposit', 'acc_1', 'USD', 10, 'deposit', 'dep_1', 1800000000);
    INSERT INTO ledger_postings (journal_id, position, ledger_account, currency, amount)
    VALUES ('dep_1:deposit', 0, 'platform:deposits', 'USD', -10),
           ('dep_1:deposit', 1, 'merchant:acc_1:available', 'USD', 10);
    INSERT INTO ledger_balances (ledger_account, currency, amount)
    VALUES ('merchant:acc_1:available', 'USD', 10);
    INSERT INTO ledger_entries (journal_id, position, account_id, bucket, currency, amount, balance_after, record_type, business_type, business_id, created_at)
    VALUES ('dep_1:deposit', 1, 'acc_1', 'available', 'USD', 10, 10, 'deposit', 'deposit', 'dep_1', 1800000000);
    INSERT INTO outbox (outbox_id, event_id, account_id, business_type, business_id, event_type, destination_key, destination, payload, status, attempts, available_at, created_at)
    VALUES ${values(
      accounts.map(
        (account, i) =>
          `('ob_${i}', 'evt_${i}', '${account}', 'payout', 'po_${i}', 'payout.created', 'webhook:wh_1', '{"kind":"webhook","webhookId":"wh_1"}', '{}', 'pending', 0, 1800000000, 1800000000)`,
      ),
    )};
    INSERT INTO timers (timer_id, name, business_type, business_id, account_id, due_at)
    VALUES ${values(
      accounts.map(
        (account, i) =>
          `('order.expiry:ord_${i}', 'order.expiry', 'acquiring', 'ord_${i}', '${account}', 1800000000)`,
      ),
    )};
    RESET search_path;
  `);
  store = await createPGliteStore({ pglite, schema });
});

afterAll(async () => {
  await store.close();
  await pglite.close();
});

const rowsOf = async (sql: string) => (await executor.query(sql)).rows;

describe('0010-shard-ready', () => {
  it('claims the deposit addresses already handed out: no other account takes one', async () => {
    expect(await rowsOf(`SELECT * FROM "${schema}".deposit_address_claims`)).toEqual([
      { network: 'TRON', address: 'TADDR1', account_id: 'acc_1', address_id: 'dad_1' },
    ]);
    const taking = store.transaction((tx) =>
      tx.depositAddresses.insert({
        address_id: 'dad_2',
        account_id: 'acc_2',
        network: 'TRON',
        address: 'TADDR1',
        order_id: 'ord_2',
        created_at: 1800000100,
        updated_at: 1800000100,
      }),
    );
    await expect(taking).rejects.toMatchObject({
      reason: 'unique_violation',
      fields: ['network', 'address'],
    });
    const holder = await store.transaction((tx) =>
      tx.depositAddresses.findUnique({ network: 'TRON', address: 'TADDR1' }),
    );
    expect(holder?.order_id).toBe('ord_1');
  });

  it("gives postings and balances their account, and keeps the ledger's reads", async () => {
    expect(
      await rowsOf(
        `SELECT position, account_id FROM "${schema}".ledger_postings ORDER BY position`,
      ),
    ).toEqual([
      { position: 0, account_id: 'acc_1' },
      { position: 1, account_id: 'acc_1' },
    ]);
    expect(
      await rowsOf(`SELECT ledger_account, account_id FROM "${schema}".ledger_balances`),
    ).toEqual([{ ledger_account: 'merchant:acc_1:available', account_id: 'acc_1' }]);
    expect(await store.transaction((tx) => tx.ledger.balances('acc_1'))).toEqual([
      { currency: 'USD', available: '10.00', held: '0.00' },
    ]);
    const page = await store.transaction((tx) =>
      tx.ledger.entries({ accountId: 'acc_1', limit: 10, offset: 0 }),
    );
    expect(page.items.map((entry) => entry.balance_after)).toEqual(['10.00']);
  });

  it('files a platform object’s audit record under the empty account id', async () => {
    expect(
      await rowsOf(`SELECT id, account_id FROM "${schema}".audit_records ORDER BY id`),
    ).toEqual([
      { id: 'aud_1', account_id: '' },
      { id: 'aud_2', account_id: 'acc_1' },
    ]);
  });

  it("gives outbox rows and timers their account's work bucket, as the core computes it", async () => {
    const expected = accounts.map((account) => ({
      account_id: account,
      bucket: workBucketOf(account),
    }));
    const byAccount = (table: string) =>
      rowsOf(`SELECT account_id, bucket FROM "${schema}".${table} ORDER BY account_id COLLATE "C"`);
    const sorted = [...expected].sort((a, b) => (a.account_id < b.account_id ? -1 : 1));
    expect(await byAccount('outbox')).toEqual(sorted);
    expect(await byAccount('timers')).toEqual(sorted);
    const bucket = workBucketOf('acc_é');
    const claimed = await store.transaction((tx) =>
      tx.timers.claimDue({
        worker: 'w1',
        now: 1800000000,
        limit: 10,
        leaseSeconds: 30,
        buckets: [bucket],
      }),
    );
    expect(claimed.map((timer) => timer.account_id)).toEqual(
      accounts.filter((account) => workBucketOf(account) === bucket),
    );
  });
});
