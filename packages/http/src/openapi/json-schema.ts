/** JSON Schema (2020-12, as OpenAPI 3.1 uses it) values and the few builders the document needs. */

export type JsonSchema = Readonly<Record<string, unknown>>;

export const stringSchema = (description?: string): JsonSchema => ({
  type: 'string',
  ...(description === undefined ? {} : { description }),
});

/** A decimal string, as every amount on the wire (`"10.50"`). */
export const decimalSchema = (description = 'decimal string'): JsonSchema => ({
  type: 'string',
  pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$',
  description,
});

export const integerSchema = (description?: string): JsonSchema => ({
  type: 'integer',
  ...(description === undefined ? {} : { description }),
});

export const unixSecondsSchema: JsonSchema = integerSchema('Unix seconds');

export const enumSchema = (values: readonly (string | number | boolean)[]): JsonSchema => ({
  enum: [...values],
});

export const arraySchema = (items: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({
  type: 'array',
  items,
  ...extra,
});

/** An object; `required` lists the keys that must be there. */
export const objectSchema = (
  properties: Readonly<Record<string, JsonSchema>>,
  required: readonly string[] = [],
  extra: JsonSchema = {},
): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length === 0 ? {} : { required: [...required] }),
  ...extra,
});
