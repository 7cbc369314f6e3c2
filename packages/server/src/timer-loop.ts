/**
 * The background loop: fires due timers (order expiry, payout execution hand-off). It sleeps
 * until the next timer is due (`nextDueAt`) or until the store tells of new work (`onWork`),
 * and at most `intervalMs`, the safety net (ADR 0030); without `nextDueAt` it runs every
 * `intervalMs`. A run never overlaps the previous one: the next is scheduled when one finishes.
 * Failures are logged by message only, retried every `retryMs`, and a repeated failure is
 * logged once a minute, so a database outage does not flood the log.
 */
import type { Clock } from '@payrail/core';
import { type LoopScheduler, startWorkLoop } from '@payrail/engine';

export interface TimerLoopOptions {
  /** One pass over the due work; answers how many timers fired. */
  readonly run: () => Promise<unknown>;
  /** The longest sleep (the safety net for a lost notification), or the interval without `nextDueAt`. */
  readonly intervalMs: number;
  /** The earliest Unix second (of `clock`) a timer becomes due; `undefined` when none. */
  readonly nextDueAt?: () => Promise<number | undefined>;
  readonly clock?: Clock;
  /** `Store.onWork`: a committed unit of work set a timer. */
  readonly onWork?: (listener: () => void) => () => void;
  /** The pause after a failed run; default 1000 ms. */
  readonly retryMs?: number;
  /** A line for the operator; never given a stack or a request body. */
  readonly log: (line: string) => void;
  /** Milliseconds; tests move it. */
  readonly now?: () => number;
  /** How often one repeated failure is logged again. */
  readonly repeatLogMs?: number;
  /** Tests drive the sleeps by hand. */
  readonly scheduler?: LoopScheduler;
}

export interface TimerLoop {
  /** Plans again now: after the sandbox's test clock moved. */
  wake(): void;
  /** Resolves once the run in progress (if any) has finished; no run starts after. */
  stop(): Promise<void>;
}

/** `Error: message`, never a stack: enough to act on, nothing a log reader should not see. */
export const errorSummary = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

export const startTimerLoop = (options: TimerLoopOptions): TimerLoop => {
  const now = options.now ?? Date.now;
  const repeatLogMs = options.repeatLogMs ?? 60_000;
  let lastFailure: { summary: string; at: number; repeats: number } | undefined;

  const failed = (error: unknown): void => {
    const summary = errorSummary(error);
    const at = now();
    if (
      lastFailure === undefined ||
      lastFailure.summary !== summary ||
      at - lastFailure.at >= repeatLogMs
    ) {
      const repeats =
        lastFailure !== undefined && lastFailure.repeats > 0
          ? ` (${lastFailure.repeats} more failures since the last report)`
          : '';
      options.log(`timer loop failed: ${summary}${repeats}`);
      lastFailure = { summary, at, repeats: 0 };
    } else {
      lastFailure.repeats += 1;
    }
  };

  return startWorkLoop({
    run: options.run,
    maxSleepMs: options.intervalMs,
    retryMs: options.retryMs ?? 1000,
    ...(options.nextDueAt === undefined ? {} : { nextDueAt: options.nextDueAt }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.onWork === undefined ? {} : { onWork: options.onWork }),
    ...(options.scheduler === undefined ? {} : { scheduler: options.scheduler }),
    succeeded: () => {
      if (lastFailure !== undefined) {
        options.log('timer loop recovered');
        lastFailure = undefined;
      }
    },
    failed,
  });
};
