/**
 * The `{code, message, data}` envelope (docs/spec/decisions.md §1). Every answer of the app goes through
 * `answer`, so status, code and message always come from the core's catalogue.
 */
import { errorEnvelope, type PayrailError, payrailError } from '@payrail/core';
import type { Data, Outcome } from '@payrail/engine';
import type { Context } from 'hono';

/** Success is always HTTP 200, creates included: decisions.md names no other success status. */
const successEnvelope = (data: Data) => ({ code: 0, message: 'success', data }) as const;

/** The answer to a refused request: the catalogue's status and code, `data: null`. */
export const errorAnswer = (c: Context, error: PayrailError): Response => {
  c.header('Cache-Control', 'no-store');
  return c.json(errorEnvelope(error), error.httpStatus);
};

/** The answer to an engine outcome. */
export const answer = (c: Context, outcome: Outcome<Data>): Response => {
  if (outcome._tag === 'Left') return errorAnswer(c, outcome.left);
  // Answers may carry a secret shown once (an API key token, a webhook secret): never cached.
  c.header('Cache-Control', 'no-store');
  return c.json(successEnvelope(outcome.right), 200);
};

/** `internal error`: what a client sees of anything unexpected. */
export const internalErrorAnswer = (c: Context): Response =>
  errorAnswer(c, payrailError('internal_error'));
