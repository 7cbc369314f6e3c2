/**
 * Named operators (issue 19, ADR 0039): who they are, what their role lets them do, their
 * credentials, and the audit trail they and the merchants read (ADR 0040). The role check is
 * the door's (`engine.wiring.ts`), before any of these runs.
 *
 * An operator authenticates with its own credential (`operator-credential.crypto.ts`); the configured
 * admin token authenticates as `bootstrapOperator`. What the bootstrap may do is ADR 0039's
 * answer: everything while no active operator has the `admin` role (a new installation, the
 * tests, a host that never adds operators), and from then on only what it takes to recover from a
 * lost admin credential: read, and manage operators. Every refusal is `forbidden`.
 */
import {
  forbiddenFor,
  type OperatorPermission,
  roleAllows,
  type StoreTransaction,
} from '@payrail/core';
import { refuse } from '../command/command.handler.js';
import type { AuthenticationRequest, Caller, Operator, Query } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { accountAuditTrail, auditTrail } from './audit-reads.use-cases.js';
import { authenticateOperator } from './operator-authentication.use-case.js';
import {
  createOperator,
  listOperators,
  rotateOperator,
  updateOperator,
} from './operator-management.use-cases.js';

/** The principal of the configured admin token (`PAYRAIL_ADMIN_TOKEN`). */
export const bootstrapOperator: Operator = {
  operator_id: 'bootstrap',
  name: 'bootstrap',
  role: 'bootstrap',
};

/** What the bootstrap keeps once an admin operator exists. */
const bootstrapKeeps: readonly OperatorPermission[] = ['admin.read', 'admin.operators.write'];

/** Whether an operator with the admin role is active: then the bootstrap steps back. */
const anAdminIsActive = async (tx: StoreTransaction): Promise<boolean> =>
  (
    await tx.operators.list({
      where: { role: 'admin', status: 'active' },
      limit: 1,
      offset: 0,
    })
  ).total > 0;

/**
 * `forbidden`, naming `permission`, unless `operator` may act with it (the role matrix, ADR 0039;
 * ADR 0050).
 */
export const requireOperatorPermission = async (
  tx: StoreTransaction,
  operator: Operator,
  permission: OperatorPermission,
): Promise<void> => {
  const lacking = forbiddenFor({ missingPermissions: [permission] });
  if (operator.role !== 'bootstrap') {
    if (!roleAllows(operator.role, permission)) refuse(lacking);
    return;
  }
  if (bootstrapKeeps.includes(permission)) return;
  if (await anAdminIsActive(tx)) refuse(lacking);
};

export const operatorUseCases = (deps: EngineDeps) => ({
  authenticate: (request: AuthenticationRequest) => authenticateOperator(deps, request),
  create: (operator: Operator, body: unknown) => createOperator(deps, operator, body),
  list: (raw: Query) => listOperators(deps, raw),
  update: (operator: Operator, operatorId: string, body: unknown) =>
    updateOperator(deps, operator, operatorId, body),
  rotate: (operatorId: string) => rotateOperator(deps, operatorId),
  audit: (raw: Query) => auditTrail(deps, raw),
  accountAudit: (caller: Caller, raw: Query) => accountAuditTrail(deps, caller, raw),
});
