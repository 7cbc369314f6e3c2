/**
 * Named operators (issue 19, ADR 0039): who they are, what their role lets them do, their
 * credentials, and the audit trail they and the merchants read (ADR 0040). The role check is
 * the door's (`audit/engine-acts.ts`), before any of these runs.
 *
 * An operator authenticates with its own credential (`operator-credential.ts`); the configured
 * admin token authenticates as `bootstrapOperator`. What the bootstrap may do is ADR 0039's
 * answer: everything while no active operator has the `admin` role (a new installation, the
 * tests, a host that never adds operators), and from then on only what it takes to recover from a
 * lost admin credential: read, and manage operators. Every refusal is `forbidden`.
 */
import {
  AuditListQuery,
  type AuditRecord,
  decodeOperatorCreate,
  decodeOperatorUpdate,
  decodeWith,
  isStoreFailure,
  type OperatorPermission,
  type OperatorRecord,
  PageQuery,
  payrailError,
  roleAllows,
  type StoreTransaction,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { requirePermission } from '../access-control.js';
import { unitOfWorkRetryingConflicts } from '../conflict-retry.js';
import type { AuditRecordView, IssuedOperatorView, OperatorView } from '../engine-answers.js';
import type { AuthenticationRequest, Caller, Operator, Query } from '../engine-api.js';
import type { EngineDeps } from '../engine-deps.js';
import { type Outcome, orRefuse, refuse, unitOfWork } from '../unit-of-work.js';
import {
  newOperatorCredential,
  readOperatorCredential,
  secretMatches,
} from './operator-credential.js';

/** The principal of the configured admin token (`PAYRAIL_ADMIN_TOKEN`). */
export const bootstrapOperator: Operator = {
  operator_id: 'bootstrap',
  name: 'bootstrap',
  role: 'bootstrap',
};

/** What the bootstrap keeps once an admin operator exists. */
const bootstrapKeeps: readonly OperatorPermission[] = ['admin.read', 'admin.operators.write'];

const operatorView = (record: OperatorRecord): OperatorView => ({
  operator_id: record.operator_id,
  name: record.name,
  role: record.role,
  status: record.status,
  expires_at: record.expires_at,
  created_by: record.created_by,
  created_at: record.created_at,
  updated_at: record.updated_at,
});

const auditRecordView = (record: AuditRecord): AuditRecordView => ({
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

/** Whether an operator with the admin role is active: then the bootstrap steps back. */
const anAdminIsActive = async (tx: StoreTransaction): Promise<boolean> =>
  (
    await tx.operators.list({
      where: { role: 'admin', status: 'active' },
      limit: 1,
      offset: 0,
    })
  ).total > 0;

/** `forbidden` unless `operator` may act with `permission` (the role matrix, ADR 0039). */
export const requireOperatorPermission = async (
  tx: StoreTransaction,
  operator: Operator,
  permission: OperatorPermission,
): Promise<void> => {
  if (operator.role !== 'bootstrap') {
    if (!roleAllows(operator.role, permission)) refuse(payrailError('forbidden'));
    return;
  }
  if (bootstrapKeeps.includes(permission)) return;
  if (await anAdminIsActive(tx)) refuse(payrailError('forbidden'));
};

/** Inserts `record`; a name another unit of work took first is `invalid name`. */
const insertOrRefuseTaken = async (
  tx: StoreTransaction,
  record: Parameters<StoreTransaction['operators']['insert']>[0],
): Promise<OperatorRecord> => {
  try {
    return await tx.operators.insert(record);
  } catch (error) {
    if (isStoreFailure(error) && error.reason === 'unique_violation') {
      return refuse(payrailError('invalid_query_param', { param: 'name' }));
    }
    throw error;
  }
};

export const operatorUseCases = (deps: EngineDeps) => {
  const work = <T>(run: (tx: StoreTransaction, now: number) => Promise<T>): Promise<Outcome<T>> => {
    const now = deps.clock.now();
    return unitOfWorkRetryingConflicts(deps.store, (tx) => run(tx, now));
  };

  const loadOperator = async (tx: StoreTransaction, operatorId: string) =>
    (await tx.operators.get(operatorId)) ?? refuse(payrailError('operator_id_not_found'));

  /**
   * A presented token against the operators: no token, not an operator credential, an unknown
   * operator, a secret that does not match, a disabled operator or an expired credential all
   * answer `unauthorized` (an operator's credential says nothing about why to whoever holds it).
   */
  const authenticate = async ({ token, ip }: AuthenticationRequest): Promise<Outcome<Operator>> => {
    const credential = token === undefined ? undefined : readOperatorCredential(token);
    if (credential === undefined) return E.left(payrailError('unauthorized'));
    const read = await unitOfWork(deps.store, (tx) => tx.operators.get(credential.operatorId));
    if (E.isLeft(read)) return read;
    const record = read.right;
    if (
      record === undefined ||
      !secretMatches(credential.secret, record.token_hash) ||
      record.status !== 'active' ||
      deps.clock.now() >= record.expires_at
    ) {
      return E.left(payrailError('unauthorized'));
    }
    return E.right({
      operator_id: record.operator_id,
      name: record.name,
      role: record.role,
      client_ip: ip,
    });
  };

  const issued = (record: OperatorRecord, token: string): { operator: IssuedOperatorView } => ({
    operator: { ...operatorView(record), token },
  });

  /** A new operator; its credential is in this answer only. A name taken is `invalid name`. */
  const create = (operator: Operator, body: unknown) =>
    work(async (tx, now) => {
      const request = orRefuse(decodeOperatorCreate(body));
      if ((await tx.operators.findUnique({ name: request.name })) !== undefined) {
        refuse(payrailError('invalid_query_param', { param: 'name' }));
      }
      const operatorId = deps.ids.next('opr');
      const credential = newOperatorCredential(operatorId);
      // Two adds of one name at once: the later insert meets the unique name, not a 500.
      const record = await insertOrRefuseTaken(tx, {
        operator_id: operatorId,
        name: request.name,
        role: request.role,
        status: 'active',
        token_hash: credential.hash,
        expires_at: now + request.expires_in_seconds,
        created_by: operator.operator_id,
        created_at: now,
        updated_at: now,
      });
      return issued(record, credential.token);
    });

  const list = (raw: Query) =>
    work(async (tx) => {
      const query = orRefuse(decodeWith(PageQuery)(raw));
      const page = await tx.operators.list({
        sort: 'asc',
        limit: query.limit,
        offset: query.offset,
      });
      return { ...page, items: page.items.map(operatorView) };
    });

  /**
   * Status and role. An operator cannot change its own (no one grants itself a role, and the
   * last admin cannot lock every admin out by mistake): `forbidden`.
   */
  const update = (operator: Operator, operatorId: string, body: unknown) =>
    work(async (tx, now) => {
      const patch = orRefuse(decodeOperatorUpdate(body));
      const record = await loadOperator(tx, operatorId);
      if (record.operator_id === operator.operator_id) refuse(payrailError('forbidden'));
      const next: OperatorRecord = {
        ...record,
        status: patch.status ?? record.status,
        role: patch.role ?? record.role,
      };
      if (next.status === record.status && next.role === record.role) {
        refuse(payrailError('no_changes'));
      }
      const saved = await tx.operators.update({ ...next, updated_at: now });
      return { operator: operatorView(saved) };
    });

  /** A new credential (the old one stops working), valid as long as a new operator's. */
  const rotate = (operatorId: string) =>
    work(async (tx, now) => {
      const record = await loadOperator(tx, operatorId);
      const credential = newOperatorCredential(record.operator_id);
      const lifetime = record.expires_at - record.created_at;
      const saved = await tx.operators.update({
        ...record,
        token_hash: credential.hash,
        expires_at: now + lifetime,
        updated_at: now,
      });
      return issued(saved, credential.token);
    });

  const auditPage = async (tx: StoreTransaction, raw: Query, scope: string | undefined) => {
    const query = orRefuse(decodeWith(AuditListQuery)(raw));
    const page = await tx.auditRecords.list({
      ...(scope === undefined ? {} : { scope }),
      where: {
        ...(query.actor_type === undefined ? {} : { actor_type: query.actor_type }),
        ...(query.actor_id === undefined ? {} : { actor_id: query.actor_id }),
        ...(query.action === undefined ? {} : { action: query.action }),
        ...(query.object_type === undefined ? {} : { object_type: query.object_type }),
        ...(query.object_id === undefined ? {} : { object_id: query.object_id }),
      },
      ...(query.start_at === undefined ? {} : { createdFrom: query.start_at }),
      ...(query.end_at === undefined ? {} : { createdTo: query.end_at }),
      sort: 'desc',
      limit: query.limit,
      offset: query.offset,
    });
    return { ...page, items: page.items.map(auditRecordView) };
  };

  /** `GET /admin/audit`: every act, newest first. */
  const audit = (raw: Query) => work((tx) => auditPage(tx, raw, undefined));

  /**
   * `GET /payment/audit`: the acts on the caller's account (its keys' acts, and the operators'
   * acts on its account, keys and payouts), newest first; `payment.account.read`.
   */
  const accountAudit = (caller: Caller, raw: Query) =>
    work(async (tx) => {
      requirePermission(caller, 'payment.account.read');
      return auditPage(tx, raw, caller.account_id);
    });

  return { authenticate, create, list, update, rotate, audit, accountAudit };
};
