/**
 * The access log (issue 22): one entry per request once its answer is decided, handed to the
 * host's `logRequest` (the server writes it as a JSON line). An entry names the route by its
 * template (`/payment/payouts/:payout_id`), never by the path or the query, and the principal by
 * its id: it carries no header, no body and no query string, so no token or secret can be in it.
 */
import type { Caller, Operator } from '@payrail/engine';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { RequestIdEnv } from './request-id.middleware.js';

/** What the access log is told of one request. */
export interface AccessLogEntry {
  /** The request's id: the client's `X-Request-Id` when it was a plain token, else a UUID. */
  readonly request_id: string;
  readonly method: string;
  /** The route template; absent when no route matched (a 404 `route not found`). */
  readonly route?: string;
  /** The answer's status; 499 when the client left or was cut off before it was answered. */
  readonly status: number;
  /** Milliseconds from the request's arrival to its answer's headers, to 0.1 ms. */
  readonly duration_ms: number;
  /** The API key (`/payment`) or the operator (`/admin`, `bootstrap` for the admin token). */
  readonly principal_id?: string;
  /** The merchant account of the API key (`/payment`). */
  readonly account_id?: string;
}

/** What the access log reads of the request's variables; each may be unset. */
interface AccessLogEnv {
  Variables: RequestIdEnv['Variables'] & { caller?: Caller; operator?: Operator };
}

/** `app.use` registers its middleware for the method `ALL`; a route names its own method. */
const middlewareMethod = 'ALL';

/** The template of the route the request matched, `/payment/payouts/:payout_id`, if any. */
export const routeTemplateOf = (c: Context): string | undefined =>
  matchedRoutes(c).findLast((route) => route.method !== middlewareMethod)?.path;

/** nginx's "client closed request": the client never read an answer. */
const clientLeft = 499;

/** What `@hono/node-server` binds of Node's answer (`c.env.outgoing`; `server` when nested). */
interface NodeAnswerBindings {
  readonly outgoing?: { readonly destroyed: boolean; readonly writableFinished: boolean };
  readonly server?: NodeAnswerBindings;
}

/**
 * Whether the client left before its answer. Under Node, the answer's own state says so (its
 * socket closed, the answer unfinished: what `@hono/node-server` aborts the request's signal
 * on); reading `c.req.raw.signal` there would make the adapter build an AbortController for
 * every request only to be asked this (issue 24). Elsewhere, the request's signal.
 */
const clientHasLeft = (c: Context): boolean => {
  const env: NodeAnswerBindings | undefined = c.env;
  const outgoing = (env?.server ?? env)?.outgoing;
  return outgoing === undefined
    ? c.req.raw.signal.aborted
    : outgoing.destroyed && !outgoing.writableFinished;
};

const principalOf = (
  c: Context<AccessLogEnv>,
): Pick<AccessLogEntry, 'principal_id' | 'account_id'> => {
  const caller = c.get('caller');
  if (caller !== undefined) return { principal_id: caller.key_id, account_id: caller.account_id };
  const operator = c.get('operator');
  return operator === undefined ? {} : { principal_id: operator.operator_id };
};

export const accessLog =
  (logRequest: (entry: AccessLogEntry) => void): MiddlewareHandler<AccessLogEnv> =>
  async (c, next) => {
    const started = performance.now();
    await next();
    const route = routeTemplateOf(c);
    logRequest({
      request_id: c.get('requestId'),
      method: c.req.method,
      ...(route === undefined ? {} : { route }),
      status: clientHasLeft(c) ? clientLeft : c.res.status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      ...principalOf(c),
    });
  };
