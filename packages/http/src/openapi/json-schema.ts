/** JSON Schema (2020-12, as OpenAPI 3.1 uses it) values and the one builder the document needs. */

export type JsonSchema = Readonly<Record<string, unknown>>;

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
