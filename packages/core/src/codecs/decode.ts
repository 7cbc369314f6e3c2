/**
 * How io-ts codecs speak the catalogue. A codec fails with `fail(u, c, payrailError(...))`,
 * which keeps the catalogue error on the io-ts ValidationError; `decodeWith` turns the first
 * failure into that error (io-ts reports failures in the order of the codec's keys, which is
 * therefore the precedence of rules). A failure without a catalogue error, such as a plain
 * `t.string` seeing a number, becomes `Validation Failed`.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import { isPayrailError, type PayrailError, payrailError } from '../errors/error-catalogue.js';

export type CatalogueValidationError = t.ValidationError & { readonly payrailError: PayrailError };

export const fail = <A>(u: unknown, c: t.Context, error: PayrailError): t.Validation<A> =>
  t.failures([
    { value: u, context: c, message: error.message, payrailError: error } as t.ValidationError,
  ]);

export const payrailErrorOf = (error: t.ValidationError): PayrailError | undefined => {
  const candidate = (error as Partial<CatalogueValidationError>).payrailError;
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

/** A codec from a validation function, for rules io-ts's combinators cannot say. */
export const codecOf = <A, O = A>(
  name: string,
  is: (u: unknown) => u is A,
  validate: (u: unknown, c: t.Context) => t.Validation<A>,
  encode: (a: A) => O = (a) => a as unknown as O,
): t.Type<A, O, unknown> => new t.Type<A, O, unknown>(name, is, validate, encode);

/**
 * A request body: `request required` unless it is a JSON object. HTTP adapters pass the parsed
 * body, or `undefined` when it was empty or unparsable.
 */
export const requestBody = <A, O>(codec: t.Type<A, O, unknown>): t.Type<A, O, unknown> =>
  codecOf(
    codec.name,
    codec.is,
    (u, c) =>
      typeof u === 'object' && u !== null && !Array.isArray(u)
        ? codec.validate(u, c)
        : fail(u, c, payrailError('request_required')),
    codec.encode,
  );
