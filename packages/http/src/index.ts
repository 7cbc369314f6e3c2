/**
 * @payrail/http: the HTTP adapter. `createApp(deps)` is the Hono app (merchant API, admin API,
 * checkout calls, `/openapi.json`); `serve` runs it on Node.
 */
export * from './client-ip.js';
export * from './create-app.js';
export * from './envelope.js';
export * from './openapi/json-schema.converter.js';
export * from './openapi/openapi.document.js';
export * from './rate-limiter.js';
export * from './serve.js';
