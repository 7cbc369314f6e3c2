/**
 * Runs a range of seeds on one or both stores and sums them up: the CLI's `--seeds N` and the
 * CI test share it, so both print the same summary line.
 */
import { runSeed, type SeedResult } from './simulation.js';
import type { StoreKind } from './world.js';

export interface RunOptions {
  /** The first seed; the run takes `first`, `first + 1`, ... */
  readonly first: number;
  readonly seeds: number;
  readonly steps: number;
  readonly stores: readonly StoreKind[];
  /** Sees each seed's result as it ends. */
  readonly onResult?: (result: SeedResult) => void;
}

export interface RunSummary {
  /** Seed runs: a seed on two stores counts twice. */
  readonly runs: number;
  readonly steps: number;
  readonly violations: readonly SeedResult[];
  /** How many times each action ran, over every seed. */
  readonly actions: Readonly<Record<string, number>>;
  readonly milliseconds: number;
}

export const runSeeds = async (options: RunOptions): Promise<RunSummary> => {
  const started = performance.now();
  const actions: Record<string, number> = {};
  const violations: SeedResult[] = [];
  let runs = 0;
  let steps = 0;
  for (const store of options.stores) {
    for (let seed = options.first; seed < options.first + options.seeds; seed += 1) {
      const result = await runSeed({ seed, steps: options.steps, store });
      runs += 1;
      steps += result.steps;
      for (const [name, n] of Object.entries(result.actions))
        actions[name] = (actions[name] ?? 0) + n;
      if (result.violation !== undefined) violations.push(result);
      options.onResult?.(result);
    }
  }
  return { runs, steps, violations, actions, milliseconds: performance.now() - started };
};

/** The line a run ends with. */
export const summaryLine = (summary: RunSummary): string =>
  `simulation: ${summary.runs} seeds, ${summary.steps} steps, ${summary.violations.length} invariant violations`;
