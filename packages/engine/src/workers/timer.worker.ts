/**
 * Fires due durable timers. Each timer is claimed (so several processes share the work and each
 * timer fires once), then handled in its own unit of work together with its removal; a handler
 * that fails leaves the timer to be claimed again when the lease lapses.
 */
import type { ClockView, StoreTransaction, TimerRecord } from '@payrail/core';
import { decodeSandboxClockAdvance, payrailError, sandboxClockMaxOffset } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { type Outcome, unitOfWork } from '../command/command.handler.js';
import { type EngineDeps, isAdjustableClock } from '../engine.deps.js';
import { tellTimerFired, withinUseCase } from '../engine.observer.js';

/** Handles one due timer inside the unit of work that completes it. */
export type TimerHandler = (tx: StoreTransaction, timer: TimerRecord, now: number) => Promise<void>;

export type TimerHandlers = Readonly<Record<string, TimerHandler>>;

/** How long a claimed timer stays with its worker before another may take it. */
const timerLeaseSeconds = 60;
const batchSize = 100;

export const timerWorker = (deps: EngineDeps, handlers: TimerHandlers) => {
  const runDueTimers = async (worker: string): Promise<number> => {
    let fired = 0;
    for (;;) {
      const now = deps.clock.now();
      const due = await withinUseCase('timer.claim', () =>
        deps.store.transaction((tx) =>
          tx.timers.claimDue({ worker, now, limit: batchSize, leaseSeconds: timerLeaseSeconds }),
        ),
      );
      for (const timer of due) {
        const handler = handlers[timer.name];
        await withinUseCase(`timer.${timer.name}`, () =>
          deps.store.transaction(async (tx) => {
            if (handler) await handler(tx, timer, now);
            await tx.timers.complete(timer.timer_id, worker);
          }),
        );
        tellTimerFired(deps.observer, timer, now);
        fired += 1;
      }
      if (due.length < batchSize) return fired;
    }
  };

  /** How far `advanceClock` has moved the clock in all (ADR 0033 bounds it). */
  let advanced = 0;

  /**
   * Sandbox only: moves the test clock and fires what became due (docs/spec/decisions.md §8). One advance is
   * at most 30 days (the codec), and all of them together at most `sandboxClockMaxOffset`: a
   * larger one answers the same message with what is left.
   */
  const advanceClock = async (body: unknown): Promise<Outcome<{ readonly clock: ClockView }>> => {
    const clock = deps.clock;
    if (deps.settings.environment !== 'sandbox' || !isAdjustableClock(clock)) {
      return E.left(payrailError('forbidden'));
    }
    const request = decodeSandboxClockAdvance(body);
    if (E.isLeft(request)) return request;
    const { seconds } = request.right;
    const left = sandboxClockMaxOffset - advanced;
    if (seconds > left) {
      return E.left(payrailError('clock_advance_out_of_range', { max: String(left) }));
    }
    advanced += seconds;
    clock.advance(seconds);
    await runDueTimers('sandbox-clock');
    await deps.afterClockAdvance?.();
    return unitOfWork(deps.store, async () => ({ clock: { now: clock.now() } }));
  };

  return { runDueTimers, advanceClock };
};
