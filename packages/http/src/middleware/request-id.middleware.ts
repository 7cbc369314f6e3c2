/**
 * Every request has an id: the client's `X-Request-Id` when it is a plain token (1-128 of
 * `A-Z a-z 0-9 . _ : -`, so it cannot write a log line or a header of its own), else a new UUID.
 * The answer carries it back in `X-Request-Id` (every answer of the app: a success, a catalogue
 * error, a refusal before authentication, `route not found`, `internal error`), the access log
 * writes it in the request's record, and the audit trail records it with each act, so a
 * merchant's or an operator's log line finds both.
 */
import type { MiddlewareHandler } from 'hono';

export interface RequestIdEnv {
  Variables: { requestId: string };
}

const requestIdShape = /^[A-Za-z0-9._:-]{1,128}$/;

const requestIdOf = (sent: string | undefined): string =>
  sent !== undefined && requestIdShape.test(sent) ? sent : crypto.randomUUID();

export const requestId: MiddlewareHandler<RequestIdEnv> = async (c, next) => {
  const id = requestIdOf(c.req.header('X-Request-Id'));
  c.set('requestId', id);
  c.header('X-Request-Id', id);
  await next();
};
