/**
 * The query parameters of a list codec, read from its structure: a core list query
 * (`ListQueryType`) is a request whose `format` stage is a `t.partial` of one leaf per parameter,
 * in the interface's order. Each parameter is documented by its leaf's `schema` (its
 * `description` becomes the parameter's); a `withDefault` parameter adds the default, written as
 * it is sent on the wire; a parameter the codec requires (`requiredParameters`) is required. A codec without that structure is an error, so no route is documented
 * by guess.
 *
 * Only the structure is read (`format`, `props`, `_tag`, `schema`, `type`, `defaultValue`), so
 * this module needs no io-ts at run time.
 */
import type { CodecLike } from './json-schema.converter.js';
import type { JsonSchema } from './json-schema.js';

export interface QueryParameterDoc {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly description: string;
  /** A parameter the query must send (`ListQueryType.requiredParameters`). */
  readonly required: boolean;
}

const leafSchemaOf = (codec: CodecLike, name: string, leaf: CodecLike) => {
  if (leaf._tag !== 'LeafType' || leaf.schema === undefined) {
    throw new Error(`${codec.name}.${name} is not a leaf with a schema (${leaf._tag})`);
  }
  return leaf.schema;
};

const parameterOf = (codec: CodecLike, name: string, parameter: CodecLike): QueryParameterDoc => {
  const defaulted = parameter._tag === 'DefaultType';
  const leaf = defaulted ? parameter.type : parameter;
  if (leaf === undefined) throw new Error(`${codec.name}.${name} has no inner codec`);
  const { description, ...schema } = leafSchemaOf(codec, name, leaf);
  // Query values are strings on the wire: a string parameter's default is written as one.
  const wireDefault =
    schema.type === 'string' ? String(parameter.defaultValue) : parameter.defaultValue;
  return {
    name,
    description: typeof description === 'string' ? description : name,
    schema: defaulted ? { ...schema, default: wireDefault } : schema,
    required: codec.requiredParameters?.includes(name) ?? false,
  };
};

export const queryParametersOf = (codec: CodecLike): QueryParameterDoc[] => {
  const props = codec.format?.props;
  if (props === undefined) {
    throw new Error(`query codec ${codec.name} has no format stage to read its parameters from`);
  }
  return Object.entries(props).map(([name, parameter]) => parameterOf(codec, name, parameter));
};
