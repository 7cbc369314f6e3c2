/**
 * Strings that are not text (NUL, an unpaired surrogate: the core's `isText`) never reach the
 * engine from HTTP (issue 12, finding 5; ADR 0034). The core's codecs refuse them in every field
 * they read, with the field's message; this is the belt for what no codec reads: a path
 * parameter, a query parameter a list does not define, a member a codec drops, a provider's body.
 */
import {
  firstPayrailError,
  holdsNonText,
  isText,
  type PayrailError,
  payrailError,
} from '@payrail/core';
import type { CodecLike } from './openapi/json-schema.converter.js';
import type { Route, RouteRequest } from './routes/route.js';

const notText = /[\0\p{Cs}]/gu;

/**
 * A path parameter as the engine looks it up: one that is not text names nothing, so it is
 * handed on with U+FFFD for each unit that is not text, a name no id, code or provider has, and
 * the route answers its own 404 (`order not found`) without a store ever seeing a NUL.
 */
export const pathParameter = (value: string): string =>
  isText(value) ? value : value.replace(notText, '\uFFFD');

/** What the belt needs of a route's core codec: io-ts's `decode`. */
interface Decoding {
  decode(
    u: unknown,
  ):
    | { readonly _tag: 'Left'; readonly left: Parameters<typeof firstPayrailError>[0] }
    | { readonly _tag: 'Right' };
}

const decodes = (codec: CodecLike | undefined): codec is CodecLike & Decoding =>
  codec !== undefined && 'decode' in codec && typeof codec.decode === 'function';

/**
 * The refusal of a body or query that holds a string which is not text, anywhere (a value, an
 * item, a member's name): what the route's codec answers of it (the field's own message, in the
 * interface's order), else `otherwise` (nothing read it: `Validation Failed`, `invalid <param>`).
 * `undefined` when everything in it is text.
 */
const nonTextRefusal = (
  value: unknown,
  codec: CodecLike | undefined,
  otherwise: () => PayrailError,
): PayrailError | undefined => {
  if (!holdsNonText(value)) return undefined;
  const decoded = decodes(codec) ? codec.decode(value) : undefined;
  return decoded?._tag === 'Left' ? firstPayrailError(decoded.left) : otherwise();
};

/**
 * The refusal of a request whose body or (list) query holds a string that is not text; a query a
 * route does not define is never read. `undefined` when there is none.
 */
export const nonTextInRequest = (route: Route, request: RouteRequest): PayrailError | undefined =>
  nonTextRefusal(request.body, route.body, () => payrailError('validation_failed')) ??
  (route.query === undefined
    ? undefined
    : nonTextRefusal(request.query, route.query, () =>
        payrailError('invalid_query_param', { param: pathParameter(firstNonText(request.query)) }),
      ));

/** The name of the first query parameter whose name or value is not text. */
const firstNonText = (query: Readonly<Record<string, unknown>>): string =>
  Object.entries(query).find(([key, value]) => !isText(key) || holdsNonText(value))?.[0] ?? '';
