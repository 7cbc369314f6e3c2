/**
 * The `{code, message, data}` envelope (docs/spec/decisions.md §1). Every answer of the app goes through
 * `answer`, so status, code and message always come from the core's catalogue.
 */
import {
  type AccessRefusal,
  errorEnvelope,
  isStoreUnavailable,
  type PayrailError,
  payrailError,
} from '@payrail/core';
import type { Data, Outcome } from '@payrail/engine';
import type { Context } from 'hono';

/** Success is always HTTP 200, creates included: decisions.md names no other success status. */
const successEnvelope = (data: Data) => ({ code: 0, message: 'success', data }) as const;

/**
 * The headers a `forbidden` names what is missing in (ADR 0050): the interface fixes the message
 * to `forbidden` and an error's `data` to `null`, so the reason travels beside the envelope.
 */
export const refusalHeaders = {
  /** The permissions the key (or the operator's role) lacks, comma-separated. */
  missingPermission: 'Payrail-Missing-Permission',
  /** The product the account has not enabled: `payout` or `acquiring`. */
  productNotEnabled: 'Payrail-Product-Not-Enabled',
} as const;

const refusalHeadersOf = (refusal: AccessRefusal): Readonly<Record<string, string>> =>
  'missingPermissions' in refusal
    ? { [refusalHeaders.missingPermission]: refusal.missingPermissions.join(', ') }
    : { [refusalHeaders.productNotEnabled]: refusal.productNotEnabled };

/**
 * When a client may try again after `service unavailable` (ADR 0051): a failover finds the new
 * primary within seconds, and a client that comes back sooner meets another 503, which costs
 * the service one search at most (concurrent requests share it). One second keeps a waiting
 * payment short without letting clients spin.
 */
const unavailableRetryAfterSeconds = 1;

/**
 * The answer to a refused request: the catalogue's status and code, `data: null`; a `forbidden`
 * that knows what is missing names it in a header.
 */
export const errorAnswer = (c: Context, error: PayrailError): Response => {
  c.header('Cache-Control', 'no-store');
  if (error.kind === 'unavailable') c.header('Retry-After', String(unavailableRetryAfterSeconds));
  if (error.refusal !== undefined) {
    for (const [name, value] of Object.entries(refusalHeadersOf(error.refusal))) {
      c.header(name, value);
    }
  }
  return c.json(errorEnvelope(error), error.httpStatus);
};

/** The answer to an engine outcome. */
export const answer = (c: Context, outcome: Outcome<Data>): Response => {
  if (outcome._tag === 'Left') return errorAnswer(c, outcome.left);
  // Answers may carry a secret shown once (an API key token, a webhook secret): never cached.
  c.header('Cache-Control', 'no-store');
  return c.json(successEnvelope(outcome.right), 200);
};

/**
 * `internal error`: what a client sees of anything unexpected; `service unavailable` (503,
 * `Retry-After`) when the store could not reach its database (ADR 0051), so a client repeats
 * the request (with its idempotency key) rather than report a bug.
 */
export const internalErrorAnswer = (c: Context, error?: unknown): Response =>
  errorAnswer(
    c,
    isStoreUnavailable(error)
      ? payrailError('service_unavailable')
      : payrailError('internal_error'),
  );
