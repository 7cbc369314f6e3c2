/**
 * The doors of the engine's face that change state, declared as acts (ADR 0040): who may pass
 * (an API key's permissions are the use case's to check; an operator's role is checked here,
 * before anything runs), and what the audit trail records about them. `engine.ts` wraps every
 * such use case with one of these; reads pass through without a record.
 */
import type { OperatorPermission } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import type { Caller, Operator } from '../engine-api.js';
import type { EngineDeps } from '../engine-deps.js';
import { type AdminUseCaseName, adminPermissions } from '../operators/admin-permissions.js';
import { requireOperatorPermission } from '../operators/operators.use-cases.js';
import { type Outcome, unitOfWork } from '../unit-of-work.js';
import { type Actor, type ObjectType, withinAct } from './audit-trail.js';

/** What the trail records of an act besides its actor. */
export interface ActSpec<A extends readonly unknown[]> {
  readonly action: string;
  readonly objectType: ObjectType;
  /** A word on the act from its arguments (a review's action, a status set). */
  readonly detail?: (...args: A) => string | undefined;
}

type Run<A extends readonly unknown[], T> = (...args: A) => Promise<Outcome<T>>;

const keyActor = (caller: Caller): Actor => ({
  actor_type: 'api_key',
  actor_id: caller.key_id,
  actor_name: null,
  request_id: caller.request_id,
  client_ip: caller.client_ip,
});

const operatorActor = (operator: Operator): Actor => ({
  actor_type: 'operator',
  actor_id: operator.operator_id,
  actor_name: operator.name,
  request_id: operator.request_id,
  client_ip: operator.client_ip,
});

/** A short word from the body's `field`, when it is one (`approve`, `disabled`). */
export const bodyWord =
  (field: string) =>
  (...args: readonly unknown[]): string | undefined => {
    const body = args.at(-1);
    if (typeof body !== 'object' || body === null) return undefined;
    const value: unknown = Reflect.get(body, field);
    return typeof value === 'string' && /^[a-z_]{1,32}$/.test(value) ? value : undefined;
  };

/** A merchant's use case as an act of the calling API key. */
export const keyAct =
  <A extends readonly unknown[], T>(spec: ActSpec<A>, run: Run<[Caller, ...A], T>) =>
  (caller: Caller, ...args: A): Promise<Outcome<T>> =>
    withinAct(
      {
        actor: keyActor(caller),
        action: spec.action,
        objectType: spec.objectType,
        detail: spec.detail?.(...args),
      },
      () => run(caller, ...args),
    );

/** The operator-facing doors, over the engine's store. */
export const operatorDoors = (deps: EngineDeps) => {
  const permitted = (operator: Operator, permission: OperatorPermission) =>
    unitOfWork(deps.store, (tx) => requireOperatorPermission(tx, operator, permission));

  /** An admin read: the role check, then `run` (which does not need the operator). */
  const read =
    <A extends readonly unknown[], T>(name: AdminUseCaseName, run: Run<A, T>) =>
    async (operator: Operator, ...args: A): Promise<Outcome<T>> => {
      const allowed = await permitted(operator, adminPermissions[name]);
      return E.isLeft(allowed) ? allowed : run(...args);
    };

  /** An admin act: the role check, then `run` as the operator's act. */
  const act =
    <A extends readonly unknown[], T>(name: AdminUseCaseName, spec: ActSpec<A>, run: Run<A, T>) =>
    (operator: Operator, ...args: A): Promise<Outcome<T>> =>
      actAs(name, spec, (_: Operator, ...rest: A) => run(...rest))(operator, ...args);

  /** An admin act whose use case needs to know the operator too. */
  const actAs =
    <A extends readonly unknown[], T>(
      name: AdminUseCaseName,
      spec: ActSpec<A>,
      run: Run<[Operator, ...A], T>,
    ) =>
    async (operator: Operator, ...args: A): Promise<Outcome<T>> => {
      const allowed = await permitted(operator, adminPermissions[name]);
      if (E.isLeft(allowed)) return allowed;
      return withinAct(
        {
          actor: operatorActor(operator),
          action: spec.action,
          objectType: spec.objectType,
          detail: spec.detail?.(...args),
        },
        () => run(operator, ...args),
      );
    };

  return { read, act, actAs };
};
