// `pnpm test` and `pnpm test:deep` (docs/testing.md, "How deep a run goes"): every check of the
// repository, one step after another, each step's time printed, then a table of every package's
// build, type check and tests (seconds, test files, tests), so a slow run says where its time
// went.
//
// `pnpm test` runs at the CI depth: fewer property runs, fuzzed requests, simulated seeds and
// kills than `pnpm test:deep`, from a seed that changes with the commit (derived from `git
// rev-parse HEAD`, printed), so each commit explores other inputs and coverage accumulates across
// runs while any failure replays with the printed seed. `pnpm test:deep` (`--deep`) runs every
// suite at the depth CI ran until issue 34 (1,000 runs a property, 1,000 + 60 simulated seeds, ...)
// from a new seed each time. A variable already set (`FC_NUM_RUNS=5000 pnpm test:deep`,
// `PAYRAIL_TEST_SEED=123 pnpm test`) wins over both.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const deep = process.argv.includes('--deep');

/**
 * What each depth sets. `ci` fits `.ci/run` in 30 minutes on 2 cores (docs/testing.md has the
 * measured table); `deep` is the former CI depth, and the hours-long sweeps of docs/reliability.md
 * are these variables set higher.
 */
const depths = {
  ci: {
    FC_NUM_RUNS: '100',
    FUZZ_RUNS_IN_PROCESS: '400',
    FUZZ_RUNS_STORES: '60',
    FUZZ_RUNS_SOCKET: '120',
    SIM_SEEDS: '150',
    SIM_PGLITE_SEEDS: '8',
    SIM_STEPS: '40',
    CRASH_KILLS: '8',
    FAILOVERS: '5',
  },
  deep: {
    FC_NUM_RUNS: '1000',
    FUZZ_RUNS_IN_PROCESS: '4000',
    FUZZ_RUNS_STORES: '500',
    FUZZ_RUNS_SOCKET: '1000',
    SIM_SEEDS: '1000',
    SIM_PGLITE_SEEDS: '60',
    SIM_STEPS: '40',
    CRASH_KILLS: '25',
    FAILOVERS: '20',
  },
};

/** The commit's seed: its hash's first 31 bits, so the same commit replays the same inputs. */
const commitSeed = () => {
  const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' });
  if (head.status !== 0) return undefined;
  return Number.parseInt(head.stdout.trim().slice(0, 8), 16) % 2 ** 31;
};

const seed = Number(
  process.env.PAYRAIL_TEST_SEED ??
    (deep ? undefined : commitSeed()) ??
    Math.floor(Math.random() * 2 ** 31),
);
const env = { ...process.env, PAYRAIL_TEST_SEED: String(seed) };
for (const [name, value] of Object.entries(deep ? depths.deep : depths.ci)) env[name] ??= value;
// Every seeded suite starts from the run's seed: fast-check's properties, the HTTP fuzzer, the
// crash and failover tests, and the simulation's first seed.
for (const name of ['FC_SEED', 'FUZZ_SEED', 'CRASH_SEED', 'FAILOVER_SEED'])
  env[name] ??= String(seed);
env.SIM_FIRST_SEED ??= String((seed % 1_000_000) + 1);

const depthLine = [
  `depth ${deep ? 'deep' : 'ci'}`,
  `seed ${seed} (PAYRAIL_TEST_SEED=${seed} replays it)`,
  ...Object.keys(depths.ci).map((name) => `${name}=${env[name]}`),
  `SIM_FIRST_SEED=${env.SIM_FIRST_SEED}`,
].join(', ');
console.log(`test: ${depthLine}`);

/** Per package: its test files and tests as vitest counted them. */
const counts = new Map();
const countLine =
  /^(@payrail\/[\w-]+):test:\s+(Test Files|Tests)\s+(?:(\d+) failed \| )?(\d+) passed/;

/** Runs a command, its output passed through and scanned for vitest's counts. */
const run = (command, args) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let pending = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: vitest colours its counts
        const match = countLine.exec(line.replace(/\u001b\[[0-9;]*m/g, ''));
        if (match === null) continue;
        const [, name, kind, failed, passed] = match;
        const entry = counts.get(name) ?? { files: 0, tests: 0 };
        entry[kind === 'Tests' ? 'tests' : 'files'] = Number(passed) + Number(failed ?? 0);
        counts.set(name, entry);
      }
    });
    child.on('close', (code) => resolve(code ?? 1));
  });

const timings = [];
const step = async (name, command, args) => {
  const started = performance.now();
  console.log(`\ntest: ${name}`);
  const code = await run(command, args);
  const seconds = (performance.now() - started) / 1000;
  timings.push({ name, seconds, code });
  console.log(
    `test: ${name}: ${code === 0 ? 'passed' : `failed (exit ${code})`} in ${seconds.toFixed(0)} s`,
  );
  if (code !== 0) {
    report();
    // Not process.exit: it would drop what is still queued for a piped stdout.
    process.exitCode = code;
  }
  return code === 0;
};

/** turbo's run summary (`--summarize`): each task's package, name and seconds. */
const turboTasks = () => {
  const dir = join(root, '.turbo', 'runs');
  let files;
  try {
    files = readdirSync(dir).map((name) => join(dir, name));
  } catch {
    return [];
  }
  const since = Date.now() - (performance.now() + 1000);
  return files
    .filter((file) => statSync(file).mtimeMs >= since)
    .flatMap((file) => JSON.parse(readFileSync(file, 'utf8')).tasks ?? [])
    .map((task) => ({
      package: task.package,
      task: task.task,
      seconds: (task.execution.endTime - task.execution.startTime) / 1000,
      cached: task.cache?.status === 'HIT',
    }));
};

const report = () => {
  const tasks = turboTasks();
  const packages = [...new Set(tasks.map((t) => t.package))].sort();
  // A task runs once; the tests' turbo run finds the builds it depends on in its cache.
  const seconds = (name, task) => {
    const runs = tasks.filter((t) => t.package === name && t.task === task);
    const ran = runs.find((t) => !t.cached) ?? runs[0];
    return ran === undefined ? '-' : `${ran.seconds.toFixed(0)}${ran.cached ? ' (cached)' : ''}`;
  };
  const rows = packages.map((name) => {
    const { files = '-', tests = '-' } = counts.get(name) ?? {};
    return [
      name,
      seconds(name, 'build'),
      seconds(name, 'typecheck'),
      seconds(name, 'test'),
      files,
      tests,
    ];
  });
  const table = [['package', 'build s', 'typecheck s', 'test s', 'test files', 'tests'], ...rows];
  console.log('\ntest: where the time went');
  for (const { name, seconds: s, code } of timings) {
    console.log(
      `  ${name.padEnd(44)} ${s.toFixed(0).padStart(5)} s${code === 0 ? '' : ' (failed)'}`,
    );
  }
  if (rows.length > 0) {
    console.log('');
    for (const row of table) {
      console.log(
        `  ${row[0].padEnd(26)}${row
          .slice(1)
          .map((cell) => String(cell).padStart(13))
          .join('')}`,
      );
    }
  }
  console.log(`test: ${depthLine}`);
};

const bin = (name) => join(root, 'node_modules', '.bin', name);

/**
 * The steps, in order; the first that fails ends the run. Builds and type checks are
 * single-threaded tsc runs, so two run at once. The tests run one package at a time: each
 * package's vitest uses every core (vitest.shared.ts), and the process tests (crashes, failovers)
 * measure gaps that a second package's load would stretch.
 */
const steps = [
  ['lint and format (biome)', bin('biome'), ['check', '.']],
  [
    'package boundaries (dependency-cruiser)',
    bin('depcruise'),
    ['packages', '--config', '.dependency-cruiser.cjs'],
  ],
  ['dead code (knip)', bin('knip'), []],
  ['source shape (lint:shape)', process.execPath, ['scripts/lint-shape.mjs']],
  [
    'build and type check (turbo, 2 at once)',
    bin('turbo'),
    ['run', 'build', 'typecheck', '--concurrency=2', '--summarize'],
  ],
  [
    'tests (turbo, 1 package at once)',
    bin('turbo'),
    ['run', 'test', '--concurrency=1', '--summarize'],
  ],
  [
    'docs links and packed host (node --test)',
    process.execPath,
    ['--test', 'test/docs-links.test.mjs', 'test/packed-host.test.mjs'],
  ],
];
let passed = true;
for (const [name, command, args] of steps) {
  passed = await step(name, command, args);
  if (!passed) break;
}
if (passed) report();
