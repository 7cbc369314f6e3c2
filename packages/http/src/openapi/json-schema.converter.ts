/**
 * io-ts codec -> JSON Schema, read from the codec's structure: `t.type`, `t.partial`, `t.strict`,
 * `t.readonly`, `t.intersection`, `t.union`, `t.literal`, `t.keyof`, `t.array`,
 * `t.readonlyArray`, `t.record`, `t.string`, `t.number`, `t.boolean`, `t.null`, `t.unknown`,
 * `t.Int` and other refinements (as their base), and the codec toolkit's own kinds: a
 * `LeafType` brings its schema, a `RequestType` is read from its `format` stage, a `DefaultType`
 * adds its default (ADR 0027). A codec of any other kind (one built with `codecOf`) is an error,
 * unless the caller's `named` table describes it, so no route is documented by guess.
 *
 * The schema says what a validator may hold the wire to, no more: a default is written only when
 * the field itself accepts it (a batch's absent `items` reads as none, yet `[]` sent is refused,
 * so it has no `default`), and a field whose absence a request answers with a business refusal
 * rather than a validation failure (a PATCH without its one field: `no changes`, 400/53, read
 * from the request's `required` stage) is not `required`; its description says what absence
 * answers.
 *
 * An exact object (`t.exact`, `t.strict`, an intersection whose parts are all exact) is closed:
 * `additionalProperties: false`, so the document of an answer refuses a field it does not
 * declare. A request body's objects stay open whatever its codec: the codec drops unknown keys
 * and the interface ignores them by design, so the document must not refuse them.
 *
 * Only the structure is read (`_tag` and the fields io-ts keeps on each codec), so this module
 * needs no io-ts at run time.
 */
import type { JsonSchema } from './json-schema.js';

/**
 * What the converter reads of an io-ts codec: its name and kind (`_tag`), and the fields io-ts
 * (or the codec toolkit) keeps on a codec of that kind.
 */
export interface CodecLike {
  readonly name: string;
  readonly _tag?: string;
  readonly props?: Readonly<Record<string, CodecLike>>;
  readonly types?: readonly CodecLike[];
  readonly type?: CodecLike;
  readonly value?: unknown;
  readonly keys?: Readonly<Record<string, unknown>>;
  readonly codomain?: CodecLike;
  /** A core `LeafType`: the schema is written beside the rule. */
  readonly schema?: JsonSchema;
  /** A core `RequestType`: the stage whose structure is the request's. */
  readonly format?: CodecLike;
  /** A core `DefaultType`: what an absent field decodes to. */
  readonly defaultValue?: unknown;
  /** io-ts's guard: whether a value is one the codec accepts as it is. */
  readonly is?: (u: unknown) => boolean;
  /** A core `RequestType`: its stages; the `required` one says what each absence answers. */
  readonly stages?: { readonly required?: CodecLike };
  /** A core presence check (a `required` stage's leaf): the answer to the field's absence. */
  readonly missing?: { readonly code: number; readonly message: string };
  /** A core `ListQueryType`: the parameters a query must send. */
  readonly requiredParameters?: readonly string[];
}

export type SchemaTable = Readonly<Record<string, JsonSchema>>;

const objectKeys = new Set(['type', 'properties', 'required', 'additionalProperties']);
const isClosed = (schema: JsonSchema): boolean => schema.additionalProperties === false;
const isObjectSchema = (schema: JsonSchema): boolean =>
  schema.type === 'object' &&
  (schema.additionalProperties === undefined || isClosed(schema)) &&
  Object.keys(schema).every((key) => objectKeys.has(key));

/**
 * `allOf` of plain object schemas, merged into one object (how `t.intersection` is used). The
 * merge is closed only when every part is: io-ts keeps what an open part lets through.
 */
const mergeObjects = (schemas: readonly JsonSchema[]): JsonSchema => {
  if (!schemas.every(isObjectSchema)) return { allOf: [...schemas] };
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const schema of schemas) {
    Object.assign(properties, schema.properties ?? {});
    const own = schema.required ?? [];
    if (Array.isArray(own)) required.push(...own);
  }
  return {
    type: 'object',
    properties,
    ...(required.length === 0 ? {} : { required: [...new Set(required)] }),
    ...(schemas.length > 0 && schemas.every(isClosed) ? { additionalProperties: false } : {}),
  };
};

/** An exact codec's object: closed. Anything else (a refinement's base that is no object) as is. */
const closed = (schema: JsonSchema): JsonSchema =>
  schema.type === 'object' && schema.additionalProperties === undefined
    ? { ...schema, additionalProperties: false }
    : schema;

const literalValue = (codec: CodecLike): unknown =>
  codec._tag === 'LiteralType' ? codec.value : undefined;

const member = (codec: CodecLike, field: 'type' | 'codomain' | 'format'): CodecLike => {
  const inner = codec[field];
  if (inner === undefined) throw new Error(`codec ${codec.name} (${codec._tag}) has no ${field}`);
  return inner;
};

/** The fields a `required` stage answers with a business refusal (code 53) when absent. */
const businessAbsencesOf = (required: CodecLike | undefined): ReadonlyMap<string, string> =>
  new Map(
    Object.entries(required?._tag === 'InterfaceType' ? (required.props ?? {}) : {}).flatMap(
      ([key, leaf]) =>
        leaf._tag === 'PresenceType' && leaf.missing?.code === 53
          ? [[key, leaf.missing.message] as const]
          : [],
    ),
  );

/**
 * A request's schema less the `required` of fields whose absence is a business answer, each
 * described with that answer (`left out: \`no changes\``).
 */
const withBusinessAbsences = (schema: JsonSchema, required: CodecLike | undefined): JsonSchema => {
  const absences = businessAbsencesOf(required);
  if (absences.size === 0 || !Array.isArray(schema.required)) return schema;
  const properties: Readonly<Record<string, JsonSchema>> = isSchemaRecord(schema.properties)
    ? schema.properties
    : {};
  const stillRequired = schema.required.filter((key) => !absences.has(String(key)));
  const rest = Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'required'));
  return {
    ...rest,
    properties: Object.fromEntries(
      Object.entries(properties).map(([key, property]) => {
        const answer = absences.get(key);
        if (answer === undefined) return [key, property];
        const said = typeof property.description === 'string' ? `${property.description}; ` : '';
        return [key, { ...property, description: `${said}left out: \`${answer}\`` }];
      }),
    ),
    ...(stillRequired.length === 0 ? {} : { required: stillRequired }),
  };
};

const isSchemaRecord = (u: unknown): u is Readonly<Record<string, JsonSchema>> =>
  typeof u === 'object' && u !== null && !Array.isArray(u);

export const toJsonSchema = (codec: CodecLike, named: SchemaTable = {}): JsonSchema =>
  convertCodec(codec, named, true);

const convertCodec = (codec: CodecLike, named: SchemaTable, closeExact: boolean): JsonSchema => {
  const byName = named[codec.name];
  if (byName !== undefined) return byName;
  const convert = (inner: CodecLike) => convertCodec(inner, named, closeExact);
  switch (codec._tag) {
    case 'StringType':
      return { type: 'string' };
    case 'NumberType':
      return { type: 'number' };
    case 'BooleanType':
      return { type: 'boolean' };
    case 'NullType':
      return { type: 'null' };
    case 'UnknownType':
      return {};
    case 'LiteralType':
      return { const: codec.value };
    case 'KeyofType':
      return { type: 'string', enum: Object.keys(codec.keys ?? {}) };
    case 'InterfaceType':
    case 'PartialType': {
      const props = codec.props ?? {};
      const properties = Object.fromEntries(
        Object.entries(props).map(([key, inner]) => [key, convert(inner)]),
      );
      // A field with a default may be left out, so it is not required of the sender.
      const required =
        codec._tag === 'InterfaceType'
          ? Object.keys(props).filter((key) => props[key]?._tag !== 'DefaultType')
          : [];
      return {
        type: 'object',
        properties,
        ...(required.length === 0 ? {} : { required }),
      };
    }
    case 'LeafType':
      if (codec.schema === undefined) throw new Error(`leaf ${codec.name} has no schema`);
      return codec.schema;
    case 'RequestType':
      return withBusinessAbsences(
        convertCodec(member(codec, 'format'), named, false),
        codec.stages?.required,
      );
    case 'DefaultType': {
      const inner = member(codec, 'type');
      const accepted = inner.is?.(codec.defaultValue) ?? true;
      return accepted ? { ...convert(inner), default: codec.defaultValue } : convert(inner);
    }
    case 'ExactType': {
      const inner = convert(member(codec, 'type'));
      return closeExact ? closed(inner) : inner;
    }
    case 'RequiredType':
    case 'ReadonlyType':
      return convert(member(codec, 'type'));
    case 'RefinementType':
      return codec.name === 'Int' ? { type: 'integer' } : convert(member(codec, 'type'));
    case 'ArrayType':
    case 'ReadonlyArrayType':
      return { type: 'array', items: convert(member(codec, 'type')) };
    case 'DictionaryType':
      return { type: 'object', additionalProperties: convert(member(codec, 'codomain')) };
    case 'IntersectionType':
      return mergeObjects((codec.types ?? []).map(convert));
    case 'UnionType': {
      const types = codec.types ?? [];
      const literals = types.map((inner) => literalValue(inner));
      return types.length > 0 && types.every((inner) => inner._tag === 'LiteralType')
        ? { enum: literals }
        : { anyOf: types.map(convert) };
    }
    default:
      throw new Error(
        `codec ${codec.name} has no structure to read and no schema in the named table`,
      );
  }
};
