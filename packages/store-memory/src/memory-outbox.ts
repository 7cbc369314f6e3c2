/**
 * The transactional outbox in memory. A business object's messages to one destination leave in
 * order: only the oldest pending one is ever claimable, and only once it is due and unleased.
 */
import {
  type ClaimOptions,
  inWorkBuckets,
  type NewOutboxMessage,
  type OutboxMessage,
  type OutboxPort,
  outboxDestinationKey,
} from '@payrail/core';
import {
  claimableAt,
  earliest,
  isLeaseActive,
  leaseClaimed,
  type MemoryState,
  type StoredOutboxMessage,
} from './memory-state.js';
import type { UndoLog } from './undo-log.js';

const dedupeKey = (message: NewOutboxMessage): string =>
  JSON.stringify([message.event_id, outboxDestinationKey(message.destination)]);

const queueKey = (message: OutboxMessage): string =>
  JSON.stringify([
    outboxDestinationKey(message.destination),
    message.business_type,
    message.business_id,
  ]);

const oldestFirst = (a: StoredOutboxMessage, b: StoredOutboxMessage): number =>
  a.message.created_at - b.message.created_at || a.seq - b.seq;

/** The oldest pending message of each queue: the only ones a claim may hand out. */
const headsOf = (state: MemoryState): StoredOutboxMessage[] => {
  const heads = new Map<string, StoredOutboxMessage>();
  const pending = [...state.outbox.values()]
    .filter((stored) => stored.message.status === 'pending')
    .sort(oldestFirst);
  for (const stored of pending) {
    const key = queueKey(stored.message);
    if (!heads.has(key)) heads.set(key, stored);
  }
  return [...heads.values()];
};

/** The outbox's maps as a unit of work reaches them. */
interface OutboxAccess {
  readonly state: MemoryState;
  readonly undo: UndoLog;
}

const enqueue = ({ state, undo }: OutboxAccess, messages: readonly NewOutboxMessage[]): void => {
  for (const input of messages) {
    const key = dedupeKey(input);
    if (state.outboxKeys.has(key)) continue;
    const message: OutboxMessage = {
      ...structuredClone(input),
      status: 'pending',
      attempts: 0,
    };
    undo.set(state.outbox, message.outbox_id, {
      message,
      seq: state.nextOutboxSeq++,
      lease: null,
    });
    undo.set(state.outboxKeys, key, message.outbox_id);
  }
};

const claim = (
  { state, undo }: OutboxAccess,
  { worker, now, limit, leaseSeconds, buckets }: ClaimOptions,
): OutboxMessage[] => {
  // A queue is one business object's, so one account's: all of it is in one bucket.
  const claimed = headsOf(state)
    .filter(
      (s) =>
        s.message.available_at <= now &&
        !isLeaseActive(s.lease, now) &&
        inWorkBuckets(s.message.account_id, buckets),
    )
    .slice(0, Math.max(0, limit));
  const lease = { worker, until: now + leaseSeconds };
  return leaseClaimed(undo, state.outbox, claimed, lease, (s) => ({
    key: s.message.outbox_id,
    value: s.message,
  }));
};

/** Ends the worker's claim with `change`; false when the worker does not hold the claim. */
const settle = (
  { state, undo }: OutboxAccess,
  outboxId: string,
  worker: string,
  change: (message: OutboxMessage) => OutboxMessage,
): boolean => {
  const stored = state.outbox.get(outboxId);
  if (stored === undefined || stored.message.status !== 'pending') return false;
  if (stored.lease?.worker !== worker) return false;
  undo.set(state.outbox, outboxId, {
    ...stored,
    lease: null,
    message: change({ ...stored.message, attempts: stored.message.attempts + 1 }),
  });
  return true;
};

export const memoryOutbox = (
  state: MemoryState,
  undo: UndoLog,
  guard: () => void,
  /** Tells the unit of work that it enqueued (so the store tells `onWork` listeners). */
  noteWork: () => void,
): OutboxPort => {
  const access: OutboxAccess = { state, undo };
  return {
    async enqueue(messages: readonly NewOutboxMessage[]): Promise<void> {
      guard();
      if (messages.length > 0) noteWork();
      enqueue(access, messages);
    },
    async claim(options: ClaimOptions): Promise<readonly OutboxMessage[]> {
      guard();
      return claim(access, options);
    },
    async complete(outboxId: string, worker: string): Promise<boolean> {
      guard();
      return settle(access, outboxId, worker, (message) => ({ ...message, status: 'delivered' }));
    },
    async retry(outboxId: string, worker: string, availableAt: number): Promise<boolean> {
      guard();
      return settle(access, outboxId, worker, (message) => ({
        ...message,
        available_at: availableAt,
      }));
    },
    async fail(outboxId: string, worker: string): Promise<boolean> {
      guard();
      return settle(access, outboxId, worker, (message) => ({ ...message, status: 'failed' }));
    },
    async get(outboxId: string): Promise<OutboxMessage | undefined> {
      guard();
      const stored = state.outbox.get(outboxId);
      return stored === undefined ? undefined : structuredClone(stored.message);
    },
    async nextAvailableAt(): Promise<number | undefined> {
      guard();
      return earliest(headsOf(state).map((s) => claimableAt(s.message.available_at, s.lease)));
    },
  };
};
