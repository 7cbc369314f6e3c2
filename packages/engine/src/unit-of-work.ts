/**
 * Every use case is one unit of work. Inside it, a refusal is thrown as `Refused` so the store
 * rolls everything back; `unitOfWork` turns it into `Left(error)`. Anything else thrown is
 * unexpected and propagates (the HTTP layer answers `internal error`).
 */
import type { PayrailError, Store, StoreTransaction } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';

class Refused extends Error {
  constructor(readonly error: PayrailError) {
    super(error.message);
    this.name = 'Refused';
  }
}

/** Stops the unit of work with a catalogue error; nothing it wrote is kept. */
export const refuse = (error: PayrailError): never => {
  throw new Refused(error);
};

/** The value, or the refusal when `either` is a Left. */
export const orRefuse = <A>(either: E.Either<PayrailError, A>): A =>
  E.isLeft(either) ? refuse(either.left) : either.right;

export type Outcome<T> = E.Either<PayrailError, T>;

/** A decision that needs nothing from the store: its refusal as `Left`, as `unitOfWork` gives. */
export const decide = <T>(work: () => T): Outcome<T> => {
  try {
    return E.right(work());
  } catch (error) {
    if (error instanceof Refused) return E.left(error.error);
    throw error;
  }
};

export const unitOfWork = async <T>(
  store: Store,
  work: (tx: StoreTransaction) => Promise<T>,
): Promise<Outcome<T>> => {
  try {
    return E.right(await store.transaction(work));
  } catch (error) {
    if (error instanceof Refused) return E.left(error.error);
    throw error;
  }
};
