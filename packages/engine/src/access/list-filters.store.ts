/**
 * A list query's optional parameters as the store's query: a parameter left out filters
 * nothing, so it is left out of the store's query too (never sent as `undefined`).
 */

/** A value that is not `undefined` (`null` stays: a filter on null matches null fields). */
type Defined<T> = NonNullable<T> | (T & null);

/** The parameters among `keys` that the query sets, under the same names: equality filters. */
export const definedOf = <Q extends object, K extends keyof Q>(
  query: Q,
  keys: readonly K[],
): { [P in K]?: Defined<Q[P]> } => {
  const defined: { [P in K]?: Defined<Q[P]> } = {};
  for (const key of keys) {
    const value = query[key];
    if (value !== undefined) defined[key] = value;
  }
  return defined;
};

/** `start_at` and `end_at` as the store's inclusive bounds on `created_at`. */
export const createdWithin = (query: {
  readonly start_at?: number | undefined;
  readonly end_at?: number | undefined;
}): { readonly createdFrom?: number; readonly createdTo?: number } => ({
  ...(query.start_at === undefined ? {} : { createdFrom: query.start_at }),
  ...(query.end_at === undefined ? {} : { createdTo: query.end_at }),
});
