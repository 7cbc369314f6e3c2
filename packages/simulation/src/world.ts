/**
 * One simulated payrail: a store (memory, or PostgreSQL embedded through PGlite), the fault
 * switch over it, a virtual clock, seeded ids, the engine with the sandbox acquiring provider,
 * and the webhook dispatcher over a fake transport. `restart()` drops the engine and the
 * dispatcher and builds new ones over the same store, as a process restart would; the memory
 * store keeps its data in its object, PGlite in its database.
 */
import { PGlite } from '@electric-sql/pglite';
import type { IdGenerator, Store, StoreOracle } from '@payrail/core';
import {
  type AdjustableClock,
  adjustableClock,
  createEngine,
  type Engine,
  seedSandboxCatalogue,
} from '@payrail/engine';
import { sandboxAcquiringProvider } from '@payrail/sandbox';
import { createMemoryStore } from '@payrail/store-memory';
import { memoryOracle } from '@payrail/store-memory/testing';
import { createPGliteStore } from '@payrail/store-postgres';
import { postgresOracle } from '@payrail/store-postgres/testing';
import { createDispatcher, type Dispatcher, type Transport } from '@payrail/webhooks';
import { type FaultyStore, faultyStore } from './faulty-store.js';
import type { Random } from './prng.js';

export type StoreKind = 'memory' | 'pglite';
export const storeKinds: readonly StoreKind[] = ['memory', 'pglite'];

/** 2027-01-15T08:00:00Z: every run starts here, whatever the wall clock says. */
export const simulationEpoch = 1_800_000_000;
/** The engine's key secret, which the dispatcher opens the stored webhook secrets with. */
const simulationKeySecret = new Uint8Array(32).fill(3);
/** The sandbox provider's signing secret (32 bytes of 7s, base64). */
export const upstreamSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
/** The address the simulated chain watcher calls from. */
export const upstreamSource = '127.0.0.1';

/** Wraps the store the engine sees, e.g. one that breaks an invariant on purpose. */
export type StoreWrapper = (store: Store) => Store;

export interface World {
  readonly kind: StoreKind;
  readonly clock: AdjustableClock;
  readonly oracle: StoreOracle;
  /** The store the engine and dispatcher run on (fault switch included). */
  readonly store: Store;
  readonly faults: FaultyStore;
  engine: Engine;
  dispatcher: Dispatcher;
  /** How many restarts so far. */
  restarts: number;
  restart(): void;
  close(): Promise<void>;
}

/** `<prefix>_` + 8 seeded hex digits + a counter: unique, and in no particular order. */
const seededIds = (random: Random): IdGenerator => {
  let n = 0;
  return {
    next: (prefix) => {
      n += 1;
      const noise = random.next().toString(16).padStart(8, '0');
      return `${prefix}_${noise}${n.toString(16).padStart(4, '0')}`;
    },
  };
};

let sharedPGlite: Promise<PGlite> | undefined;
let schemas = 0;

const openStore = async (
  kind: StoreKind,
): Promise<{ store: Store; oracle: StoreOracle; drop: () => Promise<void> }> => {
  if (kind === 'memory') {
    const store = createMemoryStore();
    return { store, oracle: memoryOracle(store), drop: async () => undefined };
  }
  sharedPGlite ??= PGlite.create('memory://');
  const pglite = await sharedPGlite;
  schemas += 1;
  const schema = `sim_${process.pid}_${schemas}`;
  const store = await createPGliteStore({ pglite, schema });
  return {
    store,
    oracle: postgresOracle(store),
    drop: async () => {
      await store.close();
      await pglite.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
};

export interface WorldOptions {
  readonly kind: StoreKind;
  readonly random: Random;
  readonly transport: Transport;
  readonly wrapStore?: StoreWrapper;
}

export const openWorld = async (options: WorldOptions): Promise<World> => {
  const { store: raw, oracle, drop } = await openStore(options.kind);
  const faults = faultyStore(raw);
  const store = options.wrapStore?.(faults.store) ?? faults.store;
  const clock = adjustableClock({ now: () => simulationEpoch });
  const ids = seededIds(options.random.fork());
  await store.claimEnvironment('sandbox');
  await seedSandboxCatalogue(store, ids, clock);

  const build = (restarts: number): { engine: Engine; dispatcher: Dispatcher } => {
    let dispatcher: Dispatcher | undefined;
    const engine = createEngine({
      store,
      clock,
      ids,
      settings: {
        environment: 'sandbox',
        checkoutBaseUrl: 'https://pay.example/checkout',
        allowInsecureWebhooks: false,
        keySecret: simulationKeySecret,
        // Both caches expire on the wall clock (performance.now). At their 1 s default a unit of
        // work reads the catalogue, and the dispatcher's parallel attempts read the keys, or not,
        // depending on how fast the run goes: an abort armed at a unit's n-th statement then fires
        // on a slow run only, and the attempts interleave differently on the two stores. An hour
        // outlasts any run: an entry is read once per engine (a restart is seeded), and changes
        // made through the engine reach it at once. A seed names one history on any machine.
        keyCheckCacheMs: 3_600_000,
        catalogueCacheMs: 3_600_000,
      },
      acquiringProviders: [
        sandboxAcquiringProvider({
          allowedSources: [upstreamSource],
          secret: upstreamSecret,
          now: () => clock.now() * 1000,
        }),
      ],
      afterClockAdvance: async () => {
        await dispatcher?.runOnce();
      },
    });
    dispatcher = createDispatcher({
      store,
      clock,
      ids,
      callbacks: engine.callbacks,
      keySecret: simulationKeySecret,
      allowInsecure: false,
      worker: `sim-dispatcher-${restarts}`,
      transport: options.transport,
      signingClock: clock,
    });
    return { engine, dispatcher };
  };

  const world: World = {
    kind: options.kind,
    clock,
    oracle,
    store,
    faults,
    ...build(0),
    restarts: 0,
    restart: () => {
      world.restarts += 1;
      Object.assign(world, build(world.restarts));
    },
    close: drop,
  };
  return world;
};
