/**
 * The reference store: every port in memory. Units of work run one at a time (a promise chain),
 * so concurrent callers see serializable behaviour; a unit of work that throws is undone through
 * its undo log. Records are copied in and out, so a caller cannot change the store by mutating
 * what it passed or got back.
 */
import {
  type Collection,
  type Collections,
  collectionSpecs,
  type RecordMeta,
  type Store,
  type StoreTransaction,
} from '@payrail/core';
import { memoryCollection } from './memory-collection.js';
import { memoryIdempotency } from './memory-idempotency.js';
import { memoryLedger } from './memory-ledger.js';
import { memoryOutbox } from './memory-outbox.js';
import {
  collectionNames,
  collectionStateOf,
  createMemoryState,
  type MemoryState,
} from './memory-state.js';
import { memoryTimers } from './memory-timers.js';
import { UndoLog } from './undo-log.js';

export interface MemoryStore extends Store {
  /** Whether `close()` was called. */
  readonly closed: boolean;
  onWork(listener: () => void): () => void;
}

const states = new WeakMap<MemoryStore, MemoryState>();

/** The raw maps behind a memory store, for its oracle. */
export const memoryStateOf = (store: MemoryStore): MemoryState => {
  const state = states.get(store);
  if (state === undefined) throw new Error('not a store made by createMemoryStore');
  return state;
};

const openTransaction = (
  state: MemoryState,
  undo: UndoLog,
  guard: () => void,
  noteWork: () => void,
): StoreTransaction => {
  const collections: Readonly<Record<string, Collection<RecordMeta>>> = Object.fromEntries(
    collectionNames.map((name) => [
      name,
      memoryCollection(collectionSpecs[name], collectionStateOf(state, name), undo, guard),
    ]),
  );
  return {
    // Each collection holds its spec's records as bags of fields; the spec makes it typed.
    ...(collections as Collections),
    ledger: memoryLedger(state, undo, guard),
    outbox: memoryOutbox(state, undo, guard, noteWork),
    timers: memoryTimers(state, undo, guard, noteWork),
    idempotency: memoryIdempotency(state, undo, guard),
  };
};

/**
 * Runs `work` on the store's ports, undoing its writes when it throws, and tells the `onWork`
 * listeners once it finished, if it wrote work.
 */
const runUnit = async <T>(
  state: MemoryState,
  work: (tx: StoreTransaction) => Promise<T>,
  tellWork: () => void,
): Promise<T> => {
  const undo = new UndoLog();
  let open = true;
  // A transaction object kept past its unit of work would write outside the lock.
  const guard = (): void => {
    if (!open) throw new Error('this unit of work has already ended');
  };
  let wroteWork = false;
  const noteWork = (): void => {
    wroteWork = true;
  };
  let result: T;
  try {
    result = await work(openTransaction(state, undo, guard, noteWork));
  } catch (error) {
    undo.rollback();
    throw error;
  } finally {
    open = false;
  }
  if (wroteWork) tellWork();
  return result;
};

export const createMemoryStore = (): MemoryStore => {
  const state = createMemoryState();
  // The tail of the chain of units of work; each starts when the previous one has settled.
  let tail: Promise<unknown> = Promise.resolve();
  let closed = false;
  const workListeners = new Set<() => void>();
  const tellWork = (): void => {
    for (const listener of [...workListeners]) {
      try {
        listener();
      } catch {
        // A listener's failure is its own; the unit of work has committed.
      }
    }
  };

  const run = <T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new Error('the memory store is closed'));
    return runUnit(state, work, tellWork);
  };

  const store: MemoryStore = {
    get closed() {
      return closed;
    },
    transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
      const result = tail.then(() => run(work));
      tail = result.catch(() => undefined);
      return result;
    },
    onWork(listener: () => void): () => void {
      const own = (): void => listener();
      workListeners.add(own);
      return () => {
        workListeners.delete(own);
      };
    },
    async claimEnvironment(environment) {
      if (closed) throw new Error('the memory store is closed');
      state.environment ??= environment;
      return state.environment;
    },
    async close(): Promise<void> {
      await tail;
      closed = true;
      workListeners.clear();
    },
  };
  states.set(store, state);
  return store;
};
