/** Durable timers in memory: one per id, claimed with a lease so a crashed worker's claims lapse. */
import { type ClaimOptions, inWorkBuckets, type TimerPort, type TimerRecord } from '@payrail/core';
import {
  claimableAt,
  compareIds,
  earliest,
  isLeaseActive,
  leaseClaimed,
  type MemoryState,
} from './memory-state.js';
import type { UndoLog } from './undo-log.js';

/** The due, unleased timers, soonest first (then by id), leased to the worker. */
const claimDue = (
  state: MemoryState,
  undo: UndoLog,
  { worker, now, limit, leaseSeconds, buckets }: ClaimOptions,
): TimerRecord[] => {
  const claimed = [...state.timers.values()]
    .filter(
      (stored) =>
        stored.timer.due_at <= now &&
        !isLeaseActive(stored.lease, now) &&
        inWorkBuckets(stored.timer.account_id, buckets),
    )
    .sort(
      (a, b) => a.timer.due_at - b.timer.due_at || compareIds(a.timer.timer_id, b.timer.timer_id),
    )
    .slice(0, Math.max(0, limit));
  return leaseClaimed(undo, state.timers, claimed, { worker, until: now + leaseSeconds }, (s) => ({
    key: s.timer.timer_id,
    value: s.timer,
  }));
};

export const memoryTimers = (
  state: MemoryState,
  undo: UndoLog,
  guard: () => void,
  /** Tells the unit of work that it set a timer (so the store tells `onWork` listeners). */
  noteWork: () => void,
): TimerPort => ({
  async set(timer: TimerRecord): Promise<void> {
    guard();
    noteWork();
    const stored = state.timers.get(timer.timer_id);
    const keepsClaim = stored !== undefined && stored.timer.due_at === timer.due_at;
    undo.set(state.timers, timer.timer_id, {
      timer: structuredClone(timer),
      lease: keepsClaim ? stored.lease : null,
    });
  },

  async clear(timerId: string): Promise<void> {
    guard();
    undo.delete(state.timers, timerId);
  },

  async claimDue(options: ClaimOptions): Promise<readonly TimerRecord[]> {
    guard();
    return claimDue(state, undo, options);
  },

  async complete(timerId: string, worker: string): Promise<boolean> {
    guard();
    const stored = state.timers.get(timerId);
    if (stored?.lease?.worker !== worker) return false;
    undo.delete(state.timers, timerId);
    return true;
  },

  async get(timerId: string): Promise<TimerRecord | undefined> {
    guard();
    const stored = state.timers.get(timerId);
    return stored === undefined ? undefined : structuredClone(stored.timer);
  },

  async nextDueAt(): Promise<number | undefined> {
    guard();
    return earliest([...state.timers.values()].map((s) => claimableAt(s.timer.due_at, s.lease)));
  },
});
