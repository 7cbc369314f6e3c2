/**
 * Strings that are not text (NUL, an unpaired surrogate: ADR 0034) put into valid bodies, for the
 * property that every codec and every route refuses them wherever they sit.
 */
import fc from 'fast-check';

/** NUL, a lone high and a lone low surrogate: what `JSON.parse` makes of `\u0000`, `\ud800`... */
const nonTextUnit = fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff');

type Json = unknown;

/** Where a string sits in a JSON value: a value (`at` the path) or a member's name. */
interface StringPlace {
  readonly path: readonly (string | number)[];
  readonly name: boolean;
}

const stringPlaces = (
  u: Json,
  path: readonly (string | number)[],
  names: boolean,
): StringPlace[] => {
  if (typeof u === 'string') return [{ path, name: false }];
  if (Array.isArray(u)) return u.flatMap((item, i) => stringPlaces(item, [...path, i], names));
  if (typeof u !== 'object' || u === null) return [];
  return Object.entries(u).flatMap(([key, value]) => [
    ...(names ? [{ path: [...path, key], name: true }] : []),
    ...stringPlaces(value, [...path, key], names),
  ]);
};

const insert = (text: string, at: number, unit: string): string => {
  // Code units: a lone half put between a pair's halves still leaves one of them unpaired.
  const i = at % (text.length + 1);
  return `${text.slice(0, i)}${unit}${text.slice(i)}`;
};

const replaced = (
  u: Json,
  place: StringPlace,
  depth: number,
  edit: (s: string) => string,
): Json => {
  const step = place.path[depth];
  if (step === undefined) return typeof u === 'string' ? edit(u) : u;
  if (Array.isArray(u))
    return u.map((item, i) => (i === step ? replaced(item, place, depth + 1, edit) : item));
  // A place's path leads through objects and arrays only.
  if (typeof u !== 'object' || u === null) return u;
  const last = depth === place.path.length - 1;
  return Object.fromEntries(
    Object.entries(u).map(([key, value]) =>
      key !== step
        ? [key, value]
        : place.name && last
          ? [edit(key), value]
          : [key, replaced(value, place, depth + 1, edit)],
    ),
  );
};

/**
 * `valid` with one NUL or unpaired surrogate put into one of its strings, at any position: a
 * value however deep, or with `names` also a member's name. A body without a string stays as it
 * is (`holdsNonText` tells).
 * @public for hosts' own properties (docs/testing.md).
 */
export const withNonText = <A extends object>(
  valid: fc.Arbitrary<A>,
  options: { readonly names?: boolean } = {},
): fc.Arbitrary<Json> =>
  valid.chain((body) => {
    const places = stringPlaces(body, [], options.names ?? false);
    return places.length === 0
      ? fc.constant(body)
      : fc
          .tuple(fc.constantFrom(...places), fc.nat(), nonTextUnit)
          .map(([place, at, unit]) => replaced(body, place, 0, (s) => insert(s, at, unit)));
  });
