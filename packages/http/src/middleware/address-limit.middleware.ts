/**
 * Limits by client address, before any credential is read (issue 12, finding 6; ADR 0034):
 *  - `/payment/*` and `/admin/*`: failed authentications (answers 401), a budget per surface
 *    (issue 19, L4: bad merchant tokens must not lock the operator out). An address whose budget
 *    is spent is answered 429 `rate limit exceeded` before its token is even looked at, so a
 *    flood of bad tokens costs one bucket lookup each; a client with a good key never spends it.
 *  - `/checkout/*` and `/upstream/*` (no API key): every request.
 * The per-key limit (docs/spec/decisions.md §9) still runs after authentication.
 */
import { payrailError } from '@payrail/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { ClientIpResolver } from '../client-ip.js';
import { errorAnswer } from '../envelope.js';
import type { RateDecision, RateLimiter } from '../rate-limiter.js';

/** What `failedAuthenticationLimit` leaves for the authentication after it. */
export interface AuthenticationLimitEnv {
  Variables: {
    /** Gives the request's reserved token back: the credential was good. */
    authenticated?: () => void;
  };
}

const tooMany = (c: Context, decision: RateDecision & { allowed: false }): Response => {
  c.header('Retry-After', String(decision.retryAfterSeconds));
  return errorAnswer(c, payrailError('rate_limit_exceeded'));
};

/**
 * Refuses an address that failed authentication too often; counts each 401 it is answered. The
 * token is reserved before the credential is checked (issue 19, L4): only looking at the budget
 * first let bad tokens sent at once pass together (99 of 400 through a limit of 50). The
 * authentication gives it back as soon as the credential is good, so good requests in flight
 * hold it only while their key is checked; anything else but a 401 gives it back when answered.
 */
export const failedAuthenticationLimit =
  (limiter: RateLimiter, clientIp: ClientIpResolver): MiddlewareHandler<AuthenticationLimitEnv> =>
  async (c, next) => {
    const reservation = await limiter.reserve(clientIp(c));
    if (!reservation.allowed) return tooMany(c, reservation);
    c.set('authenticated', reservation.release);
    try {
      await next();
    } finally {
      // Released already when the credential was good; a second settling changes nothing.
      if (c.res.status === 401) reservation.spend();
      else reservation.release();
    }
    return undefined;
  };

/** Refuses an address that sends more than its rate. */
export const addressRateLimit =
  (limiter: RateLimiter, clientIp: ClientIpResolver): MiddlewareHandler =>
  async (c, next) => {
    const decision = limiter.take(clientIp(c));
    return decision.allowed ? next() : tooMany(c, decision);
  };
