/**
 * `/admin/*`: `Authorization: Bearer <credential>` (ADR 0039). The configured admin token
 * (docs/spec/decisions.md §8), compared in constant time, is the bootstrap operator; anything else is checked
 * by the engine as a named operator's credential. Either way the operator, with the request's id
 * and client address, is what the admin routes act as; a bad credential is `unauthorized`.
 */
import { payrailError } from '@payrail/core';
import { bootstrapOperator, type Engine, type Operator } from '@payrail/engine';
import type { MiddlewareHandler } from 'hono';
import type { ClientIpResolver } from '../client-ip.js';
import { errorAnswer } from '../envelope.js';
import { operatorTokenMatches } from '../operator-token.js';
import { type AuthenticationVariables, bearerCredential } from './authentication.js';

export interface OperatorEnv {
  Variables: { operator: Operator } & AuthenticationVariables;
}

export const operatorAuthentication =
  (
    engine: Engine,
    adminToken: string,
    clientIp: ClientIpResolver,
  ): MiddlewareHandler<OperatorEnv> =>
  async (c, next) => {
    const presented = bearerCredential(c);
    const ip = clientIp(c);
    let operator: Operator;
    if (operatorTokenMatches(adminToken, presented)) {
      operator = bootstrapOperator;
    } else {
      const outcome = await engine.auth.authenticateOperator({ token: presented, ip });
      if (outcome._tag === 'Left') return errorAnswer(c, payrailError('unauthorized'));
      operator = outcome.right;
    }
    // The address's failed-authentication budget is not this request's to hold any longer.
    c.get('authenticated')?.();
    c.set('operator', { ...operator, request_id: c.get('requestId'), client_ip: ip });
    return next();
  };
