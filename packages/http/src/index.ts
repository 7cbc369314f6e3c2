/**
 * @payrail/http: the HTTP adapter. `createApp(deps)` is the Hono app (merchant API, admin API,
 * checkout calls, `/openapi.json`); `serve` runs it on Node.
 */
export * from './client-ip.js';
export * from './create-app.js';
export * from './envelope.js';
/** @public What the access log is told of each request (`AppDeps.logRequest`). */
export type { AccessLogEntry } from './middleware/access-log.middleware.js';
/** @public What `AppDeps.observability` measures and answers (docs/observability.md). */
export type { ObservedRequest } from './middleware/request-metrics.middleware.js';
export * from './openapi/json-schema.converter.js';
export * from './openapi/openapi.document.js';
export * from './rate-limiter.js';
/** @public `/readyz` and `/metrics`: what the server gives `AppDeps.observability`. */
export type {
  CheckState,
  HealthRoutes,
  MetricsExposition,
  Readiness,
} from './routes/health.routes.js';
export * from './serve.js';
