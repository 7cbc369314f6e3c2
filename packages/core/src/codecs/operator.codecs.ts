/**
 * Operators (issue 19, ADR 0039): the people behind `/admin`, each a principal with a name, a
 * role and a credential of its own. A role is a set of operator permissions, chosen for least
 * privilege: whoever configures the platform (admin) does not review payouts or fund balances,
 * and whoever reviews payouts (reviewer) cannot make itself an admin. Every `/admin` route names
 * the one permission it needs; `operatorRoleMatrix` is that table, and docs/server.md prints it.
 */
import * as t from 'io-ts';
import { payrailError } from '../errors/error-catalogue.js';
import {
  codePointLength,
  decodeWith,
  leaf,
  oneOfLeaf,
  present,
  request,
  rule,
  wholeNumberLeaf,
  withDefault,
} from './codec-toolkit.js';

export const operatorRoles = ['viewer', 'reviewer', 'treasurer', 'admin'] as const;
export type OperatorRole = (typeof operatorRoles)[number];

/**
 * What an operator may do, one permission per kind of act. `admin.read` covers every read of the
 * admin API (the audit trail included); the others each change one kind of thing.
 */
export const operatorPermissions = [
  'admin.read',
  'admin.operators.write',
  'admin.merchants.write',
  'admin.api_keys.write',
  'admin.catalogue.write',
  'admin.payouts.review',
  'admin.acquiring.review',
  'admin.balances.credit',
  'admin.sandbox.simulate',
] as const;
export type OperatorPermission = (typeof operatorPermissions)[number];

/**
 * The role matrix. Every role reads. `admin` runs the platform (operators, merchants and their
 * accounts, freezes included, API keys, the payout catalogue); `reviewer` decides payouts under
 * review, and refunds under review and orders' exceptions (ADR 0044); `treasurer` moves sandbox money (credits, the upstream's simulated outcomes and the
 * sandbox clock). No role both configures and moves money, so one operator alone cannot create
 * a merchant, fund it and approve its payout.
 */
export const operatorRoleMatrix: { readonly [R in OperatorRole]: readonly OperatorPermission[] } = {
  viewer: ['admin.read'],
  reviewer: ['admin.read', 'admin.payouts.review', 'admin.acquiring.review'],
  treasurer: ['admin.read', 'admin.balances.credit', 'admin.sandbox.simulate'],
  admin: [
    'admin.read',
    'admin.operators.write',
    'admin.merchants.write',
    'admin.api_keys.write',
    'admin.catalogue.write',
  ],
};

export const roleAllows = (role: OperatorRole, permission: OperatorPermission): boolean =>
  operatorRoleMatrix[role].includes(permission);

export const operatorStatuses = ['active', 'disabled'] as const;
export type OperatorStatus = (typeof operatorStatuses)[number];

export const operatorLimits = {
  /** An operator's credential lives 90 days unless the request says otherwise. */
  defaultExpiresInSeconds: 90 * 24 * 60 * 60,
  minExpiresInSeconds: 60,
  maxExpiresInSeconds: 365 * 24 * 60 * 60,
  maxNameLength: 100,
} as const;

/** A name people read in the audit trail: 1-100 characters, no control characters. */
const OperatorName = leaf<string>(
  'OperatorName',
  (u): u is string =>
    typeof u === 'string' &&
    u.trim() !== '' &&
    codePointLength(u) <= operatorLimits.maxNameLength &&
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters refused
    !/[\u0000-\u001f\u007f]/.test(u),
  'validation_failed',
  { type: 'string', minLength: 1, maxLength: operatorLimits.maxNameLength },
);

const OperatorRoleLeaf = oneOfLeaf('OperatorRole', operatorRoles, 'validation_failed');
const OperatorStatusLeaf = oneOfLeaf('OperatorStatus', operatorStatuses, 'invalid_status');

const OperatorExpiresInSeconds = wholeNumberLeaf(
  'OperatorExpiresInSeconds',
  { minimum: operatorLimits.minExpiresInSeconds, maximum: operatorLimits.maxExpiresInSeconds },
  'validation_failed',
);

/**
 * `POST /admin/operators`: `request required` → `name required` → `role required` → name 1-100
 * characters without control characters → role one of the roles → expires_in_seconds an integer
 * from 60 to 31536000 (default 90 days). Every broken rule after the requireds is
 * `Validation Failed`; a name already taken is `invalid name` (the engine's).
 */
export const OperatorCreateRequest = request('OperatorCreateRequest', {
  required: t.type({
    name: present(payrailError('field_required', { field: 'name' })),
    role: present(payrailError('field_required', { field: 'role' })),
  }),
  format: t.type({
    name: OperatorName,
    role: OperatorRoleLeaf,
    expires_in_seconds: withDefault(
      OperatorExpiresInSeconds,
      operatorLimits.defaultExpiresInSeconds,
    ),
  }),
});
export type OperatorCreateRequest = t.TypeOf<typeof OperatorCreateRequest>;
export const decodeOperatorCreate = decodeWith(OperatorCreateRequest);

/**
 * `PATCH /admin/operators/{operator_id}`: `request required` → status `active` or `disabled`
 * (`invalid status`) → role one of the roles (`Validation Failed`) → neither sent: `no changes`.
 */
export const OperatorUpdateRequest = request('OperatorUpdateRequest', {
  format: t.partial({ status: OperatorStatusLeaf, role: OperatorRoleLeaf }),
  rules: [
    rule<{ readonly status?: OperatorStatus; readonly role?: OperatorRole }>(
      (update) => update.status !== undefined || update.role !== undefined,
      () => payrailError('no_changes'),
    ),
  ],
});
export type OperatorUpdateRequest = t.TypeOf<typeof OperatorUpdateRequest>;
export const decodeOperatorUpdate = decodeWith(OperatorUpdateRequest);
