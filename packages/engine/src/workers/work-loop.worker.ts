/**
 * The one way payrail's background loops (the timer loop, the webhook dispatcher) wait for work
 * (ADR 0030): after a pass they ask the store when the next thing becomes due and sleep until
 * then, or until the store tells of new committed work (`Store.onWork`), whichever comes first,
 * and never longer than a safety-net cap (a notification lost with a connection). Idle, a loop
 * makes no query at all. Passes never overlap: the next is scheduled when one has finished.
 */
import type { Clock } from '@payrail/core';

/** Where a loop's sleeps come from; tests pass a fake one and move it by hand. */
export interface LoopScheduler {
  /** Calls `run` after `ms` milliseconds; answers a handle for `cancel`. */
  schedule(run: () => void, ms: number): unknown;
  cancel(handle: unknown): void;
  /** Wall milliseconds: where the clock's next second begins. */
  nowMs(): number;
}

const timeoutScheduler: LoopScheduler = {
  schedule: (run, ms) => setTimeout(run, ms),
  cancel: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  nowMs: () => Date.now(),
};

export interface WorkLoopOptions {
  /**
   * One pass over the due work; a number answers how much it did (0: nothing), which keeps a
   * store that says "due now" while a concurrent claimer holds the work from spinning the loop.
   */
  readonly run: () => Promise<unknown>;
  /**
   * The earliest Unix second (of `clock`) at which `run` has something to do; `undefined` when
   * nothing is scheduled. Without it the loop runs every `maxSleepMs` (and on every wake).
   */
  readonly nextDueAt?: () => Promise<number | undefined>;
  /** The clock `nextDueAt` answers in; needed with it. */
  readonly clock?: Clock;
  /** Subscribes to new work (`Store.onWork`); answers the unsubscribe. */
  readonly onWork?: (listener: () => void) => () => void;
  /** The longest sleep: the safety net for a lost notification. */
  readonly maxSleepMs: number;
  /** The pause after a failed pass (or a due time that yielded nothing); capped by `maxSleepMs`. */
  readonly retryMs: number;
  /** After a pass (and the planning of the next) that succeeded. */
  readonly succeeded?: () => void;
  /** After a pass (or the planning of the next) that failed; the loop goes on after `retryMs`. */
  readonly failed?: (error: unknown) => void;
  readonly scheduler?: LoopScheduler;
}

export interface WorkLoop {
  /** Plans again now (runs at once when something is due): after the test clock moved. */
  wake(): void;
  /** Resolves once the pass in progress (if any) has finished; no pass starts after. */
  stop(): Promise<void>;
}

/** The milliseconds until `clock` reads `second`, assuming it turns with the wall clock. */
const msUntil = (second: number, clock: Clock, scheduler: LoopScheduler): number => {
  // The wall clock first: a second turning between the two readings makes the wait shorter.
  const nowMs = scheduler.nowMs();
  const whole = second - clock.now();
  if (whole <= 0) return 0;
  // The clock's seconds turn when the wall clock's do (both floor Date.now()); a little after.
  return (whole - 1) * 1000 + (1000 - (nowMs % 1000)) + 5;
};

interface Plan {
  readonly delayMs: number;
  /** Run a pass when the delay ends; false: only plan again (a wake while sleeping). */
  readonly run: boolean;
}

export const startWorkLoop = (options: WorkLoopOptions): WorkLoop => {
  const scheduler = options.scheduler ?? timeoutScheduler;
  const { nextDueAt, clock, maxSleepMs } = options;
  const retryMs = Math.min(options.retryMs, maxSleepMs);
  if (nextDueAt !== undefined && clock === undefined) {
    throw new TypeError('startWorkLoop: nextDueAt needs the clock it answers in');
  }
  let stopped = false;
  let woken = false;
  let handle: unknown;
  let running: Promise<void> = Promise.resolve();

  /** How long to sleep before the next pass, given whether the last pass did anything. */
  const sleepAfter = async (didNothing: boolean): Promise<number> => {
    if (nextDueAt === undefined || clock === undefined) return maxSleepMs;
    const next = await nextDueAt();
    if (next === undefined) return maxSleepMs;
    const delay = msUntil(next, clock, scheduler);
    // Due now, yet the pass found nothing: another worker holds it; its lease will tell.
    if (delay === 0) return didNothing ? retryMs : 0;
    return Math.min(maxSleepMs, delay);
  };

  const pass = async (runFirst: boolean): Promise<number> => {
    try {
      let delay: number;
      if (runFirst) {
        delay = await sleepAfter((await options.run()) === 0);
      } else {
        delay = await sleepAfter(false);
        if (delay === 0) delay = await sleepAfter((await options.run()) === 0);
      }
      options.succeeded?.();
      return delay;
    } catch (error) {
      options.failed?.(error);
      return retryMs;
    }
  };

  const schedule = (plan: Plan): void => {
    handle = scheduler.schedule(() => cycle(plan.run), plan.delayMs);
  };

  const cycle = (runFirst: boolean): void => {
    handle = undefined;
    woken = false;
    running = pass(runFirst).then((delayMs) => {
      if (stopped) return;
      // Work told of during the pass may have committed after the pass looked.
      schedule(woken ? { delayMs: 0, run: nextDueAt === undefined } : { delayMs, run: true });
    });
  };

  const unsubscribe = options.onWork?.(() => wake());

  const wake = (): void => {
    if (stopped) return;
    woken = true;
    // Sleeping: plan again now. Running: the pass's end sees `woken`.
    if (handle !== undefined) {
      scheduler.cancel(handle);
      schedule({ delayMs: 0, run: nextDueAt === undefined });
    }
  };

  // At once: what fell due while nothing ran goes out on start.
  cycle(true);

  return {
    wake,
    stop: async () => {
      stopped = true;
      unsubscribe?.();
      if (handle !== undefined) scheduler.cancel(handle);
      handle = undefined;
      await running;
    },
  };
};
