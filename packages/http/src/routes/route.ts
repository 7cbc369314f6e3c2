/**
 * One route of the app: what Hono registers and what `/openapi.json` describes, from one value.
 * `body` and `query` name the core codecs the engine validates with; the document is generated
 * from them, so the description cannot drift from what is enforced.
 */

import type { OperatorPermission } from '@payrail/core';
import { type ErrorKey, pageOf, resourceAnswerOf } from '@payrail/core';
import type {
  Caller,
  Data,
  Engine,
  Operator,
  Outcome,
  Permission,
  Query,
  TextExport,
} from '@payrail/engine';
import type { CodecLike } from '../openapi/json-schema.converter.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/** What a route hands the engine, already read from the request. */
export interface RouteRequest {
  /** A path parameter; the route's path guarantees it is there. */
  param(name: string): string;
  readonly query: Query;
  /** The parsed JSON body; `undefined` when empty or unparsable (`request required`). */
  readonly body: unknown;
}

/**
 * A core answer codec, as far as routes need it: the converter reads its structure, and `_A`
 * (io-ts's phantom of the type it describes) is the type the route's use case must answer.
 */
export interface AnswerCodec<A extends Data = Data> extends CodecLike {
  readonly _A: A;
}

/** What `codec` describes: the `data` a route answers. */
export type AnswerOf<C extends AnswerCodec> = C['_A'];

/** The envelope's `data` of a success: its codec (the document's schema) and a description. */
export interface ResponseDoc<C extends AnswerCodec = AnswerCodec> {
  readonly description: string;
  readonly codec: C;
}

/**
 * A success answered as text streamed as it is read (a CSV export, ADR 0045) instead of the
 * envelope: its media type, what the document says of it, and its first lines as an example.
 * A refusal is still the envelope, with the catalogue's status.
 */
export interface TextResponseDoc {
  readonly description: string;
  readonly mediaType: TextExport['media_type'];
  readonly example: string;
}

type View = Parameters<typeof resourceAnswerOf>[1];

/** A success answering one resource as `data.<key>`; `note` says what else the answer tells. */
export const resource = <K extends string, C extends View>(
  key: K,
  view: C,
  note?: string,
): { description: string; codec: ReturnType<typeof resourceAnswerOf<K, C>> } => ({
  description: note === undefined ? `data.${key}` : `data.${key}, ${note}`,
  codec: resourceAnswerOf(key, view),
});

/** A success answering one page of `items` (docs/spec/decisions.md §9). */
export const page = <C extends View>(
  items: string,
  view: C,
): { description: string; codec: ReturnType<typeof pageOf<C>> } => ({
  description: `a page of ${items}`,
  codec: pageOf(view),
});

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
  /** A body this route accepts, shown in the document (create operations have one). */
  readonly example?: unknown;
}

/** `/payment/*`: an API key; the engine checks the permissions listed here (for the docs). */
export interface MerchantRoute extends RouteDoc {
  readonly scope: 'merchant';
  readonly permissions: readonly Permission[];
  run(engine: Engine, caller: Caller, request: RouteRequest): Promise<Outcome<Data>>;
}

/** `/payment/*` answering streamed text (`TextResponseDoc`), such as a CSV statement. */
export interface MerchantTextRoute extends Omit<RouteDoc, 'response'> {
  readonly scope: 'merchant';
  readonly permissions: readonly Permission[];
  readonly response: TextResponseDoc;
  run(engine: Engine, caller: Caller, request: RouteRequest): Promise<Outcome<TextExport>>;
}

/** Whether the route answers streamed text rather than the envelope. */
export const answersText = (route: Route): route is MerchantTextRoute =>
  'mediaType' in route.response;

/**
 * `/admin/*`: an operator's credential or the admin token; the engine checks the role against the
 * permission listed here (ADR 0039), which the document and the role matrix show.
 */
export interface AdminRoute extends RouteDoc {
  readonly scope: 'admin';
  readonly permission: OperatorPermission;
  run(engine: Engine, operator: Operator, request: RouteRequest): Promise<Outcome<Data>>;
}

/** `/checkout/api/*` (the order id is the capability). */
export interface OpenRoute extends RouteDoc {
  readonly scope: 'checkout';
  run(engine: Engine, request: RouteRequest): Promise<Outcome<Data>>;
}

/**
 * What an upstream route reads: the body as received (the provider verifies its signature over
 * those exact bytes before anything parses them), who called (the provider's allow-list) and
 * the headers.
 */
export interface UpstreamRouteRequest extends Omit<RouteRequest, 'body'> {
  /** The body exactly as received; `''` when none. */
  readonly body: string;
  /** The client address, as for merchant routes (trusted proxies rule). */
  readonly ip: string;
  /** Header names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
}

/** `/upstream/*`: a provider's callback; no API key: the provider's signature and source addresses. */
export interface UpstreamRoute extends RouteDoc {
  readonly scope: 'upstream';
  run(engine: Engine, request: UpstreamRouteRequest): Promise<Outcome<Data>>;
}

export type Route = MerchantRoute | MerchantTextRoute | AdminRoute | OpenRoute | UpstreamRoute;

/**
 * A route whose `run` must answer what its `response` codec describes: the compiler holds the
 * engine's answer to the document's schema (the suites then hold the wire to it, field by field).
 */
export type TypedRoute<R extends Route, C extends AnswerCodec> = Omit<R, 'response' | 'run'> & {
  readonly response: ResponseDoc<C>;
  run(...args: Parameters<R['run']>): Promise<Outcome<AnswerOf<C>>>;
};

export const merchantRoute = <C extends AnswerCodec>(
  route: TypedRoute<MerchantRoute, C>,
): MerchantRoute => route;

/** A merchant route answering streamed text (its type named where the table lists it). */
export const merchantTextRoute = (route: MerchantTextRoute): MerchantTextRoute => route;

export const openRoute = <C extends AnswerCodec>(route: TypedRoute<OpenRoute, C>): OpenRoute =>
  route;

export const adminRoute = <C extends AnswerCodec>(route: TypedRoute<AdminRoute, C>): AdminRoute =>
  route;

export const upstreamRoute = <C extends AnswerCodec>(
  route: TypedRoute<UpstreamRoute, C>,
): UpstreamRoute => route;

/** `/payment/payouts/{payout_id}` -> `/payment/payouts/:payout_id` (Hono's syntax). */
export const honoPath = (path: string): string => path.replace(/\{([a-z_]+)\}/g, ':$1');

/** The `{name}` parameters of a path, in order. */
export const pathParameters = (path: string): string[] =>
  Array.from(path.matchAll(/\{([a-z_]+)\}/g), (match) => match[1] ?? '');
