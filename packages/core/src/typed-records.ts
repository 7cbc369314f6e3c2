/**
 * Records keyed by a closed set of names. `Object.keys` and `Object.fromEntries` type every key
 * as `string`, whatever keys the object holds; these two say what the code knows, each in the
 * one place the standard library's types cannot follow it.
 */

/**
 * The keys of a record literal, typed as its keys. Only for an object whose keys are exactly `K`
 * (a constant written out, such as `chainNetworks`), never a value of a wider type.
 */
export const keysOf = <K extends string>(record: Readonly<Record<K, unknown>>): readonly K[] =>
  // Sound for the constants it is given: their own keys are exactly `K`.
  Object.keys(record) as K[];

/** A record with one entry per key of `keys`, each made by `valueFor`. */
export const recordOf = <K extends string, V>(
  keys: readonly K[],
  valueFor: (key: K) => V,
): Record<K, V> =>
  // Sound: `Object.fromEntries` makes an entry for every key, which its `string` keys cannot say.
  Object.fromEntries(keys.map((key) => [key, valueFor(key)])) as Record<K, V>;
