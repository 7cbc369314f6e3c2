/**
 * Watching a running engine through XState's inspection protocol. The engine runs no actors: it
 * loads a snapshot, runs the pure transition and commits the result. With `EngineDeps.inspect`
 * each committed decision is told as a live actor would tell it, so `@statelyai/inspect`'s
 * inspectors draw the engine's payouts, orders and batches: an `@xstate.actor` the first time this
 * engine meets a business id (its creation, or the first load of an older one), then per decision
 * an `@xstate.event` (the machine event; `xstate.init` with the input for a creation) and an
 * `@xstate.snapshot` (the snapshot after it). Actor id and session id are the business id; a
 * crypto batch's payouts are its children.
 *
 * A state final for the interface is shown `done` (`status: 'done'`), as XState shows a machine
 * in a top-level final state: a completed, failed or cancelled payout and a completed, closed or
 * expired order, though their machines stay open for what may still come (a returned payout, a
 * late payment).
 *
 * Only committed work is told: the decide sites note their decision on the unit of work's
 * transaction, and the store wrapper that `createEngine` installs (only when `inspect` is given)
 * hands the notes of a transaction to the observer after it committed. A refused or rolled-back
 * unit of work tells nothing, and a retried one only what its last attempt committed.
 */
import type {
  AcquiringOrderEvent,
  AcquiringOrderInput,
  AcquiringOrderSnapshot,
  AcquiringRefundEvent,
  AcquiringRefundInput,
  AcquiringRefundSnapshot,
  acquiringOrderMachine,
  acquiringRefundMachine,
  CryptoBatchEvent,
  CryptoBatchInput,
  CryptoBatchSnapshot,
  cryptoBatchMachine,
  PayoutEvent,
  PayoutInput,
  PayoutMachine,
  PayoutSnapshot,
  Store,
  StoreTransaction,
} from '@payrail/core';

/** The machines whose decisions the engine tells; `config.id` names each one. */
export type InspectedMachine =
  | PayoutMachine
  | typeof acquiringOrderMachine
  | typeof acquiringRefundMachine
  | typeof cryptoBatchMachine;

export type InspectedSnapshot =
  | PayoutSnapshot
  | AcquiringOrderSnapshot
  | AcquiringRefundSnapshot
  | CryptoBatchSnapshot;

/**
 * The event XState tells for an actor's start: its input, under `xstate.init`. A type literal,
 * not an interface, so that it is assignable to XState's `AnyEventObject` (an index signature).
 */
export type InspectedInitEvent = {
  readonly type: 'xstate.init';
  readonly input: PayoutInput | AcquiringOrderInput | AcquiringRefundInput | CryptoBatchInput;
};

export type InspectedEvent =
  | PayoutEvent
  | AcquiringOrderEvent
  | AcquiringRefundEvent
  | CryptoBatchEvent
  | InspectedInitEvent;

/**
 * What XState's `actorRef` of an inspection event carries, for the business object at the moment
 * of the event. It is a record, not a running actor: `send` does nothing.
 */
export interface InspectedActorRef {
  /** The business id: payout_id, order_id or batch_id. */
  readonly id: string;
  readonly sessionId: string;
  /** The machine; `logic.config.id` is `payout`, `acquiringOrder` or `cryptoBatch`. */
  readonly logic: InspectedMachine;
  /** The crypto batch a batch payout was created by. */
  readonly _parent?: InspectedActorRef;
  getSnapshot(): InspectedSnapshot;
  send(event: unknown): void;
}

interface InspectionBase {
  /** The root actor's session id: the batch of a batch payout, else the object itself. */
  readonly rootId: string;
  readonly actorRef: InspectedActorRef;
}

/**
 * XState v5's `InspectedActorEvent`, `InspectedEventEvent` and `InspectedSnapshotEvent` as the
 * engine fills them (it never sends the transition, microstep and action events).
 */
export type EngineInspectionEvent =
  | (InspectionBase & { readonly type: '@xstate.actor' })
  | (InspectionBase & {
      readonly type: '@xstate.event';
      readonly sourceRef: InspectedActorRef | undefined;
      readonly event: InspectedEvent;
    })
  | (InspectionBase & {
      readonly type: '@xstate.snapshot';
      readonly event: InspectedEvent;
      readonly snapshot: InspectedSnapshot;
    });

/**
 * What `createActor(machine, { inspect })` takes: a function or an observer with `next`, such as
 * `createInspectorSender({ url }).inspect` from `@payrail/server`. What it throws is ignored.
 */
export type EngineInspector =
  | ((event: EngineInspectionEvent) => void)
  | { readonly next?: (event: EngineInspectionEvent) => void };

export interface ParentNote {
  readonly machine: InspectedMachine;
  readonly id: string;
  readonly snapshot: InspectedSnapshot;
}

interface DecisionNote {
  readonly machine: InspectedMachine;
  readonly id: string;
  /** The snapshot the event was decided on; absent for a creation. */
  readonly before?: InspectedSnapshot;
  readonly event: InspectedEvent;
  readonly after: InspectedSnapshot;
  readonly parent?: ParentNote;
}

/** The notes of each open transaction of an inspecting store; no entry: nobody watches. */
const notesOf = new WeakMap<StoreTransaction, DecisionNote[]>();

/**
 * Whether a snapshot is final for the interface (`isFinalPayout`, `isFinalOrder`); a machine
 * whose final states are XState's own (the refund, the batch) needs none.
 */
export type FinalFor<S extends InspectedSnapshot> = (snapshot: S) => boolean;

/** The snapshot as inspectors see it: `done` once it is final for the interface. */
const shown = <S extends InspectedSnapshot>(snapshot: S, isFinal: FinalFor<S> | undefined): S =>
  snapshot.status === 'active' && isFinal?.(snapshot) === true
    ? { ...snapshot, status: 'done', output: undefined, error: undefined }
    : snapshot;

/** Notes a decision of this unit of work, to be told once it commits. */
export const noteDecision = <S extends InspectedSnapshot>(
  tx: StoreTransaction,
  decision: {
    readonly machine: InspectedMachine;
    readonly id: string;
    readonly before: S;
    readonly event: PayoutEvent | AcquiringOrderEvent | AcquiringRefundEvent | CryptoBatchEvent;
    readonly after: S;
    readonly isFinal?: FinalFor<S>;
  },
): void => {
  const notes = notesOf.get(tx);
  if (notes === undefined) return;
  const { machine, id, before, event, after, isFinal } = decision;
  notes.push({
    machine,
    id,
    before: shown(before, isFinal),
    event,
    after: shown(after, isFinal),
  });
};

/** Notes the creation of a business object (`start`), to be told once it commits. */
export const noteStart = <S extends InspectedSnapshot>(
  tx: StoreTransaction,
  creation: {
    readonly machine: InspectedMachine;
    readonly id: string;
    readonly input: InspectedInitEvent['input'];
    readonly snapshot: S;
    /** The crypto batch that creates a batch payout, as it stands after the decision. */
    readonly parent?: ParentNote;
    readonly isFinal?: FinalFor<S>;
  },
): void => {
  const notes = notesOf.get(tx);
  if (notes === undefined) return;
  const { machine, id, input, snapshot, parent, isFinal } = creation;
  notes.push({
    machine,
    id,
    event: { type: 'xstate.init', input },
    after: shown(snapshot, isFinal),
    ...(parent === undefined ? {} : { parent }),
  });
};

const actorRefOf = (
  machine: InspectedMachine,
  id: string,
  snapshot: InspectedSnapshot,
  parent?: InspectedActorRef,
): InspectedActorRef => ({
  id,
  sessionId: id,
  logic: machine,
  ...(parent === undefined ? {} : { _parent: parent }),
  getSnapshot: () => snapshot,
  send: () => {},
});

/** Business ids already announced with `@xstate.actor`; the oldest are forgotten past this. */
const announcedLimit = 10_000;

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null)?.then === 'function';

/**
 * `store` with every committed transaction's decisions told to `inspector`. Only `createEngine`
 * installs it, and only when `EngineDeps.inspect` is given.
 */
export const inspectingStore = (store: Store, inspector: EngineInspector): Store => {
  const announced = new Set<string>();

  const tell = (event: EngineInspectionEvent): void => {
    try {
      const result: unknown =
        typeof inspector === 'function' ? inspector(event) : inspector.next?.(event);
      // An async observer's rejection is as ignorable as a throw.
      if (isThenable(result)) result.then(undefined, () => {});
    } catch {
      // Watching must never break the work watched.
    }
  };

  const announce = (actorRef: InspectedActorRef, rootId: string): void => {
    if (announced.has(actorRef.id)) return;
    announced.add(actorRef.id);
    if (announced.size > announcedLimit) {
      const oldest = announced.values().next().value;
      if (oldest !== undefined) announced.delete(oldest);
    }
    tell({ type: '@xstate.actor', actorRef, rootId });
  };

  const tellDecision = (note: DecisionNote): void => {
    const parent =
      note.parent === undefined
        ? undefined
        : actorRefOf(note.parent.machine, note.parent.id, note.parent.snapshot);
    const rootId = parent?.sessionId ?? note.id;
    const before = actorRefOf(note.machine, note.id, note.before ?? note.after, parent);
    announce(before, rootId);
    tell({
      type: '@xstate.event',
      actorRef: before,
      // As XState tells a child's start: the parent sent it.
      sourceRef: note.before === undefined ? parent : undefined,
      event: note.event,
      rootId,
    });
    tell({
      type: '@xstate.snapshot',
      actorRef: actorRefOf(note.machine, note.id, note.after, parent),
      event: note.event,
      snapshot: note.after,
      rootId,
    });
  };

  return {
    transaction: async (work) => {
      // A store may run `work` again after a transient conflict: only the last run committed.
      let notes: DecisionNote[] = [];
      const result = await store.transaction(async (tx) => {
        notes = [];
        notesOf.set(tx, notes);
        try {
          return await work(tx);
        } finally {
          notesOf.delete(tx);
        }
      });
      for (const note of notes) tellDecision(note);
      return result;
    },
    // A read decides nothing, so there is nothing to note.
    ...(store.read === undefined
      ? {}
      : { read: (work) => store.read?.(work) ?? store.transaction(work) }),
    ...(store.onWork === undefined
      ? {}
      : { onWork: (listener: () => void) => store.onWork?.(listener) ?? (() => {}) }),
    claimEnvironment: (environment) => store.claimEnvironment(environment),
    close: () => store.close(),
  };
};
