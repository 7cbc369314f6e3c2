/**
 * payrail's HTTP load benchmark (issue 11, "measure first"; docs/performance.md). In one run:
 * the floors (bare node:http, raw pg, raw PGlite, raw pg on the embedded PostgreSQL), then the
 * real server on PostgreSQL and on the embedded default (the PostgreSQL it starts and owns)
 * under autocannon, printed as one markdown table of ratios against the goals and written as
 * JSON to bench/results/. Goals never fail the run; errors (a non-2xx answer, a crash) do, with
 * exit code 1.
 *
 *   node load.mjs            median of 3 rounds of BENCH_DURATION (10) s per row, the timers
 *   node load.mjs --smoke    1 round of 2 s per row (CI), no timer row (it waits a minute)
 *   node load.mjs --sweep    create payout on PostgreSQL at 1..64 connections, SVG chart
 *   node load.mjs --pglite   (with either of the first two) also payrail on the PGlite store,
 *                            PAYRAIL_EMBEDDED_DATABASE=pglite, against F3 (not durable)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { measureOutbox, measureTimers } from './lib/background.mjs';
import {
  probePostgres,
  startBareHttp,
  startHonoHttp,
  startRawEmbeddedPg,
  startRawPg,
  startRawPglite,
} from './lib/floors.mjs';
import { measureLedgerGrowth } from './lib/ledger.mjs';
import { cannonRound, median } from './lib/measure.mjs';
import { repoRoot, serverBuilt, serverMain, startPayrail } from './lib/payrail.mjs';
import { buildRows, markdownTable, sweepSvg } from './lib/report.mjs';
import { cleanupAll, log, readOptions } from './lib/run-context.mjs';
import { measureScaleOut } from './lib/scale-out.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, 'results');
const sweepConnections = [1, 4, 8, 16, 32, 64];

/** Every error of the run (non-2xx, socket errors, a crash): any of them fails it. */
const errors = [];

const summarise = (rounds) => ({
  rps: median(rounds.map((r) => r.rps)),
  p50: median(rounds.map((r) => r.p50)),
  p99: median(rounds.map((r) => r.p99)),
  unit: rounds[0]?.unit ?? 'req/s',
  non2xx: rounds.reduce((sum, r) => sum + (r.non2xx ?? 0), 0),
  errors: rounds.reduce((sum, r) => sum + (r.errors ?? 0) + (r.timeouts ?? 0), 0),
  rounds,
});

const checkRound = (label, result) => {
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    errors.push({
      row: label,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      samples: result.errorSamples,
    });
    log(
      `ERROR in ${label}: non-2xx ${result.non2xx}, errors ${result.errors}, ` +
        `timeouts ${result.timeouts}; samples:\n  ${result.errorSamples.join('\n  ')}`,
    );
  }
};

const describeRound = (label, r) =>
  log(
    `${label}: ${r.rps.toFixed(1)} ${r.unit ?? 'req/s'}, p50 ${r.p50.toFixed(1)} ms, ` +
      `p99 ${r.p99.toFixed(1)} ms${r.non2xx === undefined ? '' : `, non-2xx ${r.non2xx}`}`,
  );

const ensureBuilt = () => {
  if (serverBuilt()) return;
  log('packages/server/dist is missing: building (turbo run build)');
  spawnSync(
    'npx',
    ['-y', 'pnpm@10', 'exec', 'turbo', 'run', 'build', '--output-logs=errors-only'],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  if (!serverBuilt()) throw new Error(`the build did not produce ${serverMain}`);
};

const machine = async (databaseUrl, postgresUp) => {
  const git = (args) => {
    try {
      return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
    } catch {
      return undefined;
    }
  };
  let postgresVersion;
  if (postgresUp) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    postgresVersion = (await client.query('SHOW server_version')).rows[0].server_version;
    await client.end();
  }
  return {
    cpu: os.cpus()[0]?.model,
    cpus: os.cpus().length,
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    loadavg_before: os.loadavg().map((v) => Math.round(v * 100) / 100),
    postgres: postgresVersion,
    commit: git(['rev-parse', '--short', 'HEAD']),
    work_tree_dirty: (git(['status', '--porcelain']) ?? '') !== '',
  };
};

/** Runs `rounds` rounds of a floor and stops it. */
const floorRows = async (name, start, options) => {
  log(`${name}: starting`);
  const floor = await start();
  try {
    const rounds = [];
    for (let i = 1; i <= options.rounds; i += 1) {
      const result = await floor.round(options.duration);
      describeRound(`${name} round ${i}`, result);
      checkRound(name, result);
      rounds.push(result);
    }
    return { ...summarise(rounds), ...(floor.about === undefined ? {} : { about: floor.about }) };
  } finally {
    await floor.stop();
  }
};

const cannon = async (server, label, request, options, connections = options.connections) => {
  const result = await cannonRound({
    url: server.url,
    request,
    connections,
    duration: options.duration,
  });
  describeRound(label, result);
  checkRound(label, result);
  if (!server.alive()) {
    throw new Error(`payrail (${server.store}) exited during ${label}:\n${server.output()}`);
  }
  return result;
};

/** A memory reading for the log: payrail's, plus its postgres processes' when it owns them. */
const describeMemory = (memory) =>
  `VmHWM ${memory.peakMb.toFixed(0)} MB, VmRSS ${memory.rssMb.toFixed(0)} MB` +
  (memory.postgres === undefined
    ? ''
    : ` (payrail ${memory.payrail.peakMb.toFixed(0)} / ${memory.payrail.rssMb.toFixed(0)} MB, ` +
      `${memory.postgres.processes} postgres processes VmRSS ${memory.postgres.rssMb.toFixed(0)} MB, ` +
      `PSS ${memory.postgres.pssMb.toFixed(0)} MB)`);

const payrailRows = async (store, options) => {
  log(`payrail on ${store}: starting ${serverMain}`);
  const server = await startPayrail({ store, databaseUrl: options.databaseUrl });
  try {
    const startup = server.memory();
    log(`payrail on ${store}: listening on ${server.url}; at start ${describeMemory(startup)}`);
    const idleCpu = await server.idleCpu(options.idleSettleSeconds, options.idleSeconds);
    log(`payrail on ${store}: idle CPU ${idleCpu.toFixed(2)} % of a core`);
    // Idle memory: after the idle CPU window, before any load.
    const idle = server.memory();
    log(`payrail on ${store}: idle ${describeMemory(idle)}`);
    const rows = { quickpayout: [], order: [], account: [] };
    const afterRounds = [];
    const rssAfterRounds = [];
    for (let i = 1; i <= options.rounds; i += 1) {
      for (const name of Object.keys(rows)) {
        const label = `${store} ${name} round ${i}`;
        rows[name].push(await cannon(server, label, server.requests[name](), options));
      }
      const memory = server.memory();
      afterRounds.push(memory.peakMb);
      rssAfterRounds.push(memory.rssMb);
      log(`${store} after round ${i}: ${describeMemory(memory)}`);
    }
    const last = server.memory();
    const growth =
      afterRounds.length >= 3 ? (afterRounds.at(-1) - afterRounds[0]) / afterRounds[0] : undefined;
    return {
      quickpayout: summarise(rows.quickpayout),
      order: summarise(rows.order),
      account: summarise(rows.account),
      idleCpu,
      memory: {
        startupPeakMb: startup.peakMb,
        idleRssMb: idle.rssMb,
        afterRounds,
        rssAfterRounds,
        peakMb: Math.max(...afterRounds, last?.peakMb ?? 0),
        growth,
        // The embedded PostgreSQL's share: payrail's own and its postgres processes' apart.
        ...(last?.postgres === undefined
          ? {}
          : {
              payrailPeakMb: last.payrail.peakMb,
              postgresPeakRssMb: last.postgres.peakRssMb,
              postgresPeakPssMb: last.postgres.peakPssMb,
              postgresIdleRssMb: idle.postgres?.rssMb,
              postgresIdlePssMb: idle.postgres?.pssMb,
            }),
      },
    };
  } finally {
    await server.stop();
  }
};

const runSweep = async (options) => {
  const server = await startPayrail({ store: 'postgres', databaseUrl: options.databaseUrl });
  try {
    const points = [];
    for (const connections of sweepConnections) {
      const result = await cannon(
        server,
        `sweep ${connections} connections`,
        server.requests.quickpayout(),
        { ...options, duration: options.sweepDuration },
        connections,
      );
      points.push({ connections, rps: result.rps, p50: result.p50, p99: result.p99 });
    }
    return points;
  } finally {
    await server.stop();
  }
};

const writeResults = async (name, report, alsoLatest) => {
  await mkdir(resultsDir, { recursive: true });
  const text = `${JSON.stringify(report, null, 2)}\n`;
  const files = [];
  if (name !== undefined) files.push(join(resultsDir, name));
  if (alsoLatest !== undefined) files.push(join(resultsDir, alsoLatest));
  for (const file of files) await writeFile(file, text);
  log(`wrote ${files.map((f) => f.slice(repoRoot.length + 1)).join(', ')}`);
};

const main = async () => {
  const options = readOptions(process.argv.slice(2), process.env);
  const started = new Date();
  ensureBuilt();
  const pgProblem = await probePostgres(options.databaseUrl);
  if (pgProblem !== undefined) {
    if (options.ci) throw new Error(`no PostgreSQL at DATABASE_URL under CI: ${pgProblem}`);
    log(`no PostgreSQL at DATABASE_URL (${pgProblem}): its rows are skipped`);
  }
  const postgresUp = pgProblem === undefined;
  const about = await machine(options.databaseUrl, postgresUp);
  const stamp = started
    .toISOString()
    .replaceAll(':', '-')
    .replace(/\.\d+Z$/, 'Z');
  const common = {
    started_at: started.toISOString(),
    machine: about,
    options: {
      smoke: options.smoke,
      rounds: options.rounds,
      duration_s: options.duration,
      connections: options.connections,
      pool_size: options.poolSize,
      pglite_in_flight: options.pgliteInFlight,
      pglite: options.pglite,
    },
  };

  if (options.sweep) {
    if (!postgresUp) throw new Error('the sweep needs PostgreSQL at DATABASE_URL');
    const points = await runSweep(options);
    const caption = `POST /payment/quickpayout on PostgreSQL, ${options.sweepDuration} s per point (${about.cpus} vCPU, ${started.toISOString().slice(0, 10)})`;
    const svgPath = join(repoRoot, 'docs', 'performance-load.svg');
    await writeFile(svgPath, sweepSvg(points, caption));
    log(`wrote docs/performance-load.svg`);
    const report = {
      kind: 'sweep',
      ...common,
      sweep: points,
      errors,
      wall_s: (Date.now() - started.getTime()) / 1000,
    };
    if (!options.smoke) await writeResults(`sweep-${stamp}.json`, report, 'sweep-latest.json');
    process.stdout.write(
      `| connections | req/s | p50 ms | p99 ms |\n|--:|--:|--:|--:|\n${points
        .map((p) => `| ${p.connections} | ${p.rps.toFixed(1)} | ${p.p50} | ${p.p99} |`)
        .join('\n')}\n`,
    );
    return errors.length === 0 ? 0 : 1;
  }

  const floors = {
    F1: await floorRows('F1 bare node:http', () => startBareHttp(options), options),
    F2: postgresUp
      ? await floorRows('F2 raw pg', () => startRawPg({ ...options }), options)
      : undefined,
    F3: await floorRows(
      'F3 raw PGlite',
      () => startRawPglite({ inFlight: options.pgliteInFlight }),
      options,
    ),
    F4: await floorRows(
      'F4 raw pg on the embedded PostgreSQL',
      () => startRawEmbeddedPg({ ...options }),
      options,
    ),
    F5: await floorRows(
      'F5 Hono on @hono/node-server, one constant route',
      () => startHonoHttp({ ...options, httpDir: join(repoRoot, 'packages', 'http') }),
      options,
    ),
  };
  const payrail = {
    postgres: postgresUp ? await payrailRows('postgres', options) : undefined,
    embedded: await payrailRows('embedded', options),
    pglite: options.pglite ? await payrailRows('pglite', options) : undefined,
  };
  const drain = {
    postgres: postgresUp ? await measureOutbox('postgres', options, cannon) : undefined,
    embedded: await measureOutbox('embedded', options, cannon),
  };
  const scaleOut = postgresUp ? await measureScaleOut(options, checkRound) : undefined;
  if (scaleOut !== undefined && !scaleOut.check.correct) {
    errors.push({ row: '1 vs 2 processes', check: scaleOut.check });
  }
  const ledger = postgresUp ? await measureLedgerGrowth(options) : undefined;
  let timers;
  if (options.timers) {
    // Both stores at once: the wait (expire_seconds 60) is the same for both.
    const [onPostgres, onEmbedded] = await Promise.all([
      postgresUp ? measureTimers('postgres', options) : undefined,
      measureTimers('embedded', options),
    ]);
    timers = { postgres: onPostgres, embedded: onEmbedded };
  }
  const rows = buildRows({ floors, payrail, drain, scaleOut, ledger, timers });
  const table = markdownTable(rows);
  const wall = (Date.now() - started.getTime()) / 1000;
  const loadAfter = os.loadavg().map((v) => Math.round(v * 100) / 100);
  const report = {
    kind: 'load',
    ...common,
    machine: {
      ...about,
      embedded_postgres: floors.F4?.about?.server_version,
      loadavg_after: loadAfter,
    },
    wall_s: wall,
    rows,
    floors,
    payrail,
    drain,
    scale_out: scaleOut,
    ledger,
    timers,
    errors,
  };
  if (options.smoke) {
    await writeResults(undefined, report, 'smoke-latest.json');
  } else {
    await writeResults(`load-${stamp}.json`, report, 'latest.json');
  }
  process.stdout.write(
    `\nHTTP load, ${options.smoke ? 'smoke: 1 round of 2 s' : `median of ${options.rounds} rounds of ${options.duration} s`}, ` +
      `${options.connections} connections, ${about.cpus} vCPU, Node ${about.node}, ` +
      `PostgreSQL ${about.postgres ?? 'absent'}, embedded PostgreSQL ${floors.F4?.about?.server_version}, commit ${about.commit}${about.work_tree_dirty ? ' (work tree dirty)' : ''}, ` +
      `load average ${about.loadavg_before[0]} before, ${loadAfter[0]} after, ${wall.toFixed(0)} s\n\n${table}\n`,
  );
  if (errors.length > 0) {
    process.stdout.write(
      `\n${errors.length} row(s) had errors: see above and "errors" in the JSON\n`,
    );
  }
  return errors.length === 0 ? 0 : 1;
};

let exiting = false;
const stopOnSignal = (signal) => {
  if (exiting) return;
  exiting = true;
  log(`${signal}: cleaning up`);
  cleanupAll().finally(() => process.exit(130));
};
process.once('SIGINT', stopOnSignal);
process.once('SIGTERM', stopOnSignal);

let code = 1;
try {
  code = await main();
} catch (error) {
  log(`failed: ${error?.stack ?? error}`);
  code = 1;
} finally {
  await cleanupAll();
}
process.exit(code);
