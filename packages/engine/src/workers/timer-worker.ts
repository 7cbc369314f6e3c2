/**
 * Fires due durable timers. Each timer is claimed (so several processes share the work and each
 * timer fires once), then handled in its own unit of work together with its removal; a handler
 * that fails leaves the timer to be claimed again when the lease lapses.
 */
import type { StoreTransaction, TimerRecord } from '@payrail/core';
import { payrailError } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { type EngineDeps, isAdjustableClock } from '../engine-deps.js';
import { type Outcome, unitOfWork } from '../unit-of-work.js';

/** Handles one due timer inside the unit of work that completes it. */
export type TimerHandler = (tx: StoreTransaction, timer: TimerRecord, now: number) => Promise<void>;

export type TimerHandlers = Readonly<Record<string, TimerHandler>>;

/** `data.clock` of a sandbox clock move: the test clock's time after it, Unix seconds. */
export interface ClockView {
  readonly now: number;
}

/** How long a claimed timer stays with its worker before another may take it. */
export const timerLeaseSeconds = 60;
const batchSize = 100;

export const timerWorker = (deps: EngineDeps, handlers: TimerHandlers) => {
  const runDueTimers = async (worker: string): Promise<number> => {
    let fired = 0;
    for (;;) {
      const now = deps.clock.now();
      const due = await deps.store.transaction((tx) =>
        tx.timers.claimDue({ worker, now, limit: batchSize, leaseSeconds: timerLeaseSeconds }),
      );
      for (const timer of due) {
        const handler = handlers[timer.name];
        await deps.store.transaction(async (tx) => {
          if (handler) await handler(tx, timer, now);
          await tx.timers.complete(timer.timer_id, worker);
        });
        fired += 1;
      }
      if (due.length < batchSize) return fired;
    }
  };

  /** Sandbox only: moves the test clock and fires what became due (decisions §8). */
  const advanceClock = async (body: unknown): Promise<Outcome<{ readonly clock: ClockView }>> => {
    const clock = deps.clock;
    if (deps.settings.environment !== 'sandbox' || !isAdjustableClock(clock)) {
      return E.left(payrailError('forbidden'));
    }
    const seconds = (body as { seconds?: unknown } | undefined)?.seconds;
    if (typeof body !== 'object' || body === null) return E.left(payrailError('request_required'));
    if (seconds === undefined || seconds === null) {
      return E.left(payrailError('field_required', { field: 'seconds' }));
    }
    if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds) || seconds < 0) {
      return E.left(payrailError('validation_failed'));
    }
    clock.advance(seconds);
    await runDueTimers('sandbox-clock');
    await deps.afterClockAdvance?.();
    return unitOfWork(deps.store, async () => ({ clock: { now: clock.now() } }));
  };

  return { runDueTimers, advanceClock };
};
