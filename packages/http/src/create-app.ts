/**
 * The HTTP adapter: a Hono app that only translates. A request becomes a use case call (path
 * parameters, query, parsed body, the authenticated caller) and the engine's outcome becomes the
 * `{code, message, data}` envelope. The app is a value: tests call `app.request()`; `serve` puts
 * it on a Node socket.
 */
import type { IncomingMessage } from 'node:http';
import { payrailError } from '@payrail/core';
import type { Engine } from '@payrail/engine';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import {
  type ClientIpResolver,
  clientIpResolver,
  socketAddress,
  untrustedForwardingWatch,
} from './client-ip.js';
import { answer, errorAnswer, internalErrorAnswer } from './envelope.js';
import { logField } from './log-field.js';
import {
  type AccessLogEntry,
  accessLog,
  routeTemplateOf,
} from './middleware/access-log.middleware.js';
import {
  addressRateLimit,
  failedAuthenticationLimit,
} from './middleware/address-limit.middleware.js';
import { type MerchantEnv, merchantAuthentication } from './middleware/merchant-auth.middleware.js';
import { type OperatorEnv, operatorAuthentication } from './middleware/operator-auth.middleware.js';
import { requestId } from './middleware/request-id.middleware.js';
import { type ObservedRequest, observeRequests } from './middleware/request-metrics.middleware.js';
import { bodyTextOf, nodeBodyOf, nodeBodyRead, nodeRequestOf } from './node-body.js';
import { nonTextInRequest, pathParameter } from './non-text.js';
import { openApiDocument } from './openapi/openapi.document.js';
import { type RateLimitOptions, tokenBucketLimiter } from './rate-limiter.js';
import { readJsonBody } from './request-body.js';
import { type HealthRoutes, mountHealthRoutes } from './routes/health.routes.js';
import { answersText, honoPath, type Route, type RouteRequest } from './routes/route.js';
import { routes } from './routes/route-table.js';
import { textAnswer } from './text-answer.js';

/** 1 MiB: a 500-item crypto batch is well under 200 KiB. */
const defaultBodyLimitBytes = 1024 * 1024;

/**
 * What is logged of an unexpected failure: never a header, so never a token; `method` and `path`
 * with control characters escaped (`\u000d`), so a line stays one line.
 */
export interface InternalErrorLog {
  readonly method: string;
  readonly path: string;
  readonly error: unknown;
  /** The request's id, as its access log entry and its answer's `X-Request-Id` carry it. */
  readonly request_id: string;
  /** The route template, when a route matched. */
  readonly route?: string;
}

export interface AppDeps {
  readonly engine: Engine;
  /** The operator token of `/admin` (docs/spec/decisions.md §8). */
  readonly adminToken: string;
  /** Per-key limit (docs/spec/decisions.md §9); `{ requestsPerSecond: 0 }` turns it off. */
  readonly rateLimit?: RateLimitOptions;
  /**
   * Per client address, before authentication (issue 12, finding 6): `failedAuthentications`
   * per 10 s on `/payment` and as many on `/admin` (default 50), `requestsPerSecond` on
   * `/checkout` and `/upstream` (default 100, burst twice that); 0 turns either off.
   */
  readonly addressLimit?: {
    readonly failedAuthentications?: number;
    readonly requestsPerSecond?: number;
    /** Milliseconds; tests move it by hand. */
    readonly now?: () => number;
  };
  /** Addresses or CIDR blocks whose `X-Forwarded-For` is believed (docs/spec/decisions.md §7). */
  readonly trustedProxies?: readonly string[];
  readonly bodyLimitBytes?: number;
  /** Where clients reach the API, e.g. `https://api.example.com`: `/openapi.json`'s `servers`. */
  readonly publicUrl?: string;
  /** Reads the socket address; default `@hono/node-server`'s socket, else 127.0.0.1. */
  readonly clientIp?: ClientIpResolver;
  /** Where unexpected failures are logged; default `console.error`. */
  readonly logInternalError?: (entry: InternalErrorLog) => void;
  /**
   * The access log: told of every request once it is answered (its id, method, route template,
   * status, duration and principal; never a header, a body or a query). Default: not told.
   */
  readonly logRequest?: (entry: AccessLogEntry) => void;
  /**
   * Told once, with the peer's address, at the first request carrying `X-Forwarded-For` or
   * `Forwarded` from a peer outside `trustedProxies`: every client behind it has its address
   * (ip_whitelist and providers' sources cannot tell them apart). Default: not told.
   */
  readonly warnUntrustedForwarding?: (peer: string) => void;
  /**
   * `/healthz`, `/readyz` and `/metrics` (docs/observability.md), and each request measured.
   * Absent: none of the three routes (the server always gives it).
   */
  readonly observability?: HealthRoutes & {
    readonly requestObserved?: (request: ObservedRequest) => void;
  };
}

const defaultLog = ({ method, path, error }: InternalErrorLog): void => {
  console.error(`[payrail/http] ${method} ${path} failed:`, error);
};

const routeRequest = async (c: Context, route: Route): Promise<RouteRequest> => {
  // An upstream body is the provider's own format: read for it, described by no codec here.
  const reads = route.body !== undefined || route.scope === 'upstream';
  // Under Node the body comes off Node's stream (node-body.ts); its length was checked against
  // the limit before (`limitBodies`).
  const incoming = route.method === 'get' ? undefined : nodeRequestOf(c);
  if (incoming !== undefined) await nodeBodyOf(incoming, Number.POSITIVE_INFINITY);
  // A body sent to a POST or DELETE that reads none is still read to its end (within the body
  // limit) and dropped: Node closes a kept-alive connection whose request body was left unread,
  // and the client's next request on it would fail with no answer (found by fuzzing, issue 13).
  else if (!reads && route.method !== 'get') await c.req.arrayBuffer();
  return {
    param: (name) => pathParameter(c.req.param(name) ?? ''),
    query: c.req.query(),
    body: reads ? await readJsonBody(c) : undefined,
  };
};

/** Whether the request announces a body (a length above zero, or chunks). */
const hasBody = (headers: Headers): boolean =>
  headers.has('transfer-encoding') || Number(headers.get('content-length') ?? '0') > 0;

/** `hasBody` of Node's request. */
const hasNodeBody = ({ headers }: IncomingMessage): boolean =>
  headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? '0') > 0;

/** What the app's middleware hands the routes: the caller or the operator, the request's id. */
export interface AppEnv {
  Variables: MerchantEnv['Variables'] & OperatorEnv['Variables'];
}

type PayrailHono = Hono<AppEnv>;

/** Tells `deps.warnUntrustedForwarding`, once, of forwarding headers from an untrusted peer. */
const watchUntrustedForwarding = (app: PayrailHono, deps: AppDeps): void => {
  const { warnUntrustedForwarding } = deps;
  if (warnUntrustedForwarding === undefined) return;
  const watch = untrustedForwardingWatch(
    deps.trustedProxies ?? [],
    deps.clientIp ?? socketAddress,
    warnUntrustedForwarding,
  );
  app.use('*', (c, next) => {
    watch(c);
    return next();
  });
};

/** The body limit, and `Connection: close` after an answer that left a body unread. */
const limitBodies = (app: PayrailHono, deps: AppDeps): void => {
  const maxSize = deps.bodyLimitBytes ?? defaultBodyLimitBytes;
  // No catalogue message names a size: a body over the limit breaks a length rule.
  const tooLarge = (c: Context) => {
    // The rest of the body is never read, so the connection cannot carry another request:
    // say so (Node then closes it after the answer) rather than advertise keep-alive.
    c.header('Connection', 'close');
    return errorAnswer(c, payrailError('validation_failed'));
  };
  const limitBody = bodyLimit({ maxSize, onError: tooLarge });
  // Under Node, as Hono's limit does it but on Node's stream (node-body.ts): a declared length
  // over the limit is refused unread, a body of chunks is read now and refused once it passes
  // the limit, a declared length within it is read when the route asks for it.
  const limitNodeBody: MiddlewareHandler = async (c, next) => {
    const incoming = nodeRequestOf(c);
    if (incoming === undefined) return limitBody(c, next);
    const declared = incoming.headers['content-length'];
    if (declared === undefined && incoming.headers['transfer-encoding'] === undefined) {
      return next();
    }
    if (declared !== undefined && Number(declared) <= maxSize) return next();
    return (await nodeBodyOf(incoming, maxSize)) === 'too large' ? tooLarge(c) : next();
  };
  // A GET's body is never read, and looking for one makes Node's adapter build the whole
  // `Request` object, which most of a GET's cost was (docs/performance.md).
  app.use('*', (c, next) => (c.req.method === 'GET' ? next() : limitNodeBody(c, next)));
  // An answer given before the body was read (a refused credential, a limit) leaves the rest of
  // the body on the connection, which Node then closes: say so, so that a keep-alive client
  // opens a new one rather than send its next request into a closing socket (found by fuzzing
  // over a socket, issue 13).
  const closeAfterUnreadBody: MiddlewareHandler = async (c, next) => {
    await next();
    const incoming = nodeRequestOf(c);
    const unread =
      incoming === undefined
        ? !c.req.raw.bodyUsed && hasBody(c.req.raw.headers)
        : hasNodeBody(incoming) && !(await nodeBodyRead(incoming));
    if (unread) c.header('Connection', 'close');
  };
  app.use('*', (c, next) => (c.req.method === 'GET' ? next() : closeAfterUnreadBody(c, next)));
};

/** The limits per client address, before authentication (issue 12, finding 6). */
const limitAddresses = (app: PayrailHono, deps: AppDeps, clientIp: ClientIpResolver): void => {
  const { failedAuthentications = 50, requestsPerSecond = 100, now } = deps.addressLimit ?? {};
  const clock = now === undefined ? {} : { now };
  // A budget per surface (issue 19, L4): bad merchant tokens must not lock the operator out of
  // `/admin` from the same address (an office behind one NAT), nor the reverse.
  // `/metrics` too, when a token guards it: guessing the token costs the guesser its budget.
  const guarded = deps.observability?.metrics.token === undefined ? [] : ['/metrics'];
  for (const path of ['/payment/*', '/admin/*', ...guarded]) {
    const failures = tokenBucketLimiter({
      requestsPerSecond: failedAuthentications / 10,
      burst: Math.max(1, failedAuthentications),
      ...clock,
    });
    app.use(path, failedAuthenticationLimit(failures, clientIp));
  }
  const openRoutes = tokenBucketLimiter({ requestsPerSecond, ...clock });
  for (const path of ['/checkout/*', '/upstream/*']) {
    app.use(path, addressRateLimit(openRoutes, clientIp));
  }
};

/** What is logged of a request's unexpected failure: never a header, so never a token. */
const failureOf = (c: Context<AppEnv>, error: unknown): InternalErrorLog => {
  const route = routeTemplateOf(c);
  return {
    // The path is the client's: escaped, so it cannot write a log line of its own.
    method: logField(c.req.method),
    path: logField(c.req.path),
    error,
    request_id: c.get('requestId'),
    ...(route === undefined ? {} : { route }),
  };
};

/**
 * Each route of the table: its request read and checked, its use case run, its answer sent (the
 * envelope, or a text export streamed as it is read).
 */
const mountRoutes = (
  app: PayrailHono,
  engine: Engine,
  clientIp: ClientIpResolver,
  log: (entry: InternalErrorLog) => void,
): void => {
  for (const route of routes) {
    app.on(route.method.toUpperCase(), honoPath(route.path), async (c) => {
      const request = await routeRequest(c, route);
      const refusal = nonTextInRequest(route, request);
      if (refusal !== undefined) return errorAnswer(c, refusal);
      if (answersText(route)) {
        const exported = await route.run(engine, c.get('caller'), request);
        if (exported._tag === 'Left') return errorAnswer(c, exported.left);
        return textAnswer(c, exported.right, (error) => log(failureOf(c, error)));
      }
      const outcome =
        route.scope === 'merchant'
          ? await route.run(engine, c.get('caller'), request)
          : route.scope === 'admin'
            ? await route.run(engine, c.get('operator'), request)
            : route.scope === 'upstream'
              ? await route.run(engine, {
                  ...request,
                  // The provider's signature covers the body as sent, not as we parsed it.
                  body: await bodyTextOf(c),
                  ip: clientIp(c),
                  headers: c.req.header(),
                })
              : await route.run(engine, request);
      return answer(c, outcome);
    });
  }
};

/** `/openapi.json`, built once at its first request. */
const serveOpenApi = (app: PayrailHono, deps: AppDeps): void => {
  let document: ReturnType<typeof openApiDocument> | undefined;
  app.get('/openapi.json', (c) => {
    document ??= openApiDocument(
      routes,
      deps.publicUrl === undefined ? {} : { publicUrl: deps.publicUrl },
    );
    return c.json(document);
  });
};

/** `route_not_found`, and the internal error of a failure, logged without its headers. */
const answerFailures = (app: PayrailHono, log: (entry: InternalErrorLog) => void): void => {
  app.notFound((c) => errorAnswer(c, payrailError('route_not_found')));
  app.onError((error, c) => {
    // A request whose client left or was cut off mid-body (the request timeout) failed on the
    // client's side: nobody reads the answer, and a flood of slow clients must not fill the log.
    if (c.req.raw.signal.aborted) return internalErrorAnswer(c, error);
    log(failureOf(c, error));
    return internalErrorAnswer(c, error);
  });
};

export const createApp = (deps: AppDeps) => {
  const { engine } = deps;
  const app: PayrailHono = new Hono<AppEnv>();
  app.use('*', requestId);
  if (deps.logRequest !== undefined) app.use('*', accessLog(deps.logRequest));
  app.use('*', observeRequests(deps.observability?.requestObserved));
  const clientIp = clientIpResolver(deps.trustedProxies, deps.clientIp ?? socketAddress);
  const limiter = tokenBucketLimiter(deps.rateLimit);
  watchUntrustedForwarding(app, deps);
  limitBodies(app, deps);
  limitAddresses(app, deps, clientIp);
  app.use('/payment/*', merchantAuthentication(engine, clientIp, limiter));
  app.use('/admin/*', operatorAuthentication(engine, deps.adminToken, clientIp));
  const log = deps.logInternalError ?? defaultLog;
  mountRoutes(app, engine, clientIp, log);
  serveOpenApi(app, deps);
  if (deps.observability !== undefined) mountHealthRoutes(app, deps.observability);
  answerFailures(app, log);
  return app;
};

export type PayrailApp = ReturnType<typeof createApp>;
