/**
 * The one decide-and-commit path of the engine (ADR 0025), shaped after emmett's command
 * handler: the use case loads the object in its unit of work; here the machine's refusal answers
 * an event it does not accept, the pure `decide` gives the next snapshot and its effects as data,
 * the decision is noted for inspectors, the snapshot is written over the version read (a lost
 * race is a store conflict, which the unit of work's conflict-retry policy runs again on fresh
 * reads), and the effects are committed in the same unit of work.
 */
import {
  type AcquiringOrderEvent,
  type AcquiringOrderSnapshot,
  acquiringOrderMachine,
  batchRefusalOf,
  type CryptoBatchEvent,
  type CryptoBatchSnapshot,
  cryptoBatchMachine,
  decide,
  type Effect,
  type IdGenerator,
  orderRefusalOf,
  type PayoutEvent,
  type PayoutSnapshot,
  type PayrailError,
  payoutMachine,
  payoutRefusalOf,
  type StoreTransaction,
} from '@payrail/core';
import { commitEffects, type EventRouting } from './commit-effects.js';
import { noteDecision } from './inspection.js';
import { refuse } from './unit-of-work.js';

/** What the path needs of a machine: its pure step, its refusal, and how to note a decision. */
export interface MachineDecider<S, E> {
  readonly decide: (
    snapshot: S,
    event: E,
  ) => { readonly snapshot: S; readonly effects: readonly Effect[]; readonly changed: boolean };
  /** The catalogue error for an event the machine does not accept; undefined when it does. */
  readonly refusalOf: (snapshot: S, event: E) => PayrailError | undefined;
  readonly note: (tx: StoreTransaction, id: string, before: S, event: E, after: S) => void;
}

export const payoutDecider: MachineDecider<PayoutSnapshot, PayoutEvent> = {
  decide: (snapshot, event) => decide(payoutMachine, snapshot, event),
  refusalOf: payoutRefusalOf,
  note: (tx, id, before, event, after) =>
    noteDecision(tx, { machine: payoutMachine, id, before, event, after }),
};

export const orderDecider: MachineDecider<AcquiringOrderSnapshot, AcquiringOrderEvent> = {
  decide: (snapshot, event) => decide(acquiringOrderMachine, snapshot, event),
  refusalOf: orderRefusalOf,
  note: (tx, id, before, event, after) =>
    noteDecision(tx, { machine: acquiringOrderMachine, id, before, event, after }),
};

export const batchDecider: MachineDecider<CryptoBatchSnapshot, CryptoBatchEvent> = {
  decide: (snapshot, event) => decide(cryptoBatchMachine, snapshot, event),
  refusalOf: batchRefusalOf,
  note: (tx, id, before, event, after) =>
    noteDecision(tx, { machine: cryptoBatchMachine, id, before, event, after }),
};

/** One event for one loaded object, and how its decision is kept. */
export interface Command<S, E, Saved> {
  /** The business id (payout, order or batch id). */
  readonly id: string;
  /** The snapshot as read in this unit of work. */
  readonly snapshot: S;
  readonly event: E;
  /** The engine's clock when the use case started (effects are stamped with it). */
  readonly at: number;
  /** Writes the next snapshot over the version read (optimistic concurrency). */
  readonly save: (next: S) => Promise<Saved>;
  /** Where the decision's outbox events go. */
  readonly routing: (next: S) => EventRouting;
  /** Work the decision brings before the save (a submitted batch creates its payouts). */
  readonly beforeSave?: (next: S) => Promise<void>;
}

export interface Committed<S, Saved> {
  readonly snapshot: S;
  readonly saved: Saved;
}

/**
 * Refuses, decides, notes, saves and commits one event. An event the machine takes without
 * changing anything (a duplicate, an early timer) writes nothing: `undefined`.
 */
export const decideAndCommit = async <S, E, Saved>(
  tx: StoreTransaction,
  ids: IdGenerator,
  decider: MachineDecider<S, E>,
  command: Command<S, E, Saved>,
): Promise<Committed<S, Saved> | undefined> => {
  const refusal = decider.refusalOf(command.snapshot, command.event);
  if (refusal !== undefined) refuse(refusal);
  const decision = decider.decide(command.snapshot, command.event);
  if (!decision.changed) return undefined;
  decider.note(tx, command.id, command.snapshot, command.event, decision.snapshot);
  await command.beforeSave?.(decision.snapshot);
  const saved = await command.save(decision.snapshot);
  await commitEffects(tx, ids, decision.effects, command.routing(decision.snapshot), command.at);
  return { snapshot: decision.snapshot, saved };
};
