/**
 * Everything the memory store holds, as plain maps. The store's ports and its oracle both read
 * these; only the ports write them, and always through an `UndoLog`.
 */
import {
  type CollectionName,
  collectionSpecs,
  type Decimal,
  type Environment,
  type IdempotencyRecord,
  type Journal,
  type LooseCollectionSpec,
  type OutboxMessage,
  type RecordMeta,
  type TimerRecord,
} from '@payrail/core';
import type { UndoLog } from './undo-log.js';

export type StoredRecord = RecordMeta & { readonly [field: string]: unknown };

export interface CollectionState {
  /** By `String(id)`. */
  readonly rows: Map<string, StoredRecord>;
  /** One index per unique key of the spec, in spec order: encoded key values -> `String(id)`. */
  readonly uniques: readonly Map<string, string>[];
}

export interface Lease {
  readonly worker: string;
  /** The claim is active while `now < until`. */
  readonly until: number;
}

export interface StoredJournal {
  readonly journal: Journal;
  readonly at: number;
  /** Posting order, the tie-break after `created_at`. Like a database sequence it never rolls back. */
  readonly sequence: number;
}

export interface StoredOutboxMessage {
  readonly message: OutboxMessage;
  /** Enqueue order, the tie-break after `created_at`. Like a database sequence it never rolls back. */
  readonly seq: number;
  readonly lease: Lease | null;
}

export interface StoredTimer {
  readonly timer: TimerRecord;
  readonly lease: Lease | null;
}

export interface MemoryState {
  /** Every collection's records; read and made through `collectionStateOf`. */
  readonly collections: Map<CollectionName, CollectionState>;
  readonly journals: Map<string, StoredJournal>;
  /** By `balanceKey(ledgerAccount, currency)`. */
  readonly balances: Map<string, Decimal>;
  readonly outbox: Map<string, StoredOutboxMessage>;
  /** `dedupeKey(event_id, destination)` -> outbox_id. */
  readonly outboxKeys: Map<string, string>;
  readonly timers: Map<string, StoredTimer>;
  /** By `JSON.stringify([scope, key])`. */
  readonly idempotency: Map<string, IdempotencyRecord>;
  /** The next outbox `seq`; not undone by an abort, so an aborted unit of work leaves a gap. */
  nextOutboxSeq: number;
  /** The next journal `sequence`; not undone by an abort either. */
  nextJournalSequence: number;
  /** What the first `claimEnvironment` recorded (ADR 0035). */
  environment: Environment | undefined;
}

const isCollectionName = (name: string): name is CollectionName =>
  Object.hasOwn(collectionSpecs, name);

export const collectionNames: readonly CollectionName[] =
  Object.keys(collectionSpecs).filter(isCollectionName);

const emptyCollection = (name: CollectionName): CollectionState => {
  const spec: LooseCollectionSpec = collectionSpecs[name];
  return { rows: new Map(), uniques: spec.unique.map(() => new Map<string, string>()) };
};

/** A collection's records and unique indexes (made empty for a collection not seen yet). */
export const collectionStateOf = (state: MemoryState, name: CollectionName): CollectionState => {
  const found = state.collections.get(name);
  if (found !== undefined) return found;
  const made = emptyCollection(name);
  state.collections.set(name, made);
  return made;
};

export const createMemoryState = (): MemoryState => ({
  collections: new Map(collectionNames.map((name) => [name, emptyCollection(name)])),
  journals: new Map(),
  balances: new Map(),
  outbox: new Map(),
  outboxKeys: new Map(),
  timers: new Map(),
  idempotency: new Map(),
  nextOutboxSeq: 1,
  nextJournalSequence: 1,
  environment: undefined,
});

export const balanceKey = (ledgerAccount: string, currency: string): string =>
  `${ledgerAccount}\u0000${currency}`;

/** Binary order for strings (as PostgreSQL's `COLLATE "C"` for ASCII), numeric for numbers. */
export const compareIds = (a: unknown, b: unknown): number => {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** The smallest of `times`, or `undefined` when there is none. */
export const earliest = (times: readonly number[]): number | undefined =>
  times.reduce<number | undefined>((min, t) => (min === undefined || t < min ? t : min), undefined);

export const isLeaseActive = (lease: Lease | null, now: number): boolean =>
  lease !== null && now < lease.until;

/** When an entry due at `due` can next be claimed: once it is due and its lease has lapsed. */
export const claimableAt = (due: number, lease: Lease | null): number =>
  Math.max(due, lease?.until ?? -Infinity);

/**
 * Leases every claimed entry of `map` (the outbox's or the timers') with `lease`, undoably, and
 * answers copies of what they hold: a claim never hands out the stored objects themselves.
 */
export const leaseClaimed = <S extends { readonly lease: Lease | null }, T>(
  undo: UndoLog,
  map: Map<string, S>,
  claimed: readonly S[],
  lease: Lease,
  entryOf: (stored: S) => { readonly key: string; readonly value: T },
): T[] =>
  claimed.map((stored) => {
    const { key, value } = entryOf(stored);
    undo.set(map, key, { ...stored, lease });
    return structuredClone(value);
  });
