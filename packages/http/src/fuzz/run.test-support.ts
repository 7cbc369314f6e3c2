/**
 * Runs the HTTP-edge fuzzer on one route (docs/reliability.md): a fresh world on the store, the
 * route's requests sent `runs` times, each answer judged, and refusals checked to store nothing.
 * The counts come from the environment (`FUZZ_RUNS_IN_PROCESS`, `FUZZ_RUNS_STORES`,
 * `FUZZ_RUNS_SOCKET`, `FUZZ_SEED`); the test file ends with its figures and the summary line.
 */
import http from 'node:http';
import type { Store } from '@payrail/core';
import fc from 'fast-check';
import { afterAll } from 'vitest';
import { judge, routeOf, summaryLine, tally } from './judge.test-support.js';
import { describeRequest, type FuzzRequest, fuzzRequests } from './mutations.test-support.js';
import { buildWorld, writeWatchedStore } from './world.test-support.js';

const countFrom = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a whole number`);
  return value;
};
export const runsInProcess = countFrom('FUZZ_RUNS_IN_PROCESS', 4_000);
export const runsOnStores = countFrom('FUZZ_RUNS_STORES', 500);
export const runsOverSocket = countFrom('FUZZ_RUNS_SOCKET', 1_000);
/**
 * `FUZZ_SEED` when set: `pnpm test` sets it from the commit (scripts/test.mjs), so each commit
 * sends other requests, the same ones every time it is run, and a red build replays; otherwise a
 * new seed each run (printed, so a failure replays).
 */
const seed =
  process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;

/** Long enough for 10,000 requests on a shared 2-core machine. */
export const timeout = 600_000;

const stats = new Map<string, { runs: number; ms: number }>();

afterAll(() => {
  for (const [name, { runs, ms }] of stats) {
    console.info(`fuzz ${name}: ${runs} requests in ${(ms / 1000).toFixed(1)} s`);
  }
  console.info(`fuzz seed ${seed} (FUZZ_SEED=${seed} replays)`);
  console.info(summaryLine());
});

export const record = (name: string, runs: number, started: number): void => {
  const seen = stats.get(name) ?? { runs: 0, ms: 0 };
  stats.set(name, { runs: seen.runs + runs, ms: seen.ms + (performance.now() - started) });
};

export interface Sent {
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
  /** Over a socket: the answer's `Connection` header. */
  readonly connection?: string;
}

/**
 * Fuzzes the route `key` in a fresh world on `store`, sending each request with `send`; `counts`
 * (memory) reads the store's record counts through its oracle.
 */
export const fuzzRoute = async (
  key: string,
  runs: number,
  opened: Store,
  send: (world: Awaited<ReturnType<typeof buildWorld>>, request: FuzzRequest) => Promise<Sent>,
  counts?: () => Promise<string>,
): Promise<number> => {
  const watched = writeWatchedStore(opened);
  const world = await buildWorld(watched.store);
  const target = world.targets[key];
  if (target === undefined) throw new Error(`no fuzz target for ${key}`);
  const route = routeOf(key);
  const [method, template] = key.split(' ') as [string, string];
  tally.endpoints.add(key);
  let sent = 0;
  await fc.assert(
    fc.asyncProperty(fuzzRequests({ ...target, method, template }), async (request) => {
      const before = counts === undefined ? undefined : await counts();
      watched.takeWrites();
      if (process.env.FUZZ_TRACE !== undefined && sent >= Number(process.env.FUZZ_TRACE))
        console.log('TRACE', sent, describeRequest(request));
      const answer = await send(world, request);
      sent += 1;
      const refused = answer.status < 200 || answer.status >= 300;
      const wrote = refused ? watched.takeWrites() : [];
      if (refused && counts !== undefined) {
        const after = await counts();
        if (after !== before) wrote.push(`record counts ${before} -> ${after}`);
      }
      judge(route, request, answer, wrote);
    }),
    {
      numRuns: runs,
      seed,
      endOnFailure: true,
      // The request is in the error, cut short; fast-check's own report would print it whole.
      reporter: (details) => {
        if (!details.failed) return;
        const cause = details.errorInstance instanceof Error ? details.errorInstance.message : '';
        throw new Error(
          `${key}: failed at run ${details.numRuns} (FUZZ_SEED=${details.seed}, path ${details.counterexamplePath})\n${cause}`,
        );
      },
    },
  );
  await opened.close();
  return sent;
};

export const inProcess = async (
  world: Awaited<ReturnType<typeof buildWorld>>,
  request: FuzzRequest,
): Promise<Sent> => {
  const res = await world.h.app.request(request.path, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    text: await res.text(),
  };
};

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
afterAll(() => agent.destroy());

/** One request on a kept-alive connection to `base`; the answer as the client reads it. */
export const overSocket =
  (base: URL) =>
  (request: FuzzRequest): Promise<Sent> =>
    new Promise((resolve, reject) => {
      const body =
        request.body === undefined
          ? undefined
          : typeof request.body === 'string'
            ? Buffer.from(request.body, 'utf8')
            : Buffer.from(request.body);
      const req = http.request(
        {
          agent,
          host: base.hostname,
          port: base.port,
          method: request.method,
          path: request.path,
          headers: {
            ...request.headers,
            ...(body === undefined ? {} : { 'Content-Length': String(body.length) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: res.headers['content-type'] ?? null,
              text: Buffer.concat(chunks).toString('utf8'),
              connection: res.headers.connection ?? '',
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', (error) =>
        reject(new Error(`${error.message} on ${describeRequest(request)}`, { cause: error })),
      );
      req.end(body);
    });
