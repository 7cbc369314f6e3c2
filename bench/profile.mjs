/**
 * Profiles payrail's server under load (issue 24, "profile first"): one row of `load.mjs` run
 * against a server started with `node --cpu-prof`, then
 *
 * - the server's CPU per request (utime + stime of /proc over the round, with the embedded
 *   PostgreSQL's processes apart), its statements and socket writes to the database per request
 *   (`lib/count-statements.cjs`, preloaded), and the time on the CPU by where the code comes from
 *   and by function;
 * - a flame graph of the profile as SVG (`--svg <path>`, e.g. docs/performance-flame-create-before.svg).
 *
 *   node profile.mjs [--store postgres|embedded] [--row quickpayout|order|account]
 *                    [--seconds 10] [--connections 32] [--svg path] [--json path]
 *                    [--cpuprofile path]  (the raw profile, for Chrome DevTools or speedscope)
 *
 * It needs `packages/server/dist` (`pnpm build`) and, for `--store postgres`, the server at
 * DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test). Everything it starts it stops.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { categoryTotals, flameGraphSvg, topFunctions } from './lib/flamegraph.mjs';
import { cannonRound, cpuSecondsByPid } from './lib/measure.mjs';
import { startPayrail } from './lib/payrail.mjs';
import { cleanupAll, log, sleep, tempDir } from './lib/run-context.mjs';

const { values: options } = parseArgs({
  options: {
    store: { type: 'string', default: 'postgres' },
    row: { type: 'string', default: 'quickpayout' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    svg: { type: 'string' },
    json: { type: 'string' },
    cpuprofile: { type: 'string' },
  },
});
const databaseUrl = process.env.DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/test';
const seconds = Number(options.seconds);
const connections = Number(options.connections);

/** The statement and write counters the preloaded module prints on SIGUSR2. */
const counters = async (server) => {
  const before = server.output().length;
  process.kill(server.pid, 'SIGUSR2');
  for (let i = 0; i < 50; i += 1) {
    const match = /payrail-statements (\d+) (\d+)/.exec(server.output().slice(before));
    if (match !== null) return { statements: Number(match[1]), writes: Number(match[2]) };
    await sleep(20);
  }
  throw new Error('the server did not print its statement counters');
};

const main = async () => {
  const profiles = await tempDir('payrail-profile-');
  const server = await startPayrail({
    store: options.store,
    databaseUrl,
    nodeArgs: [
      '--require',
      join(import.meta.dirname, 'lib', 'count-statements.cjs'),
      '--cpu-prof',
      `--cpu-prof-dir=${profiles.dir}`,
    ],
  });
  const request = server.requests[options.row];
  if (request === undefined) throw new Error(`unknown row ${options.row}`);
  log(`warming up ${options.row} on ${options.store} (2 s)`);
  await cannonRound({ url: server.url, request: request(), connections, duration: 2 });
  const countedBefore = await counters(server);
  const cpuBefore = cpuSecondsByPid([server.pid]).get(server.pid);
  const round = await cannonRound({
    url: server.url,
    request: request(),
    connections,
    duration: seconds,
  });
  const cpuAfter = cpuSecondsByPid([server.pid]).get(server.pid);
  const countedAfter = await counters(server);
  const { requests } = round;
  const perRequest = {
    cpuMs: ((cpuAfter - cpuBefore) * 1000) / requests,
    statements: (countedAfter.statements - countedBefore.statements) / requests,
    writes: (countedAfter.writes - countedBefore.writes) / requests,
  };
  await server.stop();
  const file = (await readdir(profiles.dir)).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no .cpuprofile in ${profiles.dir}`);
  const raw = await readFile(join(profiles.dir, file), 'utf8');
  if (options.cpuprofile !== undefined) await writeFile(options.cpuprofile, raw);
  const profile = JSON.parse(raw);
  const byCategory = categoryTotals(profile);
  const functions = topFunctions(profile, 20);
  const summary = `${options.row} on ${options.store}, ${connections} connections, ${seconds} s: ${round.rps.toFixed(0)} req/s, p99 ${round.p99} ms`;
  log(summary);
  log(
    `per request: ${perRequest.cpuMs.toFixed(2)} ms of the server's CPU, ` +
      `${perRequest.statements.toFixed(2)} statements, ${perRequest.writes.toFixed(2)} socket writes to the database`,
  );
  log('time on the CPU by where the code comes from (whole process life, idle left out):');
  for (const row of byCategory.rows)
    log(`  ${row.percent.toFixed(1).padStart(5)} %  ${row.category}`);
  log('functions with the most self time:');
  for (const row of functions) log(`  ${row.percent.toFixed(1).padStart(5)} %  ${row.name}`);
  if (options.svg !== undefined) {
    await writeFile(
      options.svg,
      flameGraphSvg(profile, { title: `payrail: ${options.row}`, subtitle: summary }),
    );
    log(`flame graph: ${options.svg}`);
  }
  if (options.json !== undefined) {
    await writeFile(
      options.json,
      `${JSON.stringify({ summary, round, perRequest, byCategory, functions }, null, 2)}\n`,
    );
  }
  await profiles.remove();
};

main()
  .catch((error) => {
    process.exitCode = 1;
    log(`profile failed: ${error?.stack ?? error}`);
  })
  .finally(cleanupAll);
