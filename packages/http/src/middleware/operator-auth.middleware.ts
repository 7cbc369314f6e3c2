/**
 * `/admin/*`: `Authorization: Bearer <operator token>` (decisions §8), compared in constant
 * time; anything else is `unauthorized`.
 */
import { payrailError } from '@payrail/core';
import type { MiddlewareHandler } from 'hono';
import { errorAnswer } from '../envelope.js';
import { operatorTokenMatches } from '../operator-token.js';
import type { AuthenticationLimitEnv } from './address-limit.middleware.js';

export const operatorAuthentication =
  (adminToken: string): MiddlewareHandler<AuthenticationLimitEnv> =>
  async (c, next) => {
    const presented = /^Bearer +(\S+) *$/i.exec(c.req.header('Authorization') ?? '')?.[1];
    if (!operatorTokenMatches(adminToken, presented)) {
      return errorAnswer(c, payrailError('unauthorized'));
    }
    // The address's failed-authentication budget is not this request's to hold any longer.
    c.get('authenticated')?.();
    return next();
  };
