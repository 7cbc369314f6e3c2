/** `auth.authenticateOperator`: a presented token against the operators (ADR 0039). */
import { type OperatorRecord, payrailError } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { type Outcome, unitOfWork } from '../command/command.handler.js';
import type { AuthenticationRequest, Operator } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { readOperatorCredential, secretMatches } from './operator-credential.crypto.js';

/** Whether `record` is an operator that `secret` may act as now. */
const admits = (
  record: OperatorRecord | undefined,
  secret: string,
  clock: EngineDeps['clock'],
): record is OperatorRecord =>
  record !== undefined &&
  secretMatches(secret, record.token_hash) &&
  record.status === 'active' &&
  clock.now() < record.expires_at;

/**
 * A presented token against the operators: no token, not an operator credential, an unknown
 * operator, a secret that does not match, a disabled operator or an expired credential all
 * answer `unauthorized` (an operator's credential says nothing about why to whoever holds it).
 */
export const authenticateOperator = async (
  deps: EngineDeps,
  { token, ip }: AuthenticationRequest,
): Promise<Outcome<Operator>> => {
  const credential = token === undefined ? undefined : readOperatorCredential(token);
  if (credential === undefined) return E.left(payrailError('unauthorized'));
  const read = await unitOfWork(deps.store, (tx) => tx.operators.get(credential.operatorId));
  if (E.isLeft(read)) return read;
  const record = read.right;
  if (!admits(record, credential.secret, deps.clock)) return E.left(payrailError('unauthorized'));
  return E.right({
    operator_id: record.operator_id,
    name: record.name,
    role: record.role,
    client_ip: ip,
  });
};
