/**
 * The one toolkit every codec of payrail is built with: how a JSON value is read (null as absent,
 * lengths in code points), how an io-ts codec fails with the catalogue's error, and how a request
 * is the pipe of its precedence stages.
 *
 * A request codec is `request(name, { required, format, rules })`:
 *  1. `required`: a `t.type` of `present(error)` leaves, in the interface's table order; a field
 *     absent, `null` or blank fails with its own catalogue error;
 *  2. `format`: a `t.type`/`t.partial` (or their intersection) of the fields' codecs, in the
 *     table's order; this stage's type is the request's type and its structure the document's;
 *  3. `rules`: cross-field rules over the decoded value, in order.
 * io-ts reports failures in the order of a `t.type`'s keys and a later stage runs only when the
 * earlier one passed, so the first failure is the rule the interface puts first: `decodeWith`
 * answers its catalogue error. Keys a request does not define are dropped; `null` is read as
 * absent everywhere; a member named `__proto__` is dropped before the format stage reads the
 * body (`withoutPrototypeMember`, issue 19, L2).
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import {
  isPayrailError,
  type PayrailError,
  type PlainErrorKey,
  payrailError,
} from '../errors/error-catalogue.js';

// ---------------------------------------------------------------------------------------------
// Reading JSON

/** A decoded JSON object: what a request body or a nested object must be. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** Arrays are objects to JavaScript but never a request object. */
export const isJsonObject = (u: unknown): u is JsonObject =>
  typeof u === 'object' && u !== null && !Array.isArray(u);

/**
 * The value under `key`, with JSON `null` read as absent: merchants' serialisers send both for
 * "not set", and treating them alike keeps one meaning for "missing" everywhere.
 */
export const presentValue = (object: JsonObject, key: string): unknown => {
  const value = Object.hasOwn(object, key) ? object[key] : undefined;
  return value === null ? undefined : value;
};

/** Lengths count code points, so a name in any script is measured as a person would count it. */
export const codePointLength = (value: string): number => Array.from(value).length;

/** Whitespace only: never a value for a required or length-ruled field. */
export const isBlank = (value: string): boolean => value.trim() === '';

/** Absent, `null` or blank: what a required field must not be. */
export const isMissing = (u: unknown): boolean =>
  u === undefined || u === null || (typeof u === 'string' && isBlank(u));

/** Length rules of the interface ("2-120" and the like): code points, and not blank. */
export const hasLengthBetween = (value: string, min: number, max: number): boolean => {
  const length = codePointLength(value);
  return length >= min && length <= max && !isBlank(value);
};

/**
 * NUL or an unpaired surrogate: a JavaScript string may hold them (`JSON.parse` reads `"\u0000"`
 * and `"\ud800"`), but they are not text, and PostgreSQL refuses them. In a `u` regular
 * expression a surrogate pair is one code point, so only an unpaired half is `\p{Cs}`.
 */
const notText = /[\0\p{Cs}]/u;

/** Whether a string is text a store can keep: no NUL, no unpaired surrogate (ADR 0034). */
export const isText = (value: string): boolean => !notText.test(value);

/** Whether a string holds a control character (`\p{Cc}`: U+0000-U+001F, U+007F-U+009F). */
export const holdsControlCharacter = (value: string): boolean => /\p{Cc}/u.test(value);

/**
 * The JSON Schema `pattern` of a free text that refuses control characters (`\p{Cc}`), written
 * with `\u` escapes rather than a property class so that any ECMA-262 or PCRE validator reads it.
 */
export const withoutControlCharacters = '^[^\\u0000-\\u001f\\u007f-\\u009f]*$';

/**
 * Whether a JSON value holds a string that is not text anywhere: in itself, an item, a member or
 * a member's name, however deep. It walks with a list of its own, not the call stack: a request
 * body nested 100,000 deep (`JSON.parse` reads one) must be refused, not overflow the stack.
 */
export const holdsNonText = (u: unknown): boolean => {
  const pending: unknown[] = [u];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (!isText(value)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (!isText(key)) return true;
        pending.push(item);
      }
    }
  }
  return false;
};

/**
 * Structural equality of JSON values: the same members and items, key order aside (unlike a
 * comparison of their JSON texts).
 */
export const equalJsonValues = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => equalJsonValues(item, b[i]))
    );
  }
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && equalJsonValues(a[key], b[key]))
  );
};

/** The object without its `null` members (null is absent). */
const withoutNulls = (object: JsonObject): JsonObject =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== null));

/**
 * The object without its own `__proto__` member (issue 19, finding L2). `JSON.parse` reads
 * `"__proto__"` as an own member like any other, but a copy by assignment runs the `__proto__`
 * setter, which makes the member's value (an object, an array or null) the copy's prototype:
 * io-ts copies a decoded object with `Object.assign` once one of its fields decodes to a new
 * value, and an intersection merges its parts member by member. The copy's missing fields were
 * then read from that prototype as the body's own, past the checks that read the body's own
 * members (a hidden `status` set a webhook inactive, a hidden `url` passed the URL guard unseen
 * and was decoded as an update's). Hosts embed the engine and hand it bodies they parsed
 * themselves, so the codecs cannot count on the HTTP adapter's cleaning (http/src/request-body.ts).
 *
 * The decision: ignored, not refused, wherever unknown members are ignored. `__proto__` is a
 * member no codec defines, so it is treated as every such member is where it sits:
 *  - a request ignores it, as it drops every member it does not define: each request removes it,
 *    whatever it holds, from the object its format stage reads, so no io-ts combinator ever holds
 *    it to copy. Every JSON object a request decodes field by field is a request of its own (the
 *    inline beneficiary and account, a batch item, `products`) and removes its own in turn, so
 *    every depth is covered (`prototype-member.prop.test.ts` inserts members at random depths);
 *  - a `fields` map, which refuses keys outside its table, refuses it the same way, as the HTTP
 *    adapter expects: the beneficiary profile answers `unknown field fields.__proto__` (its stage
 *    1 reads the key, below); an account's fields, a leaf that copies by entries, answer
 *    `field __proto__ invalid` (not a string) or `unknown field __proto__` (the network's check).
 * Refusing it in a request would answer differently for `__proto__` than for any other member the
 * request does not define, and the HTTP adapter passes on a `__proto__` that holds a string.
 *
 * Stage 1 (`required`) reads the body as sent, `__proto__` included, because it judges which
 * keys were sent; its codecs return what they read (`present`, `defined`, key checks), so nothing
 * copies the body there, and its result is only pass or fail: the request's value is always the
 * format stage's, read from the object without the member.
 */
const withoutPrototypeMember = (object: JsonObject): JsonObject =>
  Object.hasOwn(object, '__proto__')
    ? Object.fromEntries(Object.entries(object).filter(([key]) => key !== '__proto__'))
    : object;

// ---------------------------------------------------------------------------------------------
// Failing with the catalogue

export type CatalogueValidationError = t.ValidationError & { readonly payrailError: PayrailError };

/** An io-ts failure that carries the catalogue's error (its message is the error's). */
export const fail = <A>(u: unknown, c: t.Context, error: PayrailError): t.Validation<A> => {
  const failure: CatalogueValidationError = {
    value: u,
    context: c,
    message: error.message,
    payrailError: error,
  };
  return t.failures([failure]);
};

export const payrailErrorOf = (error: t.ValidationError): PayrailError | undefined => {
  const candidate = 'payrailError' in error ? error.payrailError : undefined;
  return isPayrailError(candidate) ? candidate : undefined;
};

/** The catalogue error of the first failure, or `Validation Failed`. */
export const firstPayrailError = (errors: t.Errors): PayrailError => {
  const first = errors[0];
  return (first && payrailErrorOf(first)) ?? payrailError('validation_failed');
};

/** Decodes `u` with `codec`, answering the catalogue's error on failure. */
export const decodeWith =
  <A, O>(codec: t.Type<A, O, unknown>) =>
  (u: unknown): E.Either<PayrailError, A> =>
    pipe(codec.decode(u), E.mapLeft(firstPayrailError));

/**
 * A codec from a validation function, for rules io-ts's combinators cannot say; it encodes a
 * value as it is unless given `encode`.
 */
export function codecOf<A>(
  name: string,
  is: (u: unknown) => u is A,
  validate: (u: unknown, c: t.Context) => t.Validation<A>,
): t.Type<A, A, unknown>;
export function codecOf<A, O>(
  name: string,
  is: (u: unknown) => u is A,
  validate: (u: unknown, c: t.Context) => t.Validation<A>,
  encode: (a: A) => O,
): t.Type<A, O, unknown>;
export function codecOf<A, O>(
  name: string,
  is: (u: unknown) => u is A,
  validate: (u: unknown, c: t.Context) => t.Validation<A>,
  encode?: (a: A) => O,
): t.Type<A, A | O, unknown> {
  return new t.Type<A, A | O, unknown>(name, is, validate, encode ?? t.identity);
}

// ---------------------------------------------------------------------------------------------
// Leaves: one field's rule and its documentation

/** What the OpenAPI document says of a leaf (JSON Schema, plain data). */
export type LeafSchema = Readonly<Record<string, unknown>>;

/**
 * A field's codec: `decode` reads the value (possibly normalising it) or answers the catalogue's
 * error; `schema` is what the document says of it. The HTTP adapter's JSON Schema converter reads
 * `schema` of a `LeafType`, so a leaf documents itself where its rule is written.
 *
 * A value its rule takes but that holds a string which is not text (`holdsNonText`) fails with
 * `nonText(u, c)`, the field's own message, so no codec hands one on to a store (ADR 0034); only
 * a shape leaf (`shapeLeaf`), whose contents other leaves read later, has no `nonText`.
 */
export class LeafType<A> extends t.Type<A, A, unknown> {
  readonly _tag = 'LeafType' as const;
  constructor(
    name: string,
    is: (u: unknown) => u is A,
    validate: t.Validate<unknown, A>,
    readonly schema: LeafSchema,
    nonText: ((u: unknown, c: t.Context) => PayrailError) | undefined,
  ) {
    super(
      name,
      nonText === undefined ? is : (u): u is A => is(u) && !holdsNonText(u),
      nonText === undefined
        ? validate
        : (u, c) => {
            const read = validate(u, c);
            return E.isRight(read) && holdsNonText(u) ? fail(u, c, nonText(u, c)) : read;
          },
      t.identity,
    );
  }
}

/**
 * A leaf that accepts what `is` accepts, as it is, and fails otherwise with the catalogue's
 * `error` (a key whose message has no placeholders) or with what `error(u)` builds.
 */
export const leaf = <A>(
  name: string,
  is: (u: unknown) => u is A,
  error: PlainErrorKey | ((u: unknown) => PayrailError),
  schema: LeafSchema,
): LeafType<A> => {
  const refusal = typeof error === 'string' ? () => payrailError(error) : error;
  return new LeafType<A>(
    name,
    is,
    (u, c) => (is(u) ? t.success(u) : fail(u, c, refusal(u))),
    schema,
    refusal,
  );
};

/**
 * A leaf that judges only the shape of a container (an object) whose contents other codecs read
 * afterwards, each with its own message: it leaves a string that is not text inside to them.
 */
export const shapeLeaf = <A>(
  name: string,
  is: (u: unknown) => u is A,
  error: PlainErrorKey,
  schema: LeafSchema,
): LeafType<A> =>
  new LeafType<A>(
    name,
    is,
    (u, c) => (is(u) ? t.success(u) : fail(u, c, payrailError(error))),
    schema,
    undefined,
  );

/** Whether `u` is one of `values` (a type guard for a `const` list). */
export const isOneOf =
  <const V extends readonly unknown[]>(values: V) =>
  (u: unknown): u is V[number] =>
    values.includes(u);

/** A leaf that accepts one of the strings `values` (the document lists them) and else `error`. */
export const oneOfLeaf = <const V extends readonly string[]>(
  name: string,
  values: V,
  error: PlainErrorKey,
): LeafType<V[number]> =>
  leaf<V[number]>(name, isOneOf(values), error, { type: 'string', enum: [...values] });

/**
 * A leaf that accepts a whole number from `minimum` to `maximum` (a safe integer when no maximum
 * is given) and else `error`.
 */
export const wholeNumberLeaf = (
  name: string,
  range: { readonly minimum: number; readonly maximum?: number },
  error: PlainErrorKey,
  description?: string,
): LeafType<number> => {
  const { minimum, maximum = Number.MAX_SAFE_INTEGER } = range;
  return leaf<number>(
    name,
    (u): u is number =>
      typeof u === 'number' && Number.isSafeInteger(u) && u >= minimum && u <= maximum,
    error,
    { type: 'integer', minimum, maximum, ...(description === undefined ? {} : { description }) },
  );
};

/**
 * The raw value of `key` beside the field being read (`null` as absent): the object the
 * enclosing `t.type`/`t.partial` is reading, which io-ts keeps on the context. `undefined` when
 * the leaf is decoded on its own.
 */
export type Sibling = (key: string) => unknown;

const siblingsOf =
  (c: t.Context): Sibling =>
  (key) => {
    const parent = c[c.length - 2]?.actual;
    return isJsonObject(parent) ? presentValue(parent, key) : undefined;
  };

/**
 * A leaf whose reading may normalise the value (dedupe a list, fill a default). `read` may also
 * look at a sibling field, for a rule the interface judges at this field's place in the order but
 * in the light of an earlier field (an amount at its currency's scale).
 *
 * A value `read` takes but that holds a string which is not text (free text, a list of names)
 * fails with `nonText`: `Validation Failed` unless told.
 */
export const leafFrom = <A>(
  name: string,
  is: (u: unknown) => u is A,
  read: (u: unknown, sibling: Sibling) => E.Either<PayrailError, A>,
  schema: LeafSchema,
  nonText: () => PayrailError = () => payrailError('validation_failed'),
): LeafType<A> =>
  new LeafType<A>(
    name,
    is,
    (u, c) => {
      const read_ = read(u, siblingsOf(c));
      return E.isRight(read_) ? t.success(read_.right) : fail(u, c, read_.left);
    },
    schema,
    nonText,
  );

/**
 * Stage 1's leaf: fails with `missing` when `isAbsent` says the value is. The document reads
 * `missing`: a field whose absence is a business answer (a PATCH's `no changes`, 400/53) is no
 * schema `required`, since a body without it is well formed.
 */
class PresenceType extends t.Type<unknown, unknown, unknown> {
  readonly _tag = 'PresenceType' as const;
  constructor(
    name: string,
    readonly missing: PayrailError,
    isAbsent: (u: unknown) => boolean,
  ) {
    super(
      name,
      (u): u is unknown => !isAbsent(u),
      (u, c) => (isAbsent(u) ? fail(u, c, missing) : t.success(u)),
      t.identity,
    );
  }
}

/** Stage 1's leaf: fails with `error` when the value is absent, `null` or blank. */
export const present = (error: PayrailError): t.Type<unknown, unknown, unknown> =>
  new PresenceType(`present(${error.key})`, error, isMissing);

/** Stage 1's leaf for a field only absence makes missing (a blank value is the format's to judge). */
export const defined = (error: PayrailError): t.Type<unknown, unknown, unknown> =>
  new PresenceType(`defined(${error.key})`, error, (u) => u === undefined || u === null);

/**
 * A required field judged on its own, where the interface checks presence and format field by
 * field (not all presences first): absent -> `missing`, then `codec`'s rule.
 */
export const requiredField = <A>(
  codec: t.Type<A, A, unknown>,
  missing: PayrailError,
  isAbsent: (u: unknown) => boolean = isMissing,
): t.Type<A, A, unknown> => new RequiredType(codec, missing, isAbsent);

class RequiredType<A> extends t.Type<A, A, unknown> {
  readonly _tag = 'RequiredType' as const;
  constructor(
    readonly type: t.Type<A, A, unknown>,
    readonly missing: PayrailError,
    isAbsent: (u: unknown) => boolean,
  ) {
    super(
      type.name,
      type.is,
      (u, c) => (isAbsent(u) ? fail(u, c, missing) : type.validate(u, c)),
      t.identity,
    );
  }
}

/** An optional field with a default: absent decodes to `value`, anything else to `codec`'s. */
export const withDefault = <A>(codec: t.Type<A, A, unknown>, value: A): t.Type<A, A, unknown> =>
  new DefaultType(codec, value);

export class DefaultType<A> extends t.Type<A, A, unknown> {
  readonly _tag = 'DefaultType' as const;
  constructor(
    readonly type: t.Type<A, A, unknown>,
    readonly defaultValue: A,
  ) {
    super(
      type.name,
      type.is,
      (u, c) => (u === undefined ? t.success(defaultValue) : type.validate(u, c)),
      t.identity,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Requests: the pipe of precedence stages

/** A cross-field rule: when `holds` is false the request fails with `error`. */
export interface Rule<A> {
  readonly holds: (value: A) => boolean;
  readonly error: (value: A) => PayrailError;
}

export const rule = <A>(
  holds: (value: A) => boolean,
  error: (value: A) => PayrailError,
): Rule<A> => ({
  holds,
  error,
});

/** The props a format stage declares (through `t.type`, `t.partial`, `t.exact`, intersections). */
const declaredKeys = (codec: t.Mixed): readonly string[] => {
  if (codec instanceof t.InterfaceType || codec instanceof t.PartialType) {
    return Object.keys(codec.props);
  }
  if (codec instanceof t.IntersectionType || codec instanceof t.UnionType) {
    return codec.types.flatMap(declaredKeys);
  }
  if (
    codec instanceof t.ExactType ||
    codec instanceof t.ReadonlyType ||
    codec instanceof t.RefinementType
  ) {
    return declaredKeys(codec.type);
  }
  // A request nested in a format stage (its rules before the fields decoded after them).
  if (codec instanceof RequestType) return declaredKeys(codec.format);
  return [];
};

export interface RequestStages<F extends t.Mixed> {
  /** Stage 1: `present(...)` leaves of the required fields, in table order. */
  readonly required?: t.Mixed;
  /** Stage 2: every field's codec, in table order; its type is the request's. */
  readonly format: F;
  /** Stage 3: cross-field rules over the decoded request, in order. */
  readonly rules?: readonly Rule<t.TypeOf<F>>[];
}

/**
 * A request body: not a JSON object -> `notObject`; then the stages in order. The structure the
 * document reads is `format`'s (`RequestType.format`).
 */
export class RequestType<F extends t.Mixed> extends t.Type<t.TypeOf<F>, t.TypeOf<F>, unknown> {
  readonly _tag = 'RequestType' as const;
  constructor(
    name: string,
    readonly stages: RequestStages<F>,
    readonly notObject: PayrailError,
  ) {
    const keys = declaredKeys(stages.format);
    const validate = (u: unknown, c: t.Context): t.Validation<t.TypeOf<F>> => {
      if (!isJsonObject(u)) return fail(u, c, notObject);
      const sent = withoutNulls(u);
      if (stages.required !== undefined) {
        const required = stages.required.validate(sent, c);
        if (E.isLeft(required)) return required;
      }
      // No `__proto__` member for io-ts to copy into a prototype (`withoutPrototypeMember`).
      const decoded = stages.format.validate(withoutPrototypeMember(sent), c);
      if (E.isLeft(decoded)) return decoded;
      // The format's own value less its undefined members, which its type allows for: rebuilt
      // by `Object.fromEntries`, whose `string` keys cannot say it is still the format's type.
      const value = Object.fromEntries(
        keys
          .filter((key) => decoded.right[key] !== undefined)
          .map((key) => [key, decoded.right[key]]),
      ) as t.TypeOf<F>;
      const broken = (stages.rules ?? []).find((r) => !r.holds(value));
      return broken === undefined ? t.success(value) : fail(u, c, broken.error(value));
    };
    // A value of the request's type is one that decodes to itself (defaults filled in, no nulls).
    const is = (u: unknown): u is t.TypeOf<F> => {
      // The root entry `decode` gives too: leaves read their siblings from the context.
      const decoded = validate(u, [{ key: '', type: t.unknown, actual: u }]);
      return E.isRight(decoded) && equalJsonValues(decoded.right, u);
    };
    super(name, is, validate, t.identity);
  }
  get format(): F {
    return this.stages.format;
  }
}

/** `request(name, stages)`: a body that must be a JSON object (`request required` otherwise). */
export const request = <F extends t.Mixed>(
  name: string,
  stages: RequestStages<F>,
  notObject: PayrailError = payrailError('request_required'),
): RequestType<F> => new RequestType(name, stages, notObject);

/**
 * A request body: `request required` unless it is a JSON object. HTTP adapters pass the parsed
 * body, or `undefined` when it was empty or unparsable.
 */
export const requestBody = <A, O>(codec: t.Type<A, O, unknown>): t.Type<A, O, unknown> =>
  codecOf(
    codec.name,
    codec.is,
    (u, c) =>
      isJsonObject(u) ? codec.validate(u, c) : fail(u, c, payrailError('request_required')),
    codec.encode,
  );
