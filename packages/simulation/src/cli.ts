/**
 * `pnpm simulate`: `--seed S` replays one seed exactly (`--verbose` prints its step log);
 * `--seeds N` runs seeds 1..N (from `--first`) and ends with the summary line; `--store memory|
 * pglite|both` (default memory), `--steps K` (default 40). Exit 1 on any violation, with the
 * failing seed and the command that replays it.
 */
import { parseArgs } from 'node:util';
import { runSeeds, summaryLine } from './run-seeds.js';
import type { SeedResult } from './simulation.js';
import { type StoreKind, storeKinds } from './world.js';

const usage =
  'usage: pnpm simulate (--seed S | --seeds N [--first F]) [--store memory|pglite|both] [--steps K] [--verbose]';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    seeds: { type: 'string' },
    first: { type: 'string', default: '1' },
    store: { type: 'string', default: 'memory' },
    steps: { type: 'string', default: '40' },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

const wholeNumber = (name: string, text: string | undefined): number => {
  const n = Number(text);
  if (text === undefined || !Number.isSafeInteger(n) || n < 0) {
    process.stderr.write(`--${name} must be a whole number\n${usage}\n`);
    process.exit(2);
  }
  return n;
};

if (values.help || (values.seed === undefined) === (values.seeds === undefined)) {
  process.stderr.write(`${usage}\n`);
  process.exit(values.help ? 0 : 2);
}
const storesOf = (name: string | undefined): readonly StoreKind[] => {
  if (name === 'both') return storeKinds;
  const kind = storeKinds.find((k) => k === name);
  if (kind !== undefined) return [kind];
  process.stderr.write(`--store must be memory, pglite or both\n${usage}\n`);
  return process.exit(2);
};
const stores = storesOf(values.store);
const steps = wholeNumber('steps', values.steps);
const single = values.seed !== undefined;
const first = single ? wholeNumber('seed', values.seed) : wholeNumber('first', values.first);
const seeds = single ? 1 : wholeNumber('seeds', values.seeds);

const print = (result: SeedResult): void => {
  if (values.verbose) {
    const r = result.rates;
    process.stdout.write(
      `seed ${result.seed} (${result.store}): duplicate ${r.duplicate}, reorder ${r.reorder}, ` +
        `lost ${r.lost}, failing ${r.failing}, slow ${r.slow}, abort ${r.abort}, restart ${r.restart}\n`,
    );
    for (const line of result.log) process.stdout.write(`  ${line}\n`);
  }
  if (result.violation !== undefined) process.stdout.write(`${result.violation.message}\n`);
};

const summary = await runSeeds({ first, seeds, steps, stores, onResult: print });
process.stdout.write(
  `took ${(summary.milliseconds / 1000).toFixed(1)} s\n${summaryLine(summary)}\n`,
);
process.exit(summary.violations.length === 0 ? 0 : 1);
