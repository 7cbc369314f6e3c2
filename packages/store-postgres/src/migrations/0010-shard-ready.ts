/**
 * Ready for shards (issue 23, ADR 0053): every table is keyed by the account that owns its rows,
 * or is a small reference table, so the schema can be distributed by account (docs/scaling.md
 * gives the Citus DDL).
 *
 * - The primary key and every unique index of an account's table end in `account_id`. The
 *   merchants and their accounts stay as they are: they are reference tables. Appended last, so a lookup by id alone still reads the
 *   primary key's index. Ids are generated unique, so `(id, account_id)` loses nothing in
 *   practice; what the database no longer refuses is the same id under two accounts.
 * - The one rule across merchants, a deposit address held by one record (`deposit_addresses
 *   (network, address)`), moves to the reference table `deposit_address_claims`, written in the
 *   same unit of work as the address; the addresses already stored are claimed here.
 * - Rows that named no account now do: `ledger_postings` and `ledger_balances` take their
 *   journal's and their bucket's; an audit record of a platform object (operators, routes),
 *   whose `account_id` is null, is filed under the empty account id, which no account has.
 * - The outbox and the timers carry their account's work bucket (`workBucketOf` in the core:
 *   FNV-1a of the account id, modulo 64); the rows already stored are given theirs by the same
 *   hash written in SQL for this migration, and the function goes again. Their keys end in
 *   `bucket` too, the column they are distributed by, and an index per claim serves a claim
 *   confined to a bucket.
 *
 * Every statement rewrites its table under an exclusive lock; run it with payrail stopped.
 */
import type { Migration } from './migration.js';

/** The collections' tables keyed by account: (table, unique keys without the account). */
const accountTables: readonly (readonly [string, readonly (readonly string[])[]])[] = [
  ['beneficiaries', []],
  ['beneficiary_accounts', [['beneficiary_id', 'network_code']]],
  ['payouts', []],
  ['acquiring_orders', []],
  ['deposit_addresses', [['network', 'address']]],
  ['acquiring_payments', []],
  ['acquiring_refunds', []],
  ['crypto_batches', []],
  ['webhooks', []],
  ['webhook_deliveries', [['event_id', 'webhook_id', 'url']]],
  ['deposits', []],
  ['withdrawals', []],
  ['audit_records', []],
];

const rekey = ([table, unique]: (typeof accountTables)[number]): string =>
  [
    `ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey;`,
    `ALTER TABLE ${table} ADD CONSTRAINT ${table}_pkey PRIMARY KEY (id, account_id);`,
    ...unique.flatMap((fields) => [
      `DROP INDEX ${table}_${fields.join('_')}_key;`,
      `CREATE UNIQUE INDEX ${table}_${fields.join('_')}_account_id_key ON ${table} (${fields.join(', ')}, account_id);`,
    ]),
  ].join('\n');

export const shardReady: Migration = {
  id: '0010-shard-ready',
  sql: `
-- A platform object's audit records are filed under the empty account id.
ALTER TABLE audit_records DISABLE TRIGGER audit_records_append_only;
UPDATE audit_records SET account_id = '' WHERE account_id IS NULL;
ALTER TABLE audit_records ENABLE TRIGGER audit_records_append_only;

${accountTables.map(rekey).join('\n')}

-- A deposit address is held by one record of one account, whichever merchant asks.
CREATE TABLE deposit_address_claims (
  network TEXT NOT NULL,
  address TEXT NOT NULL,
  account_id TEXT NOT NULL,
  address_id TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (network, address)
);
CREATE INDEX deposit_address_claims_address_id_idx ON deposit_address_claims (address_id);
INSERT INTO deposit_address_claims (network, address, account_id, address_id)
SELECT network, address, account_id, id FROM deposit_addresses
 WHERE network IS NOT NULL AND address IS NOT NULL;

-- The ledger: a journal, its postings and its records belong to the journal's account.
ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_journal_id_fkey;
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_journal_id_fkey;
ALTER TABLE ledger_journals DROP CONSTRAINT ledger_journals_pkey;
ALTER TABLE ledger_journals ADD CONSTRAINT ledger_journals_pkey PRIMARY KEY (journal_id, account_id);

ALTER TABLE ledger_postings ADD COLUMN account_id TEXT;
UPDATE ledger_postings p SET account_id = j.account_id
  FROM ledger_journals j WHERE j.journal_id = p.journal_id;
ALTER TABLE ledger_postings ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_pkey;
ALTER TABLE ledger_postings ADD CONSTRAINT ledger_postings_pkey
  PRIMARY KEY (journal_id, position, account_id);
ALTER TABLE ledger_postings ADD CONSTRAINT ledger_postings_journal_fkey
  FOREIGN KEY (journal_id, account_id) REFERENCES ledger_journals (journal_id, account_id);

ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_pkey;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_pkey
  PRIMARY KEY (journal_id, position, account_id);
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_journal_fkey
  FOREIGN KEY (journal_id, account_id) REFERENCES ledger_journals (journal_id, account_id);

ALTER TABLE ledger_balances ADD COLUMN account_id TEXT;
UPDATE ledger_balances
   SET account_id = substring(ledger_account FROM '^merchant:(.+):(?:available|held)$');
ALTER TABLE ledger_balances ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE ledger_balances DROP CONSTRAINT ledger_balances_pkey;
ALTER TABLE ledger_balances ADD CONSTRAINT ledger_balances_pkey
  PRIMARY KEY (ledger_account, currency, account_id);

-- The work buckets: FNV-1a (32 bits) of the account id's UTF-8 bytes, modulo 64, as the core's
-- workBucketOf computes it for every row written from now on.
CREATE FUNCTION payrail_0010_work_bucket(account TEXT) RETURNS SMALLINT
  LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  bytes BYTEA := convert_to(account, 'UTF8');
  hash BIGINT := 2166136261;
BEGIN
  FOR i IN 0 .. length(bytes) - 1 LOOP
    hash := ((hash # get_byte(bytes, i)) * 16777619) % 4294967296;
  END LOOP;
  RETURN hash % 64;
END;
$$;

ALTER TABLE outbox ADD COLUMN bucket SMALLINT;
UPDATE outbox SET bucket = payrail_0010_work_bucket(account_id);
ALTER TABLE outbox ALTER COLUMN bucket SET NOT NULL;
ALTER TABLE outbox DROP CONSTRAINT outbox_pkey;
ALTER TABLE outbox ADD CONSTRAINT outbox_pkey PRIMARY KEY (outbox_id, account_id, bucket);
DROP INDEX outbox_event_id_destination_key_key;
CREATE UNIQUE INDEX outbox_event_id_destination_key_account_id_bucket_key
  ON outbox (event_id, destination_key, account_id, bucket);
CREATE INDEX outbox_bucket_pending_idx ON outbox (bucket, created_at, seq)
  WHERE status = 'pending';

ALTER TABLE timers ADD COLUMN bucket SMALLINT;
UPDATE timers SET bucket = payrail_0010_work_bucket(account_id);
ALTER TABLE timers ALTER COLUMN bucket SET NOT NULL;
ALTER TABLE timers DROP CONSTRAINT timers_pkey;
ALTER TABLE timers ADD CONSTRAINT timers_pkey PRIMARY KEY (timer_id, account_id, bucket);
CREATE INDEX timers_bucket_due_at_idx ON timers (bucket, due_at, timer_id);

DROP FUNCTION payrail_0010_work_bucket(TEXT);
`,
};
