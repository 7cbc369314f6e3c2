/**
 * A `LoopScheduler` whose sleeps pass only when told to: for tests of anything driven by
 * `startWorkLoop` (the timer loop, the webhook dispatcher, a host's own loop), so they can show
 * what happens in 30 s of idleness without waiting 30 s. Promises settle between wake-ups.
 */
import type { LoopScheduler } from './work-loop.worker.js';

export interface ManualLoopScheduler {
  readonly scheduler: LoopScheduler;
  /** The scheduler's wall time, in milliseconds from 0. */
  readonly nowMs: number;
  /** Lets pending promise callbacks run. */
  settle(): Promise<void>;
  /** Milliseconds until the earliest sleep ends; `undefined` when nothing sleeps. */
  nextWakeIn(): number | undefined;
  /** Moves time by `ms`, ending each sleep on the way in order. */
  advance(ms: number): Promise<void>;
}

export const manualLoopScheduler = (): ManualLoopScheduler => {
  let nowMs = 0;
  let seq = 0;
  const pending = new Map<number, { at: number; run: () => void }>();
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    scheduler: {
      schedule: (run, ms) => {
        seq += 1;
        pending.set(seq, { at: nowMs + ms, run });
        return seq;
      },
      cancel: (handle) => {
        pending.delete(handle as number);
      },
      nowMs: () => nowMs,
    },
    get nowMs() {
      return nowMs;
    },
    settle,
    nextWakeIn: () => {
      const ats = [...pending.values()].map((p) => p.at - nowMs);
      return ats.length === 0 ? undefined : Math.min(...ats);
    },
    async advance(ms) {
      const end = nowMs + ms;
      await settle();
      for (;;) {
        const [id, next] = [...pending.entries()].sort((a, b) => a[1].at - b[1].at)[0] ?? [];
        if (id === undefined || next === undefined || next.at > end) break;
        pending.delete(id);
        nowMs = Math.max(nowMs, next.at);
        next.run();
        await settle();
      }
      nowMs = end;
    },
  };
};
