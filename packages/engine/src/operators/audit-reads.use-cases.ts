/** The audit trail as operators and merchants read it, newest first (ADR 0040). */
import {
  AuditListQuery,
  type AuditRecord,
  decodeWith,
  type ListQuery,
  type StoreTransaction,
} from '@payrail/core';
import { requirePermission } from '../access/access-control.policy.js';
import { createdWithin, definedOf } from '../access/list-filters.store.js';
import { pageView } from '../access/list-pages.views.js';
import { clockedUnitOfWork, orRefuse } from '../command/command.handler.js';
import type { Caller, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { auditRecordView } from './operator.views.js';

const auditListQuery = (
  query: AuditListQuery,
  scope: string | undefined,
): ListQuery<AuditRecord> => ({
  ...(scope === undefined ? {} : { scope }),
  where: definedOf(query, ['actor_type', 'actor_id', 'action', 'object_type', 'object_id']),
  ...createdWithin(query),
  sort: 'desc',
  limit: query.limit,
  offset: query.offset,
});

const auditPage = async (tx: StoreTransaction, raw: Query, scope: string | undefined) => {
  const query = orRefuse(decodeWith(AuditListQuery)(raw));
  const page = await tx.auditRecords.list(auditListQuery(query, scope));
  return pageView(page, auditRecordView);
};

/** `GET /admin/audit`: every act, newest first. */
export const auditTrail = (deps: EngineDeps, raw: Query) =>
  clockedUnitOfWork(deps, (tx) => auditPage(tx, raw, undefined));

/**
 * `GET /payment/audit`: the acts on the caller's account (its keys' acts, and the operators'
 * acts on its account, keys and payouts), newest first; `payment.account.read`.
 */
export const accountAuditTrail = (deps: EngineDeps, caller: Caller, raw: Query) =>
  clockedUnitOfWork(deps, async (tx) => {
    requirePermission(caller, 'payment.account.read');
    return auditPage(tx, raw, caller.account_id);
  });
