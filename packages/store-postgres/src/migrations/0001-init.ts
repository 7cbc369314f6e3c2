/**
 * The first schema: one table per collection of the core's specs (see `table-layout.ts` for the
 * naming), the ledger, the outbox, the timers and the idempotency keys. Runs with `search_path`
 * set to the store's schema. A migration never changes once released: later changes are new
 * migrations.
 */
import type { Migration } from './migration.js';

export const init: Migration = {
  id: '0001-init',
  sql: `
-- merchants: merchant_id is the id, global
CREATE TABLE merchants (
  id TEXT COLLATE "C" PRIMARY KEY,
  status TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE INDEX merchants_created_idx ON merchants (created_at, id);
CREATE INDEX merchants_status_idx ON merchants (status, created_at, id);

-- accounts: account_id is the id, merchant_id the scope
CREATE TABLE accounts (
  id TEXT COLLATE "C" PRIMARY KEY,
  merchant_id TEXT,
  status TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE INDEX accounts_created_idx ON accounts (created_at, id);
CREATE INDEX accounts_merchant_id_idx ON accounts (merchant_id, created_at, id);
CREATE INDEX accounts_status_idx ON accounts (merchant_id, status, created_at, id);

-- apiKeys: key_id is the id, account_id the scope
CREATE TABLE api_keys (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT,
  status TEXT,
  env TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE INDEX api_keys_created_idx ON api_keys (created_at, id);
CREATE INDEX api_keys_account_id_idx ON api_keys (account_id, created_at, id);
CREATE INDEX api_keys_status_idx ON api_keys (account_id, status, created_at, id);
CREATE INDEX api_keys_env_idx ON api_keys (account_id, env, created_at, id);

-- payoutMethods: method_id is the id, global
CREATE TABLE payout_methods (
  id BIGINT PRIMARY KEY,
  currency_type TEXT,
  status TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE INDEX payout_methods_created_idx ON payout_methods (created_at, id);
CREATE INDEX payout_methods_currency_type_idx ON payout_methods (currency_type, created_at, id);
CREATE INDEX payout_methods_status_idx ON payout_methods (status, created_at, id);

-- payoutNetworks: code is the id, global
CREATE TABLE payout_networks (
  id TEXT COLLATE "C" PRIMARY KEY,
  status TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE INDEX payout_networks_created_idx ON payout_networks (created_at, id);
CREATE INDEX payout_networks_status_idx ON payout_networks (status, created_at, id);

-- payoutRoutes: route_id is the id, global
CREATE TABLE payout_routes (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT,
  currency TEXT,
  method_id BIGINT,
  channel_id TEXT,
  status TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE INDEX payout_routes_created_idx ON payout_routes (created_at, id);
CREATE INDEX payout_routes_account_id_idx ON payout_routes (account_id, created_at, id);
CREATE INDEX payout_routes_currency_idx ON payout_routes (currency, created_at, id);
CREATE INDEX payout_routes_method_id_idx ON payout_routes (method_id, created_at, id);
CREATE INDEX payout_routes_channel_id_idx ON payout_routes (channel_id, created_at, id);
CREATE INDEX payout_routes_status_idx ON payout_routes (status, created_at, id);

-- beneficiaries: beneficiary_id is the id, account_id the scope
CREATE TABLE beneficiaries (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT,
  method_id BIGINT,
  payee_id TEXT,
  status TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE UNIQUE INDEX beneficiaries_account_id_method_id_payee_id_key ON beneficiaries (account_id, method_id, payee_id);
CREATE INDEX beneficiaries_created_idx ON beneficiaries (created_at, id);
CREATE INDEX beneficiaries_account_id_idx ON beneficiaries (account_id, created_at, id);
CREATE INDEX beneficiaries_method_id_idx ON beneficiaries (account_id, method_id, created_at, id);
CREATE INDEX beneficiaries_payee_id_idx ON beneficiaries (account_id, payee_id, created_at, id);
CREATE INDEX beneficiaries_status_idx ON beneficiaries (account_id, status, created_at, id);

-- beneficiaryAccounts: beneficiary_account_id is the id, account_id the scope
CREATE TABLE beneficiary_accounts (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT,
  beneficiary_id TEXT,
  network_code TEXT,
  status TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE UNIQUE INDEX beneficiary_accounts_beneficiary_id_network_code_key ON beneficiary_accounts (beneficiary_id, network_code);
CREATE INDEX beneficiary_accounts_created_idx ON beneficiary_accounts (created_at, id);
CREATE INDEX beneficiary_accounts_account_id_idx ON beneficiary_accounts (account_id, created_at, id);
CREATE INDEX beneficiary_accounts_beneficiary_id_idx ON beneficiary_accounts (account_id, beneficiary_id, created_at, id);
CREATE INDEX beneficiary_accounts_network_code_idx ON beneficiary_accounts (account_id, network_code, created_at, id);
CREATE INDEX beneficiary_accounts_status_idx ON beneficiary_accounts (account_id, status, created_at, id);

-- payouts: payout_id is the id, account_id the scope
CREATE TABLE payouts (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT,
  reference TEXT,
  client_request_id TEXT,
  status TEXT,
  review_status TEXT,
  execution_status TEXT,
  batch_id TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE UNIQUE INDEX payouts_account_id_reference_key ON payouts (account_id, reference);
CREATE UNIQUE INDEX payouts_account_id_client_request_id_key ON payouts (account_id, client_request_id);
CREATE INDEX payouts_created_idx ON payouts (created_at, id);
CREATE INDEX payouts_account_id_idx ON payouts (account_id, created_at, id);
CREATE INDEX payouts_reference_idx ON payouts (account_id, reference, created_at, id);
CREATE INDEX payouts_client_request_id_idx ON payouts (account_id, client_request_id, created_at, id);
CREATE INDEX payouts_status_idx ON payouts (account_id, status, created_at, id);
CREATE INDEX payouts_review_status_idx ON payouts (account_id, review_status, created_at, id);
CREATE INDEX payouts_execution_status_idx ON payouts (account_id, execution_status, created_at, id);
CREATE INDEX payouts_batch_id_idx ON payouts (account_id, batch_id, created_at, id);

-- acquiringOrders: order_id is the id, account_id the scope
CREATE TABLE acquiring_orders (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT,
  out_trade_no TEXT,
  status TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE UNIQUE INDEX acquiring_orders_account_id_out_trade_no_key ON acquiring_orders (account_id, out_trade_no);
CREATE INDEX acquiring_orders_created_idx ON acquiring_orders (created_at, id);
CREATE INDEX acquiring_orders_account_id_idx ON acquiring_orders (account_id, created_at, id);
CREATE INDEX acquiring_orders_out_trade_no_idx ON acquiring_orders (account_id, out_trade_no, created_at, id);
CREATE INDEX acquiring_orders_status_idx ON acquiring_orders (account_id, status, created_at, id);

-- depositAddresses: address_id is the id, account_id the scope
CREATE TABLE deposit_addresses (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT,
  network TEXT,
  address TEXT,
  order_id TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE UNIQUE INDEX deposit_addresses_network_address_key ON deposit_addresses (network, address);
CREATE INDEX deposit_addresses_created_idx ON deposit_addresses (created_at, id);
CREATE INDEX deposit_addresses_account_id_idx ON deposit_addresses (account_id, created_at, id);
CREATE INDEX deposit_addresses_order_id_idx ON deposit_addresses (account_id, order_id, created_at, id);
CREATE INDEX deposit_addresses_network_idx ON deposit_addresses (account_id, network, created_at, id);
CREATE INDEX deposit_addresses_address_idx ON deposit_addresses (account_id, address, created_at, id);

-- cryptoBatches: batch_id is the id, account_id the scope
CREATE TABLE crypto_batches (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT,
  status TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE INDEX crypto_batches_created_idx ON crypto_batches (created_at, id);
CREATE INDEX crypto_batches_account_id_idx ON crypto_batches (account_id, created_at, id);
CREATE INDEX crypto_batches_status_idx ON crypto_batches (account_id, status, created_at, id);

-- webhooks: webhook_id is the id, account_id the scope
CREATE TABLE webhooks (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT,
  status TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE INDEX webhooks_created_idx ON webhooks (created_at, id);
CREATE INDEX webhooks_account_id_idx ON webhooks (account_id, created_at, id);
CREATE INDEX webhooks_status_idx ON webhooks (account_id, status, created_at, id);

-- webhookDeliveries: delivery_id is the id, account_id the scope
CREATE TABLE webhook_deliveries (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT,
  event_id TEXT,
  webhook_id TEXT,
  url TEXT,
  status TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE UNIQUE INDEX webhook_deliveries_event_id_webhook_id_url_key ON webhook_deliveries (event_id, webhook_id, url);
CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at, id);
CREATE INDEX webhook_deliveries_account_id_idx ON webhook_deliveries (account_id, created_at, id);
CREATE INDEX webhook_deliveries_webhook_id_idx ON webhook_deliveries (account_id, webhook_id, created_at, id);
CREATE INDEX webhook_deliveries_event_id_idx ON webhook_deliveries (account_id, event_id, created_at, id);
CREATE INDEX webhook_deliveries_status_idx ON webhook_deliveries (account_id, status, created_at, id);

-- deposits: record_id is the id, account_id the scope
CREATE TABLE deposits (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT,
  currency TEXT,
  network TEXT,
  status TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE INDEX deposits_created_idx ON deposits (created_at, id);
CREATE INDEX deposits_account_id_idx ON deposits (account_id, created_at, id);
CREATE INDEX deposits_currency_idx ON deposits (account_id, currency, created_at, id);
CREATE INDEX deposits_network_idx ON deposits (account_id, network, created_at, id);
CREATE INDEX deposits_status_idx ON deposits (account_id, status, created_at, id);

-- withdrawals: record_id is the id, account_id the scope
CREATE TABLE withdrawals (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT,
  currency TEXT,
  network TEXT,
  status TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE INDEX withdrawals_created_idx ON withdrawals (created_at, id);
CREATE INDEX withdrawals_account_id_idx ON withdrawals (account_id, created_at, id);
CREATE INDEX withdrawals_currency_idx ON withdrawals (account_id, currency, created_at, id);
CREATE INDEX withdrawals_network_idx ON withdrawals (account_id, network, created_at, id);
CREATE INDEX withdrawals_status_idx ON withdrawals (account_id, status, created_at, id);

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
