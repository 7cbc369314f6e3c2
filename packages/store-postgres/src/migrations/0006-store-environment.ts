/**
 * The environment a schema's data belongs to, recorded once (`Store.claimEnvironment`, ADR
 * 0035): a live server refuses a schema recorded for the sandbox and the other way round. A
 * schema that already holds data when this migration runs was written before environments were
 * recorded: it is recorded as sandbox, the only environment that could credit by hand, so
 * test money never serves as live (an operator whose schema really was live all along records
 * that with the one statement in docs/storage.md).
 */
import type { Migration } from './migration.js';

/** Every table 0001 to 0005 created: a row in any of them means the schema was in use. */
const tablesBefore = [
  'merchants',
  'accounts',
  'api_keys',
  'payout_methods',
  'payout_networks',
  'payout_routes',
  'beneficiaries',
  'beneficiary_accounts',
  'payouts',
  'acquiring_orders',
  'deposit_addresses',
  'crypto_batches',
  'webhooks',
  'webhook_deliveries',
  'deposits',
  'withdrawals',
  'ledger_journals',
  'outbox',
  'timers',
  'idempotency_keys',
];

export const storeEnvironment: Migration = {
  id: '0006-store-environment',
  sql: `
CREATE TABLE store_environment (
  only_row BOOLEAN PRIMARY KEY DEFAULT true CONSTRAINT store_environment_one_row CHECK (only_row),
  environment TEXT NOT NULL
    CONSTRAINT store_environment_environment CHECK (environment IN ('sandbox', 'live')),
  recorded_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

INSERT INTO store_environment (environment)
SELECT 'sandbox'
 WHERE ${tablesBefore.map((table) => `EXISTS (SELECT 1 FROM ${table})`).join('\n    OR ')};
`,
};
