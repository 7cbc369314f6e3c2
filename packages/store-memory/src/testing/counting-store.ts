/**
 * A store that counts the units of work run on it, passing everything through (`onWork`
 * included): for tests that show how much store work something does, such as a loop that must
 * make none while idle (ADR 0030).
 */
import type { Store } from '@payrail/core';

export interface CountingStore {
  readonly store: Store;
  readonly counted: { transactions: number };
}

export const countingStore = (inner: Store): CountingStore => {
  const counted = { transactions: 0 };
  const store: Store = {
    transaction: (work) => {
      counted.transactions += 1;
      return inner.transaction(work);
    },
    ...(inner.onWork === undefined
      ? {}
      : { onWork: (listener: () => void) => inner.onWork?.(listener) ?? (() => {}) }),
    claimEnvironment: (environment) => inner.claimEnvironment(environment),
    close: () => inner.close(),
  };
  return { store, counted };
};
