/**
 * The builders of the operators part's answers: operators and the audit trail's records. An
 * operator's credential never appears here: the use cases that make one (create, rotate) add it.
 */
import type { AuditRecord, OperatorRecord } from '@payrail/core';
import type { AuditRecordView, IssuedOperatorView, OperatorView } from '../engine-answers.views.js';

export const operatorView = (record: OperatorRecord): OperatorView => ({
  operator_id: record.operator_id,
  name: record.name,
  role: record.role,
  status: record.status,
  expires_at: record.expires_at,
  created_by: record.created_by,
  created_at: record.created_at,
  updated_at: record.updated_at,
});

/** The answer that shows `token`, the operator's new credential, once. */
export const issuedOperatorView = (
  record: OperatorRecord,
  token: string,
): { operator: IssuedOperatorView } => ({
  operator: { ...operatorView(record), token },
});

export const auditRecordView = (record: AuditRecord): AuditRecordView => ({
  audit_id: record.audit_id,
  actor_type: record.actor_type,
  actor_id: record.actor_id,
  actor_name: record.actor_name,
  action: record.action,
  object_type: record.object_type,
  object_id: record.object_id,
  account_id: record.account_id,
  detail: record.detail,
  request_id: record.request_id,
  client_ip: record.client_ip,
  created_at: record.created_at,
});
