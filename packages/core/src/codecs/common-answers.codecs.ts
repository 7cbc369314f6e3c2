/**
 * What every answer codec is built from: the wire's leaves (decimal strings, Unix seconds,
 * counts, enums of the core's constants) and the envelope's `data` shapes (`{ <key>: view }`,
 * a page). An answer codec is closed (`t.exact`/`t.strict`): the document it generates refuses
 * undeclared fields, so a field the engine starts answering must be declared here first.
 *
 * A leaf of an answer fails with `internal_error`: an answer that does not match its codec is
 * payrail's fault, never the merchant's.
 */
import * as t from 'io-ts';
import { payrailError } from '../errors/error-catalogue.js';
import { type Currency, currencies } from '../money/money.js';
import { recordOf } from '../typed-records.js';
import { type LeafType, leaf } from './codec-toolkit.js';

const answerError = () => payrailError('internal_error');

/** A decimal string as every amount on the wire (`"10.50"`, signed where a ledger says so). */
export const DecimalString = leaf<string>(
  'DecimalString',
  (u): u is string => typeof u === 'string' && /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(u),
  answerError,
  {
    type: 'string',
    pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?$',
    description: 'decimal string',
  },
);

const isWholeNumber = (u: unknown): u is number => typeof u === 'number' && Number.isSafeInteger(u);

/** A time on the wire: Unix seconds. */
export const UnixSeconds = leaf<number>('UnixSeconds', isWholeNumber, answerError, {
  type: 'integer',
  description: 'Unix seconds',
});

/** A whole number: a count, an id number, a version, a status code. */
export const WholeNumber = leaf<number>('WholeNumber', isWholeNumber, answerError, {
  type: 'integer',
});

/** One of `values` (a core constant), documented as its enum. */
export const oneOf = <const V extends readonly string[]>(
  name: string,
  values: V,
): LeafType<V[number]> =>
  leaf<V[number]>(
    name,
    (u): u is V[number] => typeof u === 'string' && values.some((value) => value === u),
    answerError,
    { type: 'string', enum: [...values] },
  );

export const CurrencyCode = oneOf<readonly Currency[]>('CurrencyCode', currencies);

/** `T | null`: a field the answer always carries, `null` when it has no value. */
export const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/** `created_at` and `updated_at`: when a record was made and last changed, in Unix seconds. */
export const timestamps = { created_at: UnixSeconds, updated_at: UnixSeconds };

/** `data: { <key>: view, ... }`: a closed object of the answer's objects. */
export const answerOf = <P extends t.Props>(props: P) => t.strict(props);

/** `data: { <key>: view }`: one resource under its name, the common answer. */
export const resourceAnswerOf = <K extends string, C extends t.Mixed>(key: K, view: C) =>
  answerOf(recordOf([key], () => view));

/** `data: { items, total, limit, offset }` (docs/spec/decisions.md §9). */
export const pageOf = <C extends t.Mixed>(item: C) =>
  t.strict({
    items: t.readonlyArray(item),
    total: WholeNumber,
    limit: WholeNumber,
    offset: WholeNumber,
  });
