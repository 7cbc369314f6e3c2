/**
 * Fuzzing the HTTP edge in process on the memory store (issue 13, point 3; docs/reliability.md). Every mutating route of the
 * table gets valid bodies and bodies mutated every way a client breaks one (wrong types, huge and
 * deep values, unicode, NUL and lone surrogates, numbers as amounts, NaN and exponents, duplicate
 * keys, broken JSON, wrong content types and encodings, empty and oversized bodies), invented ids
 * and a share of garbage credentials: `FUZZ_RUNS_IN_PROCESS` each through `app.request()` on the
 * memory store, `FUZZ_RUNS_STORES` each on PostgreSQL (embedded and the server), and
 * `FUZZ_RUNS_SOCKET` each over a real socket with a keep-alive connection. Every answer must be
 * the route's documented success or a documented 4xx with the catalogue's envelope, status and
 * code; never a 5xx, never a stack; and a refused request must store nothing (no committed write
 * through any port, and on memory the same record counts through the store's oracle). A failure
 * prints the request and the seed: `FUZZ_SEED=<seed>` replays the run.
 */
import { describe, expect, it } from 'vitest';
import { mutatingRoutes, tally } from './judge.test-support.js';
import { fuzzRoute, inProcess, record, runsInProcess, timeout } from './run.test-support.js';
import { buildWorld, freshMemoryStore, memoryCounts } from './world.test-support.js';

describe('the HTTP edge, fuzzed in process on the memory store', () => {
  it('has a fuzz target for every mutating route of the table, and no other', async () => {
    const world = await buildWorld(freshMemoryStore());
    expect(Object.keys(world.targets).sort()).toEqual([...mutatingRoutes].sort());
    expect(mutatingRoutes.length).toBeGreaterThanOrEqual(39);
  });

  it.each(mutatingRoutes)(
    `%s: ${runsInProcess} requests answer a documented success or 4xx, and refusals store nothing`,
    async (key) => {
      const started = performance.now();
      const memory = freshMemoryStore();
      const sent = await fuzzRoute(key, runsInProcess, memory, inProcess, memoryCounts(memory));
      tally.inProcess += sent;
      record('in process, memory', sent, started);
      expect(sent).toBe(runsInProcess);
    },
    timeout,
  );
});
