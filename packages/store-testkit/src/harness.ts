/**
 * What a store hands the conformance suite: the store, an oracle that reads what was really
 * stored without going through the store's own code, and what the store cannot do.
 */
import type { Store, StoreOracle } from '@payrail/core';

/** @public The core declares the oracle (a port); named here too for store authors. */
export type { StoreOracle } from '@payrail/core';

export interface StoreHarness {
  readonly store: Store;
  readonly oracle: StoreOracle;
  /** Closes the store and drops whatever the harness created (a schema, a directory). */
  close(): Promise<void>;
}

/** A capability a store may lack, with the reason shown where the suite leaves tests out. */
export type Capability =
  | { readonly supported: true }
  | { readonly supported: false; readonly reason: string };

export interface StoreCapabilities {
  /** Units of work really run at the same time (a pool); otherwise they are serialized. */
  readonly concurrentTransactions: Capability;
  /** Data survives closing the store and opening it again on the same location. */
  readonly durable: Capability;
}

/** The runner's functions, so the suite runs under vitest, node:test or jest alike. */
export interface SuiteRunner {
  readonly describe: (name: string, body: () => void) => void;
  readonly it: (name: string, body: () => Promise<void> | void, timeout?: number) => void;
}

export interface ConformanceOptions extends SuiteRunner {
  /** The store's name in test titles: `memory`, `pglite`, `postgres`. */
  readonly name: string;
  /** A fresh, empty store for one test. */
  readonly createHarness: () => Promise<StoreHarness>;
  /**
   * Opens the same data again (for `durable` stores). The suite first closes the harness's store
   * (`harness.store.close()`, which keeps the data), then calls this with that harness; it
   * answers a new harness over the same data. The suite closes only the new harness, so its
   * `close()` drops the data (a schema, a directory) for both.
   */
  readonly reopen?: (harness: StoreHarness) => Promise<StoreHarness>;
  readonly capabilities: StoreCapabilities;
  /**
   * A fresh reference store for the model-based run (the memory store): random operation
   * sequences go to both stores and every answer must agree. Without it that run is left out
   * and the suite's title says so.
   */
  readonly createModel?: () => Promise<StoreHarness>;
  /**
   * How many random sequences the model-based run tries; defaults to fast-check's global
   * `numRuns`. Databases pass fewer (each run opens two stores).
   */
  readonly modelRuns?: number;
}
