/**
 * The first schema: one table per collection of the core's specs (see `table-layout.ts` for the
 * naming), the ledger, the outbox, the timers and the idempotency keys. Runs with `search_path`
 * set to the store's schema. A migration never changes once released: later changes are new
 * migrations.
 */
import { type CollectionTable, collectionTable } from './collection-table.js';
import type { Migration } from './migration.js';

/** The collections' tables as released, in the order they were created. */
const collectionTables: readonly CollectionTable[] = [
  {
    collection: 'merchants',
    table: 'merchants',
    id: 'merchant_id',
    scope: null,
    columns: ['status'],
  },
  {
    collection: 'accounts',
    table: 'accounts',
    id: 'account_id',
    scope: 'merchant_id',
    columns: ['merchant_id', 'status'],
  },
  {
    collection: 'apiKeys',
    table: 'api_keys',
    id: 'key_id',
    scope: 'account_id',
    columns: ['account_id', 'status', 'env'],
  },
  {
    collection: 'payoutMethods',
    table: 'payout_methods',
    id: 'method_id',
    scope: null,
    columns: ['currency_type', 'status'],
    bigint: ['id'],
  },
  {
    collection: 'payoutNetworks',
    table: 'payout_networks',
    id: 'code',
    scope: null,
    columns: ['status'],
  },
  {
    collection: 'payoutRoutes',
    table: 'payout_routes',
    id: 'route_id',
    scope: null,
    columns: ['account_id', 'currency', 'method_id', 'channel_id', 'status'],
    bigint: ['method_id'],
  },
  {
    collection: 'beneficiaries',
    table: 'beneficiaries',
    id: 'beneficiary_id',
    scope: 'account_id',
    columns: ['account_id', 'method_id', 'payee_id', 'status'],
    bigint: ['method_id'],
    unique: [['account_id', 'method_id', 'payee_id']],
  },
  {
    collection: 'beneficiaryAccounts',
    table: 'beneficiary_accounts',
    id: 'beneficiary_account_id',
    scope: 'account_id',
    columns: ['account_id', 'beneficiary_id', 'network_code', 'status'],
    unique: [['beneficiary_id', 'network_code']],
  },
  {
    collection: 'payouts',
    table: 'payouts',
    id: 'payout_id',
    scope: 'account_id',
    columns: [
      'account_id',
      'reference',
      'client_request_id',
      'status',
      'review_status',
      'execution_status',
      'batch_id',
    ],
    unique: [
      ['account_id', 'reference'],
      ['account_id', 'client_request_id'],
    ],
  },
  {
    collection: 'acquiringOrders',
    table: 'acquiring_orders',
    id: 'order_id',
    scope: 'account_id',
    columns: ['account_id', 'out_trade_no', 'status'],
    unique: [['account_id', 'out_trade_no']],
  },
  {
    collection: 'depositAddresses',
    table: 'deposit_addresses',
    id: 'address_id',
    scope: 'account_id',
    columns: ['account_id', 'network', 'address', 'order_id'],
    unique: [['network', 'address']],
    filters: ['account_id', 'order_id', 'network', 'address'],
  },
  {
    collection: 'cryptoBatches',
    table: 'crypto_batches',
    id: 'batch_id',
    scope: 'account_id',
    columns: ['account_id', 'status'],
  },
  {
    collection: 'webhooks',
    table: 'webhooks',
    id: 'webhook_id',
    scope: 'account_id',
    columns: ['account_id', 'status'],
  },
  {
    collection: 'webhookDeliveries',
    table: 'webhook_deliveries',
    id: 'delivery_id',
    scope: 'account_id',
    columns: ['account_id', 'event_id', 'webhook_id', 'url', 'status'],
    unique: [['event_id', 'webhook_id', 'url']],
    filters: ['account_id', 'webhook_id', 'event_id', 'status'],
  },
  {
    collection: 'deposits',
    table: 'deposits',
    id: 'record_id',
    scope: 'account_id',
    columns: ['account_id', 'currency', 'network', 'status'],
  },
  {
    collection: 'withdrawals',
    table: 'withdrawals',
    id: 'record_id',
    scope: 'account_id',
    columns: ['account_id', 'currency', 'network', 'status'],
  },
];

export const init: Migration = {
  id: '0001-init',
  sql: `
${collectionTables.map(collectionTable).join('\n\n')}

-- The ledger: journals and their postings are history; balances are the running sums of the
-- merchant buckets, updated in the same transaction, and never below zero.
CREATE TABLE ledger_journals (
  journal_id TEXT COLLATE "C" PRIMARY KEY,
  record_type TEXT NOT NULL,
  account_id TEXT NOT NULL,
  currency TEXT NOT NULL,
  amount NUMERIC NOT NULL,
  business_type TEXT NOT NULL,
  business_id TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX ledger_journals_account_id_idx ON ledger_journals (account_id, created_at, journal_id);
CREATE INDEX ledger_journals_currency_idx ON ledger_journals (account_id, currency, created_at, journal_id);
CREATE INDEX ledger_journals_record_type_idx ON ledger_journals (account_id, record_type, created_at, journal_id);

CREATE TABLE ledger_postings (
  journal_id TEXT COLLATE "C" NOT NULL REFERENCES ledger_journals (journal_id),
  position INTEGER NOT NULL,
  ledger_account TEXT NOT NULL,
  currency TEXT NOT NULL,
  amount NUMERIC NOT NULL,
  PRIMARY KEY (journal_id, position)
);
CREATE INDEX ledger_postings_ledger_account_idx ON ledger_postings (ledger_account, currency);

CREATE TABLE ledger_balances (
  ledger_account TEXT NOT NULL,
  currency TEXT COLLATE "C" NOT NULL,
  amount NUMERIC NOT NULL CONSTRAINT ledger_balances_never_negative CHECK (amount >= 0),
  PRIMARY KEY (ledger_account, currency)
);

-- The transactional outbox: seq is the enqueue order, claimed_by/claimed_until the lease.
CREATE TABLE outbox (
  outbox_id TEXT PRIMARY KEY,
  seq BIGINT GENERATED ALWAYS AS IDENTITY,
  event_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  business_type TEXT NOT NULL,
  business_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  destination_key TEXT NOT NULL,
  destination JSONB NOT NULL,
  payload JSONB NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  available_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  claimed_by TEXT,
  claimed_until BIGINT
);
CREATE UNIQUE INDEX outbox_event_id_destination_key_key ON outbox (event_id, destination_key);
CREATE INDEX outbox_pending_idx ON outbox (created_at, seq) WHERE status = 'pending';
CREATE INDEX outbox_queue_idx ON outbox (destination_key, business_type, business_id, created_at, seq)
  WHERE status = 'pending';

-- Durable timers: one per timer_id, claimed with a lease like the outbox.
CREATE TABLE timers (
  timer_id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT NOT NULL,
  business_type TEXT NOT NULL,
  business_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  due_at BIGINT NOT NULL,
  claimed_by TEXT,
  claimed_until BIGINT
);
CREATE INDEX timers_due_at_idx ON timers (due_at, timer_id);

CREATE TABLE idempotency_keys (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (scope, key)
);
`,
};
