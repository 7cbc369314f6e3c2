/**
 * The simulation (docs/reliability.md): `SIM_SEEDS` seeds on the memory store and
 * `SIM_PGLITE_SEEDS` on PGlite from `SIM_FIRST_SEED` on, every invariant checked after every step,
 * every kind of action exercised; and the harness itself can fail: a store that loses a journal is
 * caught with its seed, and a seed replays the same steps. `pnpm test` runs a CI depth from a
 * first seed that changes with the commit, so the seeds covered grow across runs; `pnpm
 * test:deep` runs 1,000 + 60 (scripts/test.mjs, docs/testing.md).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Store } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import { runSeeds, summaryLine } from './run-seeds.js';
import { actionNames, runSeed } from './simulation.js';

const envNumber = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number`);
  return value;
};

const memorySeeds = envNumber('SIM_SEEDS', 1000);
const pgliteSeeds = envNumber('SIM_PGLITE_SEEDS', 60);
const steps = envNumber('SIM_STEPS', 40);
const first = Math.max(1, envNumber('SIM_FIRST_SEED', 1));

describe('the deterministic simulation', () => {
  it(`keeps every invariant over ${memorySeeds} memory and ${pgliteSeeds} PGlite seeds of ${steps} steps from seed ${first}`, async () => {
    const memory = await runSeeds({ first, seeds: memorySeeds, steps, stores: ['memory'] });
    const pglite = await runSeeds({ first, seeds: pgliteSeeds, steps, stores: ['pglite'] });
    const all = [...memory.violations, ...pglite.violations];
    const actions: Record<string, number> = { ...memory.actions };
    for (const [name, n] of Object.entries(pglite.actions))
      actions[name] = (actions[name] ?? 0) + n;
    const summary = {
      runs: memory.runs + pglite.runs,
      steps: memory.steps + pglite.steps,
      violations: all,
      actions,
      milliseconds: memory.milliseconds + pglite.milliseconds,
    };
    console.log(
      `seeds ${first}-${first + Math.max(memorySeeds, pgliteSeeds) - 1}: ` +
        `memory ${memory.runs} seeds in ${(memory.milliseconds / 1000).toFixed(1)} s, ` +
        `PGlite ${pglite.runs} seeds in ${(pglite.milliseconds / 1000).toFixed(1)} s; actions ` +
        JSON.stringify(actions),
    );
    console.log(summaryLine(summary));
    expect(all.map((r) => r.violation?.message)).toEqual([]);
    // Every kind of action, the injected faults included, ran often enough to mean something.
    const floor = Math.max(1, Math.floor(memorySeeds / 20));
    for (const name of actionNames) {
      expect(actions[name] ?? 0, `${name} ran ${actions[name] ?? 0} times`).toBeGreaterThanOrEqual(
        floor,
      );
    }
  });
});

/**
 * A store that loses every `payout_fee` journal it is given (the call succeeds, nothing is
 * written), as a store with a lost write would.
 */
const losingFees = (store: Store): Store => ({
  ...store,
  transaction: (work) =>
    store.transaction((tx) =>
      work(
        new Proxy(tx, {
          get(target, key, receiver) {
            const value = Reflect.get(target, key, receiver);
            if (key !== 'ledger') return value;
            const ledger = value as typeof tx.ledger;
            return {
              ...ledger,
              balances: ledger.balances.bind(ledger),
              entries: ledger.entries.bind(ledger),
              post: async (journal: Parameters<typeof ledger.post>[0], at: number) => {
                if (journal.recordType === 'payout_fee') return;
                await ledger.post(journal, at);
              },
            };
          },
        }),
      ),
    ),
});

describe('the harness can fail', () => {
  it('catches a store that loses a journal, with the seed and the replay command', async () => {
    let caught: Awaited<ReturnType<typeof runSeed>> | undefined;
    for (let seed = 1; seed <= 60 && caught === undefined; seed += 1) {
      const result = await runSeed({ seed, steps, store: 'memory', wrapStore: losingFees });
      if (result.violation !== undefined) caught = result;
    }
    expect(caught, 'no seed of 60 caught the lost fee journals').toBeDefined();
    const violation = caught?.violation;
    expect(violation?.message).toContain(`seed ${caught?.seed} (memory), step ${violation?.step}`);
    expect(violation?.message).toMatch(/payout \S+ \(completed\): still holds/);
    expect(violation?.message).toContain(`pnpm simulate --seed ${caught?.seed} --store memory`);
    // The same seed fails the same way at the same step.
    const again = await runSeed({
      seed: caught?.seed ?? 0,
      steps,
      store: 'memory',
      wrapStore: losingFees,
    });
    expect(again.violation?.message).toBe(violation?.message);
  });

  it('replays a seed exactly: the same steps with the same answers, on either store', async () => {
    const first = await runSeed({ seed: 4242, steps, store: 'memory' });
    const second = await runSeed({ seed: 4242, steps, store: 'memory' });
    expect(second.log).toEqual(first.log);
    expect(first.log.length).toBeGreaterThan(steps);
    const onPGlite = await runSeed({ seed: 4242, steps, store: 'pglite' });
    expect(onPGlite.log).toEqual(first.log);
  });

  it('pnpm simulate --seed S --verbose prints the identical step log twice', async () => {
    const run = promisify(execFile);
    const cli = () =>
      run('node', ['dist/cli.js', '--seed', '77', '--steps', String(steps), '--verbose'], {
        cwd: new URL('..', import.meta.url),
      });
    const [one, two] = [await cli(), await cli()];
    const logOf = (out: string) => out.split('\n').filter((l) => !l.startsWith('took '));
    expect(logOf(one.stdout)).toEqual(logOf(two.stdout));
    expect(one.stdout).toMatch(/^ {2}#1 merchant\.create: ok /m);
    expect(one.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^simulation: 1 seeds, \d+ steps, 0 invariant violations$/,
    );
  });
});
