/**
 * Limits by client address, before any credential is read (issue 12, finding 6; ADR 0034):
 *  - `/payment/*` and `/admin/*`: failed authentications (answers 401). An address whose bucket is
 *    empty is answered 429 `rate limit exceeded` before its token is even looked at, so a flood
 *    of bad tokens costs one bucket lookup each; a client with a good key never spends a token.
 *  - `/checkout/*` and `/upstream/*` (no API key): every request.
 * The per-key limit (decisions §9) still runs after authentication.
 */
import { payrailError } from '@payrail/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { ClientIpResolver } from '../client-ip.js';
import { errorAnswer } from '../envelope.js';
import type { RateDecision, RateLimiter } from '../rate-limiter.js';

const tooMany = (c: Context, decision: RateDecision & { allowed: false }): Response => {
  c.header('Retry-After', String(decision.retryAfterSeconds));
  return errorAnswer(c, payrailError('rate_limit_exceeded'));
};

/** Refuses an address that failed authentication too often; counts each 401 it is answered. */
export const failedAuthenticationLimit =
  (limiter: RateLimiter, clientIp: ClientIpResolver): MiddlewareHandler =>
  async (c, next) => {
    const address = clientIp(c);
    const decision = limiter.peek(address);
    if (!decision.allowed) return tooMany(c, decision);
    await next();
    if (c.res.status === 401) limiter.take(address);
    return undefined;
  };

/** Refuses an address that sends more than its rate. */
export const addressRateLimit =
  (limiter: RateLimiter, clientIp: ClientIpResolver): MiddlewareHandler =>
  async (c, next) => {
    const decision = limiter.take(clientIp(c));
    return decision.allowed ? next() : tooMany(c, decision);
  };
