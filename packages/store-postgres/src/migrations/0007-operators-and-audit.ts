/**
 * Named operators and the audit trail (issue 19, ADRs 0039 and 0040): one table per new
 * collection, in the layout of `table-layout.ts`. The trail is append-only in the database too:
 * a trigger refuses every UPDATE and DELETE of `audit_records`, so not even a bug in payrail (or
 * a hand-written statement in the application's role) edits the past; TRUNCATE is left to the
 * database owner, for retention.
 */
import { collectionTable } from './collection-table.js';
import type { Migration } from './migration.js';

const operators = collectionTable({
  collection: 'operators',
  table: 'operators',
  id: 'operator_id',
  scope: null,
  columns: ['name', 'status', 'role'],
  unique: [['name']],
  filters: ['status', 'role'],
});

const auditFields = ['actor_type', 'actor_id', 'action', 'object_type', 'object_id'];

const auditRecords = collectionTable({
  collection: 'auditRecords',
  table: 'audit_records',
  id: 'audit_id',
  scope: 'account_id',
  columns: ['account_id', ...auditFields],
});

export const operatorsAndAudit: Migration = {
  id: '0007-operators-and-audit',
  sql: `
${operators}

${auditRecords}
-- The operators' questions span accounts: who did what, what happened to this object.
CREATE INDEX audit_records_by_actor_idx ON audit_records (actor_id, created_at, id);
CREATE INDEX audit_records_by_object_idx ON audit_records (object_id, created_at, id);

CREATE FUNCTION audit_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_records is append-only: % refused', TG_OP;
END;
$$;
CREATE TRIGGER audit_records_append_only BEFORE UPDATE OR DELETE ON audit_records
  FOR EACH ROW EXECUTE FUNCTION audit_records_append_only();
`,
};
