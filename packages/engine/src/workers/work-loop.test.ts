import { describe, expect, it } from 'vitest';
import { manualLoopScheduler as manualTime } from './manual-scheduler.worker.js';
import { startWorkLoop, type WorkLoopOptions } from './work-loop.worker.js';

const t0 = 1_700_000_000;

/** A loop over a fake store: `due` is the next due second, runs and plans are counted. */
const bed = (overrides: Partial<WorkLoopOptions> = {}) => {
  const time = manualTime();
  const state = {
    due: undefined as number | undefined,
    runs: [] as number[],
    plans: 0,
    didNothing: false,
  };
  const listeners = new Set<() => void>();
  const clock = { now: () => t0 + Math.floor(time.nowMs / 1000) };
  const loop = startWorkLoop({
    run: async () => {
      state.runs.push(time.nowMs);
      if (state.didNothing) return 0;
      // What was due has fired.
      if (state.due !== undefined && state.due <= clock.now()) state.due = undefined;
      return 1;
    },
    nextDueAt: async () => {
      state.plans += 1;
      return state.due;
    },
    clock,
    onWork: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    maxSleepMs: 60_000,
    retryMs: 1000,
    scheduler: time.scheduler,
    ...overrides,
  });
  const tell = (): void => {
    for (const listener of listeners) listener();
  };
  return { time, state, loop, tell, listeners, clock };
};

describe('startWorkLoop', () => {
  it('runs at once, then makes no query while nothing is due, until the safety net', async () => {
    const { time, state, loop } = bed();
    await time.advance(0);
    expect(state.runs).toEqual([0]);
    expect(state.plans).toBe(1);
    await time.advance(30_000);
    expect(state.runs).toEqual([0]);
    expect(state.plans).toBe(1);
    await time.advance(30_000);
    expect(state.runs).toEqual([0, 60_000]);
    await loop.stop();
  });

  it('sleeps until the next due second and runs then', async () => {
    const { time, state, loop } = bed();
    state.due = t0 + 5;
    await time.advance(4_999);
    expect(state.runs).toEqual([0]);
    await time.advance(1_000);
    expect(state.runs).toHaveLength(2);
    const fired = state.runs[1] ?? 0;
    expect(fired).toBeGreaterThanOrEqual(5_000);
    expect(fired).toBeLessThan(6_000);
    expect(state.plans).toBe(2);
    await loop.stop();
  });

  it('wakes at once when the store tells of work, and runs if it is due', async () => {
    const { time, state, loop, tell } = bed();
    await time.advance(10_000);
    expect(state.runs).toEqual([0]);
    state.due = t0 + 10;
    tell();
    await time.advance(0);
    expect(state.runs).toEqual([0, 10_000]);
    // Work that is not due yet: the wake only plans, the run waits for its second.
    state.due = t0 + 20;
    tell();
    await time.advance(0);
    expect(state.runs).toEqual([0, 10_000]);
    await time.advance(10_005);
    expect(state.runs).toEqual([0, 10_000, 20_005]);
    await loop.stop();
  });

  it('work told of during a pass is looked at right after it', async () => {
    const time = manualTime();
    const listeners = new Set<() => void>();
    let due: number | undefined;
    const runs: number[] = [];
    const loop = startWorkLoop({
      run: async () => {
        runs.push(time.nowMs);
        // A commit lands while the pass is on its way out.
        if (runs.length === 1) {
          due = t0;
          for (const listener of listeners) listener();
        } else due = undefined;
        return 0;
      },
      nextDueAt: async () => due,
      clock: { now: () => t0 + Math.floor(time.nowMs / 1000) },
      onWork: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      maxSleepMs: 60_000,
      retryMs: 1000,
      scheduler: time.scheduler,
    });
    // The wake came during the pass: the loop plans again at once and runs what was told of,
    // then, nothing left, sleeps.
    await time.advance(30_000);
    expect(runs).toEqual([0, 0]);
    await loop.stop();
  });

  it('does not spin when something is due but the pass finds nothing (another worker holds it)', async () => {
    const { time, state, loop } = bed();
    await time.advance(0);
    state.due = t0;
    state.didNothing = true;
    loop.wake();
    await time.advance(2_500);
    // Once at the wake, then the pause between tries instead of a spin.
    expect(state.runs).toEqual([0, 0, 1_000, 2_000]);
    await loop.stop();
  });

  it('a failed pass is reported and tried again after the pause', async () => {
    const failures: unknown[] = [];
    let recovered = 0;
    let failing = true;
    const { time, loop } = bed({
      run: async () => {
        if (failing) throw new Error('connection lost');
        return 0;
      },
      failed: (error) => failures.push(error),
      succeeded: () => {
        recovered += 1;
      },
    });
    await time.advance(2_000);
    expect(failures).toHaveLength(3);
    failing = false;
    await time.advance(1_000);
    expect(failures).toHaveLength(3);
    expect(recovered).toBe(1);
    await loop.stop();
  });

  it('without nextDueAt it runs every maxSleepMs and on every wake', async () => {
    const time = manualTime();
    const listeners = new Set<() => void>();
    let runs = 0;
    const loop = startWorkLoop({
      run: async () => {
        runs += 1;
      },
      onWork: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      maxSleepMs: 500,
      retryMs: 500,
      scheduler: time.scheduler,
    });
    await time.advance(1_000);
    expect(runs).toBe(3);
    for (const listener of listeners) listener();
    await time.advance(0);
    expect(runs).toBe(4);
    await loop.stop();
  });

  it('stop waits for the pass in progress, unsubscribes, and nothing runs after', async () => {
    const { time, state, loop, listeners, tell } = bed();
    await time.advance(0);
    expect(listeners.size).toBe(1);
    await loop.stop();
    expect(listeners.size).toBe(0);
    tell();
    loop.wake();
    await time.advance(120_000);
    expect(state.runs).toEqual([0]);
  });

  it('wake plans again at once (the test clock moved)', async () => {
    const { time, state, loop } = bed();
    state.due = t0 + 3_600;
    await time.advance(0);
    state.due = t0;
    loop.wake();
    await time.advance(0);
    expect(state.runs).toEqual([0, 0]);
    await loop.stop();
  });

  it('needs the clock with nextDueAt', () => {
    expect(() =>
      startWorkLoop({
        run: async () => 0,
        nextDueAt: async () => undefined,
        maxSleepMs: 1,
        retryMs: 1,
      }),
    ).toThrow(TypeError);
  });
});
