/**
 * `/payment/*`: the API key (docs/spec/decisions.md §7) and the per-key rate limit (§9). The key comes from
 * `Authorization: Bearer <token>` or `X-API-Key: <token>`; the engine checks it against its key
 * record and answers every Authentication message of the interface; the client address is the
 * socket's unless trusted proxies are configured.
 */
import { payrailError } from '@payrail/core';
import type { Caller, Engine } from '@payrail/engine';
import type { Context, MiddlewareHandler } from 'hono';
import type { ClientIpResolver } from '../client-ip.js';
import { errorAnswer } from '../envelope.js';
import type { RateLimiter } from '../rate-limiter.js';
import { type AuthenticationVariables, bearerCredential } from './authentication.js';

export interface MerchantEnv {
  Variables: { caller: Caller } & AuthenticationVariables;
}

/**
 * The presented token: the Bearer credential of `Authorization`, else `X-API-Key`. A malformed
 * `Authorization` (another scheme, no token) presents nothing, which the engine answers
 * `unauthorized`.
 */
const presentedToken = (c: Context): string | undefined => {
  const bearer = bearerCredential(c);
  if (bearer !== undefined) return bearer;
  const apiKey = c.req.header('X-API-Key')?.trim();
  return apiKey === undefined || apiKey === '' ? undefined : apiKey;
};

export const merchantAuthentication =
  (
    engine: Engine,
    clientIp: ClientIpResolver,
    limiter: RateLimiter,
  ): MiddlewareHandler<MerchantEnv> =>
  async (c, next) => {
    const ip = clientIp(c);
    const outcome = await engine.auth.authenticate({ token: presentedToken(c), ip });
    if (outcome._tag === 'Left') return errorAnswer(c, outcome.left);
    // The address's failed-authentication budget is not this request's to hold any longer.
    c.get('authenticated')?.();
    const caller = outcome.right;
    const decision = limiter.take(caller.key_id);
    if (!decision.allowed) {
      c.header('Retry-After', String(decision.retryAfterSeconds));
      return errorAnswer(c, payrailError('rate_limit_exceeded'));
    }
    // Who acted and from where, for the audit trail.
    c.set('caller', { ...caller, request_id: c.get('requestId'), client_ip: ip });
    return next();
  };
