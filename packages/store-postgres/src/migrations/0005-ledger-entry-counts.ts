/**
 * How many ledger records each (account, currency, record type) holds, kept as records are
 * written, so a ledger page's `total` is a sum over a few rows instead of a count over every
 * record of the account (issue 11: at a million records the count took 340 ms, the page itself
 * under 1 ms). A page filtered by `created_at` still counts its range.
 */
import type { Migration } from './migration.js';

export const ledgerEntryCounts: Migration = {
  id: '0005-ledger-entry-counts',
  sql: `
CREATE TABLE ledger_entry_counts (
  account_id TEXT NOT NULL,
  currency TEXT NOT NULL,
  record_type TEXT NOT NULL,
  entries BIGINT NOT NULL CONSTRAINT ledger_entry_counts_entries CHECK (entries >= 0),
  PRIMARY KEY (account_id, currency, record_type)
);

INSERT INTO ledger_entry_counts (account_id, currency, record_type, entries)
SELECT account_id, currency, record_type, count(*)
  FROM ledger_entries
 GROUP BY account_id, currency, record_type;
`,
};
