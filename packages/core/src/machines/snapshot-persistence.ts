/**
 * What the machines' persistence helpers share: a stored snapshot is `{ version, snapshot }`
 * JSON, read back through an io-ts codec of its state value and context, so a record that is not
 * what this code wrote (hand-edited, truncated, from an unknown format) stops the unit of work
 * with `CorruptSnapshotError` (an unexpected error: the client sees `internal error`) instead of
 * running a machine on a context that only claims to be one.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { cryptoCurrencies, currencies, fiatCurrencies } from '../money/money.js';
import { chainNetworks, payTokenIds } from '../money/pay-tokens.js';

/** A stored snapshot this code cannot read: an unknown format version, or a broken shape. */
export class CorruptSnapshotError extends Error {
  constructor(
    readonly machine: string,
    readonly detail: string,
  ) {
    super(`${machine} snapshot is corrupt: ${detail}`);
    this.name = 'CorruptSnapshotError';
  }
}

/** A member of an intersection or union: its index is not a field of the stored JSON. */
const isMemberOf = (parent: t.ContextEntry | undefined): boolean =>
  parent !== undefined &&
  (parent.type instanceof t.IntersectionType || parent.type instanceof t.UnionType);

/** Where io-ts found the first mismatch, as `snapshot.context.amount: expected string`. */
const firstProblem = (errors: t.Errors): string => {
  const [error] = errors;
  if (error === undefined) return 'invalid';
  const path = error.context
    .filter((entry, index) => entry.key !== '' && !isMemberOf(error.context[index - 1]))
    .map((entry) => entry.key)
    .join('.');
  const name = error.context.at(-1)?.type.name ?? '';
  // a whole object's type name spells every field: past a few words it says nothing more
  const expected = name !== '' && name.length <= 40 ? name : 'another shape';
  return `${path === '' ? '(root)' : path}: expected ${expected}`;
};

/** `json` decoded with `codec`, or `CorruptSnapshotError` naming the first bad field. */
export const decodeStored = <A>(
  machine: string,
  codec: t.Decoder<unknown, A>,
  json: unknown,
): A => {
  const decoded = codec.decode(json);
  if (E.isLeft(decoded)) throw new CorruptSnapshotError(machine, firstProblem(decoded.left));
  return decoded.right;
};

/** The format version a stored snapshot says it has; any other shape is corrupt. */
export const storedVersionOf = (machine: string, json: unknown): number =>
  decodeStored(machine, t.type({ version: t.number }), json).version;

/** `literals` as an io-ts codec of their union. */
export const oneOf = <L extends string>(literals: readonly L[], name: string): t.Type<L> => {
  const is = (u: unknown): u is L => typeof u === 'string' && literals.some((l) => l === u);
  return new t.Type<L>(name, is, (u, c) => (is(u) ? t.success(u) : t.failure(u, c)), t.identity);
};

export const StoredCurrency = oneOf(currencies, 'Currency');
export const StoredFiatCurrency = oneOf(fiatCurrencies, 'FiatCurrency');
export const StoredCryptoCurrency = oneOf(cryptoCurrencies, 'CryptoCurrency');
export const StoredPayTokenId = oneOf(payTokenIds, 'PayTokenId');
export const StoredChainNetwork = t.keyof(chainNetworks, 'ChainNetwork');
