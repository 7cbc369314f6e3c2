import { describe, expect, it } from 'vitest';
import { errorSummary, startTimerLoop } from './timer-loop.js';

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

describe('errorSummary', () => {
  it('answers the name and message, never the stack', () => {
    const error = new RangeError('bad');
    expect(errorSummary(error)).toBe('RangeError: bad');
    expect(errorSummary('plain')).toBe('plain');
  });
});
