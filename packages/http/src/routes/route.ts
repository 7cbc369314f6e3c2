/**
 * One route of the app: what Hono registers and what `/openapi.json` describes, from one value.
 * `body` and `query` name the core codecs the engine validates with; the document is generated
 * from them, so the description cannot drift from what is enforced.
 */
import type { ErrorKey } from '@payrail/core';
import type { Caller, Data, Engine, Outcome, Permission, Query } from '@payrail/engine';
import type { CodecLike } from '../openapi/json-schema.converter.js';
import type { JsonSchema } from '../openapi/json-schema.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/** What a route hands the engine, already read from the request. */
export interface RouteRequest {
  /** A path parameter; the route's path guarantees it is there. */
  param(name: string): string;
  readonly query: Query;
  /** The parsed JSON body; `undefined` when empty or unparsable (`request required`). */
  readonly body: unknown;
}

/** The envelope's `data` of a success, for the document. */
export interface ResponseDoc {
  readonly description: string;
  readonly schema: JsonSchema;
}

interface RouteDoc {
  readonly method: HttpMethod;
  /** OpenAPI style: `/payment/payouts/{payout_id}`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  /** The body's codec; a route without one ignores the body. */
  readonly body?: CodecLike;
  /** The list query's codec. */
  readonly query?: CodecLike;
  readonly response: ResponseDoc;
  /** Catalogue groups whose messages this route may answer (besides the common ones). */
  readonly errorGroups?: readonly string[];
  /** Single messages this route may answer, outside its groups. */
  readonly errors?: readonly ErrorKey[];
}

/** `/payment/*`: an API key; the engine checks the permissions listed here (for the docs). */
export interface MerchantRoute extends RouteDoc {
  readonly scope: 'merchant';
  readonly permissions: readonly Permission[];
  run(engine: Engine, caller: Caller, request: RouteRequest): Promise<Outcome<Data>>;
}

/** `/admin/*` (operator token) and `/checkout/api/*` (the order id is the capability). */
export interface OpenRoute extends RouteDoc {
  readonly scope: 'admin' | 'checkout';
  run(engine: Engine, request: RouteRequest): Promise<Outcome<Data>>;
}

/** What an upstream route also reads: who called (the provider's allow-list) and the headers. */
export interface UpstreamRouteRequest extends RouteRequest {
  /** The client address, as for merchant routes (trusted proxies rule). */
  readonly ip: string;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
}

/** `/upstream/*`: a provider's callback; no credential, its source addresses instead. */
export interface UpstreamRoute extends RouteDoc {
  readonly scope: 'upstream';
  run(engine: Engine, request: UpstreamRouteRequest): Promise<Outcome<Data>>;
}

export type Route = MerchantRoute | OpenRoute | UpstreamRoute;

/** `/payment/payouts/{payout_id}` -> `/payment/payouts/:payout_id` (Hono's syntax). */
export const honoPath = (path: string): string => path.replace(/\{([a-z_]+)\}/g, ':$1');

/** The `{name}` parameters of a path, in order. */
export const pathParameters = (path: string): string[] =>
  Array.from(path.matchAll(/\{([a-z_]+)\}/g), (match) => match[1] ?? '');
