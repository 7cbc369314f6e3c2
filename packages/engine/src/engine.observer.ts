/**
 * The engine's observer port: what a host measures of a running engine (metrics, traces) without
 * the engine knowing how. `EngineDeps.observer` is told of
 *
 * - every unit of work as it starts and ends: its use case (the act it carries out, such as
 *   `payout.create`, a timer's `timer.<name>`, else `other`), how it ended and how long it took.
 *   A conflict (ADR 0025) ends one run, and the unit of work runs again: each run is told;
 * - every committed transition of a payout, an acquiring order or refund, or a crypto batch,
 *   from the state it was read in to the state it was saved in (a creation is from `none`);
 *   nothing of a unit of work that rolled back;
 * - every timer fired, with how late it fired on the engine's clock.
 *
 * The engine itself imports nothing to measure with: the server implements this port with
 * prom-client and `@opentelemetry/api`. What an observer throws is ignored, and what it is told
 * holds no merchant data beyond names of states, timers and use cases.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Store, StoreTransaction } from '@payrail/core';

/**
 * How a run of a unit of work ended: it `committed`; a catalogue refusal rolled it back
 * (`refused`); it lost a race and runs again (`conflict`, ADR 0025); anything else (`failed`).
 */
export type UnitOfWorkOutcome = 'committed' | 'refused' | 'conflict' | 'failed';

export interface UnitOfWorkEnded {
  readonly outcome: UnitOfWorkOutcome;
  readonly seconds: number;
}

/** The machines whose transitions are told, by the name their metrics carry. */
export type ObservedMachine = 'payout' | 'acquiring_order' | 'acquiring_refund' | 'crypto_batch';

export interface CommittedTransition {
  readonly machine: ObservedMachine;
  /** The state read, `none` for a creation; a nested state as `parent.child`. */
  readonly from: string;
  readonly to: string;
}

export interface TimerFired {
  /** `order.expiry`, `refund.execute`, `payout.execute`. */
  readonly timer: string;
  /** The engine's clock when it fired, less the timer's due time; 0 or more. */
  readonly lagSeconds: number;
}

export interface EngineObserver {
  /** A run of a unit of work starts; answers what to call when it ends. */
  readonly unitOfWorkStarted?: (useCase: string) => (ended: UnitOfWorkEnded) => void;
  readonly transitionCommitted?: (transition: CommittedTransition) => void;
  readonly timerFired?: (fired: TimerFired) => void;
}

/** The name of the units of work of a worker's step (`timer.<name>`), inner to any act. */
const useCases = new AsyncLocalStorage<string>();

/** Runs `work` as `useCase`: the units of work it starts are told under that name. */
export const withinUseCase = <T>(useCase: string, work: () => Promise<T>): Promise<T> =>
  useCases.run(useCase, work);

/** The transitions noted in each open transaction of an observed store. */
const transitionsOf = new WeakMap<StoreTransaction, CommittedTransition[]>();

const machineNames: Readonly<Record<string, ObservedMachine>> = {
  payout: 'payout',
  acquiringOrder: 'acquiring_order',
  acquiringRefund: 'acquiring_refund',
  cryptoBatch: 'crypto_batch',
};

/** A state value as one key: `approved.init` for `{ approved: 'init' }`. */
const stateKeyOf = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  return Object.entries(value)
    .map(([parent, child]) => `${parent}.${stateKeyOf(child)}`)
    .join(',');
};

/**
 * Notes a decision of this unit of work (`before` absent: a creation), told once it commits; a
 * decision that stays in its state is no transition.
 */
export const noteTransition = (
  tx: StoreTransaction,
  machineId: string | undefined,
  before: { readonly value: unknown } | undefined,
  after: { readonly value: unknown },
): void => {
  const notes = transitionsOf.get(tx);
  const machine = machineId === undefined ? undefined : machineNames[machineId];
  if (notes === undefined || machine === undefined) return;
  const from = before === undefined ? 'none' : stateKeyOf(before.value);
  const to = stateKeyOf(after.value);
  if (from !== to) notes.push({ machine, from, to });
};

/** How the engine tells what a unit of work threw: its refusals, and the conflicts it reruns. */
export interface ThrownKinds {
  readonly isRefusal: (error: unknown) => boolean;
  readonly isConflict: (error: unknown) => boolean;
}

const outcomeOf = (error: unknown, kinds: ThrownKinds): UnitOfWorkOutcome =>
  kinds.isRefusal(error) ? 'refused' : kinds.isConflict(error) ? 'conflict' : 'failed';

/** Calls an observer's hook; what it throws is its own. */
const safely = (tell: () => void): void => {
  try {
    tell();
  } catch {
    // Watching must never break the work watched.
  }
};

/**
 * `store` with each unit of work timed and its committed transitions told to `observer`.
 * `useCaseOf` names the unit of work (the current act, if any).
 */
export const observingStore = (
  store: Store,
  observer: EngineObserver,
  useCaseOf: () => string | undefined,
  kinds: ThrownKinds,
): Store => {
  /** Runs one unit of work, telling the observer its outcome and then its committed transitions. */
  const timed = async <T>(
    run: () => Promise<T>,
    committed: () => readonly CommittedTransition[],
  ): Promise<T> => {
    const useCase = useCases.getStore() ?? useCaseOf() ?? 'other';
    let ended: ((end: UnitOfWorkEnded) => void) | undefined;
    safely(() => {
      ended = observer.unitOfWorkStarted?.(useCase);
    });
    const started = performance.now();
    const seconds = (): number => (performance.now() - started) / 1000;
    try {
      const result = await run();
      safely(() => ended?.({ outcome: 'committed', seconds: seconds() }));
      for (const transition of committed()) {
        safely(() => observer.transitionCommitted?.(transition));
      }
      return result;
    } catch (error) {
      safely(() => ended?.({ outcome: outcomeOf(error, kinds), seconds: seconds() }));
      throw error;
    }
  };
  return {
    transaction: (work) => {
      // A store may run `work` again after a transient conflict: only the last run committed.
      let notes: CommittedTransition[] = [];
      return timed(
        () =>
          store.transaction(async (tx) => {
            notes = [];
            transitionsOf.set(tx, notes);
            try {
              return await work(tx);
            } finally {
              transitionsOf.delete(tx);
            }
          }),
        () => notes,
      );
    },
    // A read (ADR 0054) is timed as a unit of work too; it commits no transition.
    ...(store.read === undefined
      ? {}
      : {
          read: (work) =>
            timed(
              () => store.read?.(work) ?? store.transaction(work),
              () => [],
            ),
        }),
    ...(store.onWork === undefined
      ? {}
      : { onWork: (listener: () => void) => store.onWork?.(listener) ?? (() => {}) }),
    claimEnvironment: (environment) => store.claimEnvironment(environment),
    close: () => store.close(),
  };
};

/** Tells `observer` of a timer fired at `now`. */
export const tellTimerFired = (
  observer: EngineObserver | undefined,
  timer: { readonly name: string; readonly due_at: number },
  now: number,
): void => {
  safely(() =>
    observer?.timerFired?.({ timer: timer.name, lagSeconds: Math.max(0, now - timer.due_at) }),
  );
};
