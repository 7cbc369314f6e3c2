/**
 * The background loop: fires due timers (order expiry, payout execution hand-off) every
 * interval. A run never overlaps the previous one: the next is scheduled when one finishes.
 * Failures are logged by message only, and a failure repeated every second is logged once a
 * minute, so a database outage does not flood the log.
 */

export interface TimerLoopOptions {
  /** One pass over the due work. */
  readonly run: () => Promise<unknown>;
  readonly intervalMs: number;
  /** A line for the operator; never given a stack or a request body. */
  readonly log: (line: string) => void;
  /** Milliseconds; tests move it. */
  readonly now?: () => number;
  /** How often one repeated failure is logged again. */
  readonly repeatLogMs?: number;
}

export interface TimerLoop {
  /** Resolves once the run in progress (if any) has finished; no run starts after. */
  stop(): Promise<void>;
}

/** `Error: message`, never a stack: enough to act on, nothing a log reader should not see. */
export const errorSummary = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

export const startTimerLoop = (options: TimerLoopOptions): TimerLoop => {
  const now = options.now ?? Date.now;
  const repeatLogMs = options.repeatLogMs ?? 60_000;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  let lastFailure: { summary: string; at: number; repeats: number } | undefined;

  const runOnce = async (): Promise<void> => {
    try {
      await options.run();
      if (lastFailure !== undefined) {
        options.log('timer loop recovered');
        lastFailure = undefined;
      }
    } catch (error) {
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
    }
  };

  const tick = (): void => {
    timer = undefined;
    running = runOnce().then(() => {
      if (!stopped) timer = setTimeout(tick, options.intervalMs);
    });
  };

  // At once: timers that fell due while the server was stopped fire on start.
  tick();

  return {
    stop: async () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
};
