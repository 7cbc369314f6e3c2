import { manualLoopScheduler as manualTime } from '@payrail/engine';
import { createMemoryStore } from '@payrail/store-memory';
import { countingStore } from '@payrail/store-memory/testing';
import { describe, expect, it } from 'vitest';
import { errorSummary, startTimerLoop } from './timer-loop.js';
import { claimingTimerLoop, expiryTimer as timer } from './timer-loop.test-support.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('startTimerLoop', () => {
  it('runs at once, then again after each run finishes, never two at a time', async () => {
    let active = 0;
    let most = 0;
    let runs = 0;
    const loop = startTimerLoop({
      run: async () => {
        active += 1;
        most = Math.max(most, active);
        runs += 1;
        await sleep(30);
        active -= 1;
      },
      intervalMs: 1,
      log: () => undefined,
    });
    await sleep(200);
    await loop.stop();
    expect(most).toBe(1);
    expect(runs).toBeGreaterThan(2);
    expect(active).toBe(0);
    const after = runs;
    await sleep(50);
    expect(runs).toBe(after);
  });

  it('waits for the run in progress when stopped', async () => {
    let finished = false;
    const loop = startTimerLoop({
      run: async () => {
        await sleep(50);
        finished = true;
      },
      intervalMs: 1000,
      log: () => undefined,
    });
    await loop.stop();
    expect(finished).toBe(true);
  });

  it('logs a failure by its message, a repeated one once a minute, and the recovery', async () => {
    let now = 0;
    let failing = true;
    const lines: string[] = [];
    let runs = 0;
    const loop = startTimerLoop({
      run: async () => {
        runs += 1;
        now += 1000;
        if (failing) throw new Error('connection terminated');
      },
      intervalMs: 1,
      log: (line) => lines.push(line),
      now: () => now,
    });
    while (runs < 70) await sleep(1);
    failing = false;
    const recovered = runs;
    while (runs < recovered + 2) await sleep(1);
    await loop.stop();
    expect(lines).toEqual([
      'timer loop failed: Error: connection terminated',
      'timer loop failed: Error: connection terminated (59 more failures since the last report)',
      'timer loop recovered',
    ]);
  });
});

describe('the timer loop over a store (no polling, ADR 0030)', () => {
  const t0 = 1_700_000_000;

  /** A memory store counting its units of work, and a loop firing its timers on fake time. */
  const bed = () => {
    const time = manualTime();
    const memory = createMemoryStore();
    const { store, counted } = countingStore(memory);
    const clock = { now: () => t0 + Math.floor(time.nowMs / 1000) };
    const fired: { id: string; atMs: number }[] = [];
    const loop = claimingTimerLoop(store, {
      clock,
      onWork: (listener) => memory.onWork(listener),
      intervalMs: 60_000,
      scheduler: time.scheduler,
      fired: (t) => fired.push({ id: t.business_id, atMs: time.nowMs }),
    });
    return { time, store, counted, fired, loop };
  };

  it('makes no unit of work for 30 s while nothing is due', async () => {
    const { time, counted, loop } = bed();
    await time.advance(0);
    // The pass on start (a claim) and the plan (the next due time): then nothing.
    expect(counted.transactions).toBe(2);
    await time.advance(30_000);
    expect(counted.transactions).toBe(2);
    await loop.stop();
  });

  it('a timer set by a committed unit of work fires at its due second, not before', async () => {
    const { time, store, fired, loop } = bed();
    await time.advance(1_000);
    await store.transaction((tx) => tx.timers.set(timer('ord_7', t0 + 8)));
    await time.advance(6_990);
    expect(fired).toEqual([]);
    await time.advance(1_000);
    expect(fired.map((f) => f.id)).toEqual(['ord_7']);
    const at = fired[0]?.atMs ?? 0;
    expect(at).toBeGreaterThanOrEqual(8_000);
    expect(at).toBeLessThan(9_000);
    await loop.stop();
  });

  it('a timer already due when set fires at once', async () => {
    const { time, store, fired, loop } = bed();
    await time.advance(5_000);
    await store.transaction((tx) => tx.timers.set(timer('ord_late', t0)));
    await time.advance(0);
    expect(fired).toEqual([{ id: 'ord_late', atMs: 5_000 }]);
    await loop.stop();
  });
});

describe('errorSummary', () => {
  it('answers the name and message, never the stack', () => {
    const error = new RangeError('bad');
    expect(errorSummary(error)).toBe('RangeError: bad');
    expect(errorSummary('plain')).toBe('plain');
  });
});
