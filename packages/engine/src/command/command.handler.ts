/**
 * The one door of every state change of a payout, an acquiring order and a crypto batch (ADR
 * 0025, ADR 0042), shaped after emmett's `handleCommand`: the use case gives only "which object"
 * and "what event, given what it is now"; the handler owns the rest.
 *
 * - `handle` runs one unit of work under the conflict-retry policy: the guard (the caller's
 *   permissions and account), `load` (which refuses `<x> not found`), the use case's `decide`,
 *   and `commitDecision`. A conflict reruns all of it on fresh reads.
 * - `commitDecision` is the decision itself, in a unit of work somebody already holds (a timer's,
 *   a batch submission's): the machine's refusal answers an event it does not accept, the pure
 *   step gives the next snapshot and its effects as data, the decision is noted for inspectors,
 *   the snapshot is written over the version read, and the effects (ledger, outbox, timers) are
 *   committed in the same unit of work.
 * - `create` starts a new object: the machine's initial snapshot and effects, inserted and
 *   committed the same way.
 *
 * `commitEffects` carries out a decision's effects inside the unit of work that saves its
 * snapshot: journals are posted, events go to the transactional outbox, timers are set or
 * cleared. Nothing leaves the database, so a crash at any point keeps state, ledger and outbox
 * consistent.
 *
 * The audit record of the act is the unit of work's last write (`audit/audit-trail.store.ts`),
 * so whatever commits here commits with it. Nothing else saves a snapshot of these aggregates.
 */
import {
  type AcquiringOrderEvent,
  type AcquiringOrderInput,
  type AcquiringOrderSnapshot,
  type AcquiringRefundEvent,
  type AcquiringRefundInput,
  type AcquiringRefundSnapshot,
  acquiringOrderMachine,
  acquiringRefundMachine,
  batchRefusalOf,
  type CryptoBatchEvent,
  type CryptoBatchInput,
  type CryptoBatchSnapshot,
  cryptoBatchMachine,
  type DomainEvent,
  decide,
  type Effect,
  eventIdOf,
  type IdGenerator,
  isFinalOrder,
  isFinalPayout,
  isStoreFailure,
  matchesEventPattern,
  type OutboxDestination,
  orderRefusalOf,
  type PayoutEvent,
  type PayoutInput,
  type PayoutSnapshot,
  type PayrailError,
  payoutMachine,
  payoutRefusalOf,
  refundRefusalOf,
  type Store,
  type StoreReads,
  type StoreTransaction,
  start,
  type TimerName,
  webhookBodyOf,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import type { EngineDeps } from '../engine.deps.js';
import { noteTransition } from '../engine.observer.js';
import {
  type FinalFor,
  type InspectedInitEvent,
  type InspectedMachine,
  type InspectedSnapshot,
  noteDecision,
  noteStart,
  type ParentNote,
} from '../inspection.observer.js';

// ---------------------------------------------------------------------------------------------
// Units of work

/**
 * Every use case is one unit of work. Inside it, a refusal is thrown as `Refused` so the store
 * rolls everything back; `unitOfWork` turns it into `Left(error)`. Anything else thrown is
 * unexpected and propagates (the HTTP layer answers `internal error`).
 */
class Refused extends Error {
  constructor(readonly error: PayrailError) {
    super(error.message);
    this.name = 'Refused';
  }
}

/** Whether a unit of work was stopped by `refuse` (a catalogue refusal), for observers. */
export const isRefusal = (error: unknown): boolean => error instanceof Refused;

/** Stops the unit of work with a catalogue error; nothing it wrote is kept. */
export const refuse = (error: PayrailError): never => {
  throw new Refused(error);
};

/** The value, or the refusal when `either` is a Left. */
export const orRefuse = <A>(either: E.Either<PayrailError, A>): A =>
  E.isLeft(either) ? refuse(either.left) : either.right;

export type Outcome<T> = E.Either<PayrailError, T>;

/**
 * Reads a unit of work issues at once (issue 24, round trips): on a pipelining store they reach
 * the database together, one round trip for all. Every read settles before this answers, so
 * none is left running on the unit's connection, and the first failure in the order given is
 * the one thrown: the refusal a use case checks first (its account, then its body) still comes
 * first, whichever read failed first.
 */
export const together = async <T extends readonly unknown[] | []>(
  reads: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> => {
  await Promise.allSettled(reads);
  // All settled: Promise.all rejects with the first rejection in the array's order.
  return Promise.all(reads);
};

/** A decision that needs nothing from the store: its refusal as `Left`, as `unitOfWork` gives. */
export const outcomeOf = <T>(work: () => T): Outcome<T> => {
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

/** The store's `read`, or `transaction` for a store without one. */
export const readsOf =
  (store: Store) =>
  <T>(work: (tx: StoreReads) => Promise<T>): Promise<T> =>
    store.read === undefined ? store.transaction(work) : store.read(work);

/**
 * A use case that only reads and decides nothing (ADR 0054): the store's `read`, which a read
 * replica may answer, else a unit of work as `unitOfWork` runs it. Its work sees the store's
 * reads only, so it cannot write; whatever moves money, or checks a balance, an idempotency key or
 * an API key, runs through `unitOfWork` on the primary instead.
 */
export const readUnit = async <T>(
  store: Store,
  work: (tx: StoreReads) => Promise<T>,
): Promise<Outcome<T>> => {
  try {
    return E.right(await readsOf(store)(work));
  } catch (error) {
    if (error instanceof Refused) return E.left(error.error);
    throw error;
  }
};

// ---------------------------------------------------------------------------------------------
/**
 * The one conflict-retry policy of the engine (ADR 0025). Every use case that writes is one unit
 * of work deciding on what it read; when a concurrent unit of work committed first, the store
 * refuses the later commit. The whole unit of work then runs again on fresh reads, so the loser
 * decides on the winner's state and answers from it (a refusal such as `order already final`, a
 * reused record, the same result, or a payout failed for want of funds).
 *
 * A conflict is one of:
 * - `version_conflict`: the record changed between our read and our optimistic write;
 * - `insufficient_balance`: a concurrent debit spent the balance our run read;
 * - `unique_violation` on a collection whose records two units of work may both create under
 *   the same natural key (a beneficiary, a beneficiary account, a deposit address).
 *
 * A rerun may lose a race again (issue 19, L5): two duplicate completion reports of a payout
 * whose hold lost the balance to another payout both fail on `insufficient_balance`; one rerun
 * fails the payout for want of funds while the other's rerun read it still approved, and meets
 * a `version_conflict`. Each conflict is a commit another unit of work made after our reads, and
 * an object moves only a few times (a payout's execution at most twice), so the reruns end when
 * the races do; answering the second one `internal error` told a caller that merely repeated
 * itself that the platform failed. `maxAttempts` only stops a store that refuses without end.
 */
/** Collections whose records a concurrent unit of work may create first with the same key. */
const racedKeys: readonly string[] = [
  'beneficiaries',
  'beneficiary_accounts',
  'deposit_addresses',
  'acquiring_refunds',
];

/** Runs of one unit of work before a conflict propagates as unexpected (`internal error`). */
export const maxAttempts = 5;

/** Whether `error` is a store refusal that a fresh run of the same unit of work resolves. */
export const isConflict = (error: unknown): boolean =>
  isStoreFailure(error) &&
  (error.reason === 'version_conflict' ||
    error.reason === 'insufficient_balance' ||
    (error.reason === 'unique_violation' && racedKeys.includes(error.collection)));

/**
 * Runs `attempt`, and again while it fails on a conflict, `maxAttempts` times at most; anything
 * else propagates at once.
 */
export const retryingConflicts = async <T>(attempt: () => Promise<T>): Promise<T> => {
  for (let run = 1; ; run += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isConflict(error) || run >= maxAttempts) throw error;
    }
  }
};

/** `work` as one unit of work under the conflict-retry policy. */
export const unitOfWorkRetryingConflicts = <T>(
  store: Store,
  work: (tx: StoreTransaction) => Promise<T>,
): Promise<Outcome<T>> => retryingConflicts(() => unitOfWork(store, work));

/**
 * The unit of work of a use case that writes: the clock is read once, before it, so every record
 * it stamps (and every rerun after a conflict) carries the same `now`.
 */
export const clockedUnitOfWork = <T>(
  deps: Pick<EngineDeps, 'clock' | 'store'>,
  run: (tx: StoreTransaction, now: number) => Promise<T>,
): Promise<Outcome<T>> => {
  const now = deps.clock.now();
  return unitOfWorkRetryingConflicts(deps.store, (tx) => run(tx, now));
};

// ---------------------------------------------------------------------------------------------
// Effects

/** Where the events of one business object go. */
export interface EventRouting {
  readonly accountId: string;
  /** Payout events: the payout's notify_url. */
  readonly notifyUrl?: string;
  /** Acquiring events (an order's and its refunds'): the order's notify_webhook_id. */
  readonly webhookId?: string;
}

/** Timer name of an approved payout waiting for the executor: due at once, claimed once. */
export const payoutExecutionTimer = 'payout.execute';

const timerBusinessTypes: Readonly<Record<TimerName, string>> = {
  'order.expiry': 'acquiring',
  'refund.execute': 'acquiring_refund',
};

const timerIdOf = (name: string, businessId: string): string => `${name}:${businessId}`;

const destinationsOf = async (
  tx: StoreTransaction,
  event: DomainEvent,
  routing: EventRouting,
): Promise<readonly OutboxDestination[]> => {
  if (event.businessType === 'payout' && routing.notifyUrl !== undefined) {
    return [{ kind: 'notify_url', url: routing.notifyUrl }];
  }
  const acquiring = event.businessType === 'acquiring' || event.businessType === 'acquiring_refund';
  if (acquiring && routing.webhookId !== undefined) {
    const webhook = await tx.webhooks.get(routing.webhookId, routing.accountId);
    const subscribed =
      webhook?.status === 'active' &&
      webhook.events.some((pattern) => matchesEventPattern(pattern, event.eventType));
    return subscribed ? [{ kind: 'webhook', webhookId: routing.webhookId }] : [];
  }
  return [];
};

const commitEffects = async (
  tx: StoreTransaction,
  ids: IdGenerator,
  effects: readonly Effect[],
  routing: EventRouting,
  at: number,
): Promise<void> => {
  for (const effect of effects) {
    switch (effect.type) {
      case 'post':
        await tx.ledger.post(effect.journal, at);
        break;
      case 'emit': {
        const { event } = effect;
        const destinations = await destinationsOf(tx, event, routing);
        await tx.outbox.enqueue(
          destinations.map((destination) => ({
            outbox_id: ids.next('obx'),
            event_id: eventIdOf(event),
            account_id: routing.accountId,
            business_type: event.businessType,
            business_id: event.businessId,
            event_type: event.eventType,
            destination,
            payload: webhookBodyOf(event),
            available_at: event.occurredAt,
            created_at: at,
          })),
        );
        break;
      }
      case 'setTimer':
        await tx.timers.set({
          timer_id: timerIdOf(effect.timer, effect.businessId),
          name: effect.timer,
          business_type: timerBusinessTypes[effect.timer],
          business_id: effect.businessId,
          account_id: routing.accountId,
          due_at: effect.dueAt,
        });
        break;
      case 'clearTimer':
        await tx.timers.clear(timerIdOf(effect.timer, effect.businessId));
        break;
      case 'requestExecution':
        await tx.timers.set({
          timer_id: timerIdOf(payoutExecutionTimer, effect.payoutId),
          name: payoutExecutionTimer,
          business_type: 'payout',
          business_id: effect.payoutId,
          account_id: routing.accountId,
          due_at: at,
        });
        break;
    }
  }
};

/** A machine as the handler runs it: its start, its pure step, its refusal, and its notes. */
export interface MachineDecider<S, E, I> {
  readonly start: (input: I) => { readonly snapshot: S; readonly effects: readonly Effect[] };
  readonly decide: (
    snapshot: S,
    event: E,
  ) => { readonly snapshot: S; readonly effects: readonly Effect[]; readonly changed: boolean };
  /** The catalogue error for an event the machine does not accept; undefined when it does. */
  readonly refusalOf: (snapshot: S, event: E) => PayrailError | undefined;
  readonly noteStart: (
    tx: StoreTransaction,
    id: string,
    input: I,
    snapshot: S,
    parent?: ParentNote,
  ) => void;
  readonly note: (tx: StoreTransaction, id: string, before: S, event: E, after: S) => void;
}

/**
 * How a machine's starts and decisions are noted for inspectors and observers (only a watched
 * engine keeps them); `isFinal` names the states final for the interface that XState keeps open.
 */
const notesOf = <S extends InspectedSnapshot>(machine: InspectedMachine, isFinal?: FinalFor<S>) => {
  const final = isFinal === undefined ? {} : { isFinal };
  return {
    noteStart: (
      tx: StoreTransaction,
      id: string,
      input: InspectedInitEvent['input'],
      snapshot: S,
      parent?: ParentNote,
    ) => {
      noteStart(tx, {
        machine,
        id,
        input,
        snapshot,
        ...(parent === undefined ? {} : { parent }),
        ...final,
      });
      noteTransition(tx, machine.config.id, undefined, snapshot);
    },
    note: (
      tx: StoreTransaction,
      id: string,
      before: S,
      event: PayoutEvent | AcquiringOrderEvent | AcquiringRefundEvent | CryptoBatchEvent,
      after: S,
    ) => {
      noteDecision(tx, { machine, id, before, event, after, ...final });
      noteTransition(tx, machine.config.id, before, after);
    },
  };
};

export const payoutDecider: MachineDecider<PayoutSnapshot, PayoutEvent, PayoutInput> = {
  start: (input) => start(payoutMachine, input),
  decide: (snapshot, event) => decide(payoutMachine, snapshot, event),
  refusalOf: payoutRefusalOf,
  ...notesOf(payoutMachine, isFinalPayout),
};

export const orderDecider: MachineDecider<
  AcquiringOrderSnapshot,
  AcquiringOrderEvent,
  AcquiringOrderInput
> = {
  start: (input) => start(acquiringOrderMachine, input),
  decide: (snapshot, event) => decide(acquiringOrderMachine, snapshot, event),
  refusalOf: orderRefusalOf,
  ...notesOf(acquiringOrderMachine, isFinalOrder),
};

export const refundDecider: MachineDecider<
  AcquiringRefundSnapshot,
  AcquiringRefundEvent,
  AcquiringRefundInput
> = {
  start: (input) => start(acquiringRefundMachine, input),
  decide: (snapshot, event) => decide(acquiringRefundMachine, snapshot, event),
  refusalOf: refundRefusalOf,
  ...notesOf(acquiringRefundMachine),
};

export const batchDecider: MachineDecider<CryptoBatchSnapshot, CryptoBatchEvent, CryptoBatchInput> =
  {
    start: (input) => start(cryptoBatchMachine, input),
    decide: (snapshot, event) => decide(cryptoBatchMachine, snapshot, event),
    refusalOf: batchRefusalOf,
    ...notesOf(cryptoBatchMachine),
  };

/** An object as read (or last written) in the current unit of work. */
export interface Loaded<S> {
  readonly snapshot: S;
}

/**
 * One aggregate's persistence: how it is read, inserted and written over the version read, and
 * where its events go. `Extra` is what a new record holds beside the snapshot (a payout's route).
 */
export interface Repository<S, E, I, L extends Loaded<S>, Extra> {
  readonly decider: MachineDecider<S, E, I>;
  /** The business id (payout, order or batch id). */
  readonly idOf: (snapshot: S) => string;
  /** The object, or its `<x> not found` refusal (another merchant's included, with `scope`). */
  readonly load: (tx: StoreReads, id: string, scope?: string) => Promise<L>;
  readonly insert: (tx: StoreTransaction, snapshot: S, extra: Extra) => Promise<L>;
  /** Writes `next` over `loaded`'s version (a lost race is a store conflict). */
  readonly save: (tx: StoreTransaction, loaded: L, next: S) => Promise<L>;
  /** Where the decision's outbox events go. */
  readonly routing: (snapshot: S) => EventRouting;
  /**
   * The event the clock has made due at `now`, if any (an order past its expire_time expires):
   * `settle` decides it before a read answers or a report is applied, so neither waits on a timer.
   */
  readonly dueAt?: (snapshot: S, now: number) => E | undefined;
}

/**
 * Refuses, decides, notes, saves and commits one event on `loaded` in `tx`; gives the object as
 * stored after. An event the machine takes without changing anything (a duplicate, an early
 * timer) writes nothing and gives `loaded` back. `beforeSave` is work the decision brings before
 * the save (a submitted batch creates its payouts).
 */
export const commitDecision = async <S, E, I, L extends Loaded<S>, Extra>(
  tx: StoreTransaction,
  ids: IdGenerator,
  repository: Repository<S, E, I, L, Extra>,
  loaded: L,
  event: E,
  at: number,
  beforeSave?: (next: S) => Promise<void>,
): Promise<L> => {
  const { decider } = repository;
  const refusal = decider.refusalOf(loaded.snapshot, event);
  if (refusal !== undefined) refuse(refusal);
  const decision = decider.decide(loaded.snapshot, event);
  if (!decision.changed) return loaded;
  const id = repository.idOf(loaded.snapshot);
  decider.note(tx, id, loaded.snapshot, event, decision.snapshot);
  await beforeSave?.(decision.snapshot);
  const saved = await repository.save(tx, loaded, decision.snapshot);
  await commitEffects(tx, ids, decision.effects, repository.routing(decision.snapshot), at);
  return saved;
};

/**
 * The object as it stands at `now`: the event the clock has made due (`Repository.dueAt`) is
 * decided and committed first, with its effects, so nothing answers a state the object no longer
 * has because its timer has not fired yet.
 */
export const settle = <S, E, I, L extends Loaded<S>, Extra>(
  tx: StoreTransaction,
  ids: IdGenerator,
  repository: Repository<S, E, I, L, Extra>,
  loaded: L,
  now: number,
): Promise<L> => {
  const due = repository.dueAt?.(loaded.snapshot, now);
  return due === undefined
    ? Promise.resolve(loaded)
    : commitDecision(tx, ids, repository, loaded, due, now);
};

/** Starts a new object from `input` in `tx`: inserted, its first effects committed. */
export const create = async <S, E, I, L extends Loaded<S>, Extra>(
  tx: StoreTransaction,
  ids: IdGenerator,
  repository: Repository<S, E, I, L, Extra>,
  creation: {
    readonly input: I;
    readonly extra: Extra;
    readonly at: number;
    /** The crypto batch that creates a batch payout, for inspectors. */
    readonly parent?: ParentNote;
    /** Writes that belong with the new record, before its effects (an order's deposit address). */
    readonly afterInsert?: (inserted: L) => Promise<void>;
  },
): Promise<L> => {
  const { snapshot, effects } = repository.decider.start(creation.input);
  const id = repository.idOf(snapshot);
  repository.decider.noteStart(tx, id, creation.input, snapshot, creation.parent);
  const inserted = await repository.insert(tx, snapshot, creation.extra);
  await creation.afterInsert?.(inserted);
  await commitEffects(tx, ids, effects, repository.routing(snapshot), creation.at);
  return inserted;
};

/** What a use case gives the handler: which object, and the checks before it is read. */
export interface Target<G> {
  readonly id: string;
  /** The merchant account the object must belong to; none for an operator's or a worker's act. */
  readonly scope?: string;
  /** Checks made before the object is read (the caller's permissions and account). */
  readonly guard: (tx: StoreTransaction) => Promise<G>;
}

/** No check before the object is read: an operator's (checked at the door) or a worker's act. */
export const unguarded = async (): Promise<undefined> => undefined;

/** What `decide` sees: the unit of work, the object as read, the clock, and what the guard gave. */
export interface Step<L, G> {
  readonly tx: StoreTransaction;
  readonly loaded: L;
  readonly at: number;
  readonly guarded: G;
}

/**
 * What a command decided: the event for the machine, and, when the command also changes what
 * the machine does not keep (a payout's route), the object as it is to be saved. `undefined`:
 * the object already is what the command asks, and nothing is written.
 */
export type Decision<S, E, L> =
  | {
      readonly event: E;
      readonly onto?: L;
      /** Work the decision brings before the save (a submitted batch creates its payouts). */
      readonly beforeSave?: (next: S) => Promise<void>;
    }
  | undefined;

/**
 * One command on one object, as one unit of work under the conflict-retry policy: guard, load,
 * `decide`, commit. Gives the object as it stands after, or the first refusal.
 */
export const handle = <S, E, I, L extends Loaded<S>, Extra, G>(
  deps: Pick<EngineDeps, 'store' | 'ids' | 'clock'>,
  repository: Repository<S, E, I, L, Extra>,
  target: Target<G>,
  decide: (step: Step<L, G>) => Promise<Decision<S, E, L>> | Decision<S, E, L>,
): Promise<Outcome<L>> => {
  const at = deps.clock.now();
  return retryingConflicts(() =>
    unitOfWork(deps.store, async (tx) => {
      const guarded = await target.guard(tx);
      const loaded = await repository.load(tx, target.id, target.scope);
      const decision = await decide({ tx, loaded, at, guarded });
      if (decision === undefined) return loaded;
      const onto = decision.onto ?? loaded;
      const { event, beforeSave } = decision;
      return commitDecision(tx, deps.ids, repository, onto, event, at, beforeSave);
    }),
  );
};
