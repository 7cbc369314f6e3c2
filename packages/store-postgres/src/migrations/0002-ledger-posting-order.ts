/**
 * Ledger entries list journals of the same second in the order they were posted, not by id, so
 * a replay reads a payout's hold before its settlement. `seq` numbers journals as they are
 * inserted; journals already stored are numbered in the order the table is scanned while the
 * column is added (for them, posting order within one second was never recorded). The ledger's
 * indexes now end in `seq` instead of `journal_id`.
 */
import type { Migration } from './migration.js';

export const ledgerPostingOrder: Migration = {
  id: '0002-ledger-posting-order',
  sql: `
ALTER TABLE ledger_journals ADD COLUMN seq BIGINT GENERATED ALWAYS AS IDENTITY;

DROP INDEX ledger_journals_account_id_idx;
DROP INDEX ledger_journals_currency_idx;
DROP INDEX ledger_journals_record_type_idx;
CREATE INDEX ledger_journals_account_id_idx ON ledger_journals (account_id, created_at, seq);
CREATE INDEX ledger_journals_currency_idx ON ledger_journals (account_id, currency, created_at, seq);
CREATE INDEX ledger_journals_record_type_idx ON ledger_journals (account_id, record_type, created_at, seq);
`,
};
