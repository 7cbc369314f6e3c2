/**
 * The SQL store's hot paths, one unit of work each: a payout's insert, read and list, a ledger
 * posting, and the outbox's enqueue and claim of 100 rows. On PGlite in memory always; on the
 * PostgreSQL server at `DATABASE_URL` too when one answers (in a schema of its own, dropped at
 * the end). A benchmark is no test: without a server that part is left out with a message.
 * Each group runs in a fresh schema, so what one leaves behind does not slow the next.
 */
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import {
  depositJournal,
  money,
  type NewOutboxMessage,
  type NewRecord,
  type PayoutRecord,
  payoutMachine,
  persistPayout,
  type Store,
  start,
} from '@payrail/core';
import pg from 'pg';
import { afterAll, bench, describe } from 'vitest';
import { createPGliteStore } from './pglite-store.js';
import { createPostgresStore } from './postgres-store.js';

const T0 = 1_800_000_000;
const account = 'acc_bench';
const options = { time: 1000 };

/** A real persisted snapshot, so the `snapshot` column holds what a payout's does. */
const snapshot = persistPayout(
  start(payoutMachine, {
    payout_id: 'po_template',
    account_id: account,
    reference: 'REF-template',
    client_request_id: 'cr-template',
    currency: 'USD',
    amount: '25.00',
    fee: '0.75',
    fee_bearer: 'merchant',
    notify_url: 'https://merchant.example/payouts/notify',
    beneficiary_id: 'ben_1',
    beneficiary_account_id: 'bacc_1',
    verification_enabled: false,
    auto_approve: false,
    verification: {
      beneficiary_name: 'Jane Doe',
      network_code: 'WALLETA',
      account_type: null,
      beneficiary_account: {
        network_code: 'WALLETA',
        display_name: null,
        fields_masked: { walleta_email: 'j***@example.com' },
      },
    },
    submit: true,
    at: T0,
  }).snapshot,
);

let serial = 0;

const payoutRecord = (): NewRecord<PayoutRecord> => {
  serial += 1;
  return {
    payout_id: `po_${serial}`,
    account_id: account,
    reference: `REF-${serial}`,
    client_request_id: `cr-${serial}`,
    request_hash: 'a3f1c2e4b5d6978899aabbccddeeff00112233445566778899aabbccddeeff00',
    currency: 'USD',
    amount: '25.00',
    status: 'pending_review',
    review_status: 'pending_review',
    execution_status: 'init',
    batch_id: null,
    snapshot,
    created_at: T0 + serial,
    updated_at: T0 + serial,
  };
};

/** `n` rows of `n` business objects, so one claim may take any 100 of them. */
const outboxRows = (n = 100): readonly NewOutboxMessage[] =>
  Array.from({ length: n }, () => {
    serial += 1;
    return {
      outbox_id: `obx_${serial}`,
      event_id: `evt_${serial}`,
      account_id: account,
      business_type: 'payout',
      business_id: `po_${serial}`,
      event_type: 'payout.execution.completed',
      destination: { kind: 'webhook', webhookId: 'wh_bench' },
      payload: { type: 'payout.execution.completed', data: { payout_id: `po_${serial}` } },
      available_at: T0,
      created_at: T0,
    };
  });

interface Variant {
  readonly name: string;
  /** A migrated store in a fresh schema. */
  open(): Promise<Store>;
  /** Gathers the planner's statistics for a table of the last opened schema. */
  analyze(table: string): Promise<void>;
}

const freshSchema = (): string => `payrail_bench_${randomBytes(6).toString('hex')}`;

const pgliteVariant = async (): Promise<Variant> => {
  const db = await PGlite.create('memory://');
  afterAll(() => db.close());
  let schema = '';
  return {
    name: 'PGlite in memory',
    open: () => {
      schema = freshSchema();
      return createPGliteStore({ pglite: db, schema });
    },
    analyze: async (table) => {
      await db.exec(`ANALYZE "${schema}"."${table}"`);
    },
  };
};

const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The server variant, or `undefined` (with the reason printed) when none answers. */
const serverVariant = async (): Promise<Variant | undefined> => {
  const pool = new pg.Pool({ connectionString: serverUrl, max: 4, connectionTimeoutMillis: 3000 });
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    console.warn(`PostgreSQL does not answer at ${serverUrl} (${String(error)}): PGlite only.`);
    return undefined;
  }
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });
  return {
    name: 'PostgreSQL server',
    open: () => {
      schemas.push(freshSchema());
      return createPostgresStore({ pool, schema: schemas.at(-1) ?? '' });
    },
    analyze: async (table) => {
      await pool.query(`ANALYZE "${schemas.at(-1) ?? ''}"."${table}"`);
    },
  };
};

const server = await serverVariant();
const variants: readonly Variant[] = [
  await pgliteVariant(),
  ...(server === undefined ? [] : [server]),
];

const lease = 30;

/**
 * A store whose outbox holds `behind` + 100 pending rows, and a claim of 100 that moves the
 * clock past the previous lease each time: every claim finds the same 100 oldest rows due, so
 * the backlog stays `behind` rows for the whole run.
 */
const claimBed = async (variant: Variant, behind: number, analyzed: boolean) => {
  const store = await variant.open();
  for (let queued = 0; queued < behind + 100; queued += 1000) {
    const rows = outboxRows(Math.min(1000, behind + 100 - queued));
    await store.transaction((tx) => tx.outbox.enqueue(rows));
  }
  if (analyzed) await variant.analyze('outbox');
  let now = T0;
  return async () => {
    now += lease + 1;
    const claimed = await store.transaction((tx) =>
      tx.outbox.claim({ worker: 'bench', now, limit: 100, leaseSeconds: lease }),
    );
    if (claimed.length !== 100) throw new Error(`claimed ${claimed.length}`);
  };
};

for (const variant of variants) {
  const { name } = variant;
  const payoutStore = await variant.open();
  // 1000 payouts to read and list among.
  const seeded: string[] = [];
  await payoutStore.transaction(async (tx) => {
    for (let i = 0; i < 1000; i += 1) {
      seeded.push((await tx.payouts.insert(payoutRecord())).payout_id);
    }
  });
  const sample = seeded[500] ?? 'po_missing';

  describe(`payouts (${name}, 1000+ rows)`, () => {
    bench(
      'insert',
      async () => {
        await payoutStore.transaction((tx) => tx.payouts.insert(payoutRecord()));
      },
      options,
    );

    bench(
      'get by id, scoped to the account',
      async () => {
        const found = await payoutStore.transaction((tx) => tx.payouts.get(sample, account));
        if (found === undefined) throw new Error('not found');
      },
      options,
    );

    bench(
      'list: account + status, newest 20, with the total',
      async () => {
        const page = await payoutStore.transaction((tx) =>
          tx.payouts.list({
            scope: account,
            where: { status: 'pending_review' },
            limit: 20,
            offset: 0,
          }),
        );
        if (page.items.length !== 20) throw new Error(`listed ${page.items.length}`);
      },
      options,
    );
  });

  const ledgerStore = await variant.open();
  describe(`ledger (${name})`, () => {
    bench(
      'post a deposit journal (2 postings, balance check)',
      async () => {
        serial += 1;
        await ledgerStore.transaction((tx) =>
          tx.ledger.post(
            depositJournal(
              { accountId: account, businessId: `dep_${serial}` },
              money('USD', '1.00'),
            ),
            T0,
          ),
        );
      },
      options,
    );
  });

  const outboxStore = await variant.open();
  const claimEmpty = await claimBed(variant, 0, false);
  const claimBacklog = await claimBed(variant, 10_000, false);
  const claimAnalyzed = await claimBed(variant, 10_000, true);
  describe(`outbox (${name})`, () => {
    bench(
      'enqueue 100 rows',
      async () => {
        await outboxStore.transaction((tx) => tx.outbox.enqueue(outboxRows()));
      },
      options,
    );
    bench('claim 100 rows, nothing else pending', claimEmpty, options);
    bench('claim 100 rows, 10,000 more pending', claimBacklog, options);
    bench('claim 100 rows, 10,000 more pending, after ANALYZE', claimAnalyzed, options);
  });
}
