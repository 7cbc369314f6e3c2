/**
 * Each request measured (docs/observability.md): the host's `requestObserved` is told its method,
 * route template (`/payment/payouts/:payout_id`, never the path: ids must not become metric
 * labels), status and seconds; and through `@opentelemetry/api`, one server span per request,
 * `<METHOD> <route template>`, active while the request runs so that the engine's spans nest in
 * it. The span is a no-op unless the host registered a tracer provider.
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { routeTemplateOf } from './access-log.middleware.js';
import type { RequestIdEnv } from './request-id.middleware.js';

/** What is measured of one answered request. */
export interface ObservedRequest {
  /** `GET`, `POST`, ...; any other method is `OTHER`. */
  readonly method: string;
  /** The route template, or `unmatched` (a 404 `route not found`). */
  readonly route: string;
  readonly status: number;
  /** From the request's arrival to its answer's headers. */
  readonly seconds: number;
}

const knownMethods: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
]);

/** The route of a request no route matched: one label value for every unknown path. */
const unmatchedRoute = 'unmatched';

const tracerName = '@payrail/http';

export const observeRequests =
  (requestObserved?: (request: ObservedRequest) => void): MiddlewareHandler<RequestIdEnv> =>
  async (c, next) => {
    const started = performance.now();
    const method = knownMethods.has(c.req.method) ? c.req.method : 'OTHER';
    const span = trace.getTracer(tracerName).startSpan(method, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'payrail.request_id': c.get('requestId') },
    });
    try {
      await context.with(trace.setSpan(context.active(), span), next);
    } finally {
      const route = routeTemplateOf(c) ?? unmatchedRoute;
      const status = c.res.status;
      span.updateName(`${method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      const seconds = (performance.now() - started) / 1000;
      try {
        requestObserved?.({ method, route, status, seconds });
      } catch {
        // Measuring must never change an answer.
      }
    }
  };
