/**
 * Named operators and the audit trail (issue 19, ADRs 0039 and 0040): one table per new
 * collection, in the layout of `table-layout.ts`. The trail is append-only in the database too:
 * a trigger refuses every UPDATE and DELETE of `audit_records`, so not even a bug in payrail (or
 * a hand-written statement in the application's role) edits the past; TRUNCATE is left to the
 * database owner, for retention.
 */
import type { Migration } from './migration.js';

export const operatorsAndAudit: Migration = {
  id: '0007-operators-and-audit',
  sql: `
-- operators: operator_id is the id, global
CREATE TABLE operators (
  id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT,
  status TEXT,
  role TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE UNIQUE INDEX operators_name_key ON operators (name);
CREATE INDEX operators_created_idx ON operators (created_at, id);
CREATE INDEX operators_status_idx ON operators (status, created_at, id);
CREATE INDEX operators_role_idx ON operators (role, created_at, id);

-- auditRecords: audit_id is the id, account_id the scope
CREATE TABLE audit_records (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT,
  actor_type TEXT,
  actor_id TEXT,
  action TEXT,
  object_type TEXT,
  object_id TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version INTEGER NOT NULL,
  data JSONB NOT NULL
);
CREATE INDEX audit_records_created_idx ON audit_records (created_at, id);
CREATE INDEX audit_records_account_id_idx ON audit_records (account_id, created_at, id);
CREATE INDEX audit_records_actor_type_idx ON audit_records (account_id, actor_type, created_at, id);
CREATE INDEX audit_records_actor_id_idx ON audit_records (account_id, actor_id, created_at, id);
CREATE INDEX audit_records_action_idx ON audit_records (account_id, action, created_at, id);
CREATE INDEX audit_records_object_type_idx ON audit_records (account_id, object_type, created_at, id);
CREATE INDEX audit_records_object_id_idx ON audit_records (account_id, object_id, created_at, id);
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
