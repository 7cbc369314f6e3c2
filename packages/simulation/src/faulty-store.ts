/**
 * The Store port with a fault switch: once armed, the next unit of work throws just before its
 * n-th statement (any call on a collection, the ledger, the outbox, the timers or the
 * idempotency port), as a crash or a lost connection in the middle of a unit would. The store
 * must then keep nothing of that unit; the simulation checks it did.
 */
import type { Store, StoreTransaction } from '@payrail/core';

/** What the armed unit of work throws. */
export class InjectedAbort extends Error {
  constructor(readonly statement: number) {
    super(`simulated abort before statement ${statement} of the unit of work`);
    this.name = 'InjectedAbort';
  }
}

export interface FaultyStore {
  readonly store: Store;
  /** The next unit of work throws before its `statement`-th statement (1-based). */
  arm(statement: number): void;
  disarm(): void;
  /** Whether the armed abort fired since it was armed. */
  fired(): boolean;
}

/** Every function reached through `port` first calls `tick`. */
const ticking = <T extends object>(port: T, tick: () => void): T =>
  new Proxy(port, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        tick();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });

export const faultyStore = (inner: Store): FaultyStore => {
  let armedAt: number | undefined;
  let fired = false;
  const wrap = (tx: StoreTransaction): StoreTransaction => {
    if (armedAt === undefined) return tx;
    let statements = 0;
    const tick = () => {
      statements += 1;
      if (armedAt !== undefined && statements >= armedAt) {
        const at = armedAt;
        armedAt = undefined;
        fired = true;
        throw new InjectedAbort(at);
      }
    };
    const ports = new Map<PropertyKey, unknown>();
    return new Proxy(tx, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== 'object' || value === null) return value;
        if (!ports.has(key)) ports.set(key, ticking(value, tick));
        return ports.get(key);
      },
    });
  };
  const store: Store = {
    transaction: (work) => inner.transaction((tx) => work(wrap(tx))),
    claimEnvironment: (environment) => inner.claimEnvironment(environment),
    close: () => inner.close(),
    ...(inner.onWork === undefined ? {} : { onWork: inner.onWork.bind(inner) }),
  };
  return {
    store,
    arm: (statement) => {
      armedAt = statement;
      fired = false;
    },
    disarm: () => {
      armedAt = undefined;
    },
    fired: () => fired,
  };
};
