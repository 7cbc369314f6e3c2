/**
 * The operators an admin manages (ADR 0039): add one, list them, change one's status or role,
 * rotate one's credential. A credential is in the answer that makes it only.
 */
import {
  decodeOperatorCreate,
  decodeOperatorUpdate,
  decodeWith,
  isStoreFailure,
  type OperatorRecord,
  PageQuery,
  payrailError,
  type StoreTransaction,
} from '@payrail/core';
import { pageView } from '../access/list-pages.views.js';
import { clockedUnitOfWork, orRefuse, refuse } from '../command/command.handler.js';
import type { Operator, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { issuedOperatorView, operatorView } from './operator.views.js';
import { newOperatorCredential } from './operator-credential.crypto.js';

const loadOperator = async (tx: StoreTransaction, operatorId: string) =>
  (await tx.operators.get(operatorId)) ?? refuse(payrailError('operator_id_not_found'));

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

/** A new operator; its credential is in this answer only. A name taken is `invalid name`. */
export const createOperator = (deps: EngineDeps, operator: Operator, body: unknown) =>
  clockedUnitOfWork(deps, async (tx, now) => {
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
    return issuedOperatorView(record, credential.token);
  });

export const listOperators = (deps: EngineDeps, raw: Query) =>
  clockedUnitOfWork(deps, async (tx) => {
    const query = orRefuse(decodeWith(PageQuery)(raw));
    const page = await tx.operators.list({
      sort: 'asc',
      limit: query.limit,
      offset: query.offset,
    });
    return pageView(page, operatorView);
  });

/**
 * Status and role. An operator cannot change its own (no one grants itself a role, and the
 * last admin cannot lock every admin out by mistake): `forbidden`.
 */
export const updateOperator = (
  deps: EngineDeps,
  operator: Operator,
  operatorId: string,
  body: unknown,
) =>
  clockedUnitOfWork(deps, async (tx, now) => {
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
export const rotateOperator = (deps: EngineDeps, operatorId: string) =>
  clockedUnitOfWork(deps, async (tx, now) => {
    const record = await loadOperator(tx, operatorId);
    const credential = newOperatorCredential(record.operator_id);
    const lifetime = record.expires_at - record.created_at;
    const saved = await tx.operators.update({
      ...record,
      token_hash: credential.hash,
      expires_at: now + lifetime,
      updated_at: now,
    });
    return issuedOperatorView(saved, credential.token);
  });
