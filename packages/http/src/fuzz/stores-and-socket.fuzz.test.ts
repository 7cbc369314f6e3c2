/**
 * Fuzzing the HTTP edge on PostgreSQL and over a socket (issue 13, point 3; docs/reliability.md):
 * every mutating route gets `FUZZ_RUNS_STORES` fuzzed requests through `app.request()` on the
 * embedded PostgreSQL and on the PostgreSQL server (the store is where a NUL or an unpaired
 * surrogate used to answer 500), and `FUZZ_RUNS_SOCKET` over a real socket (`serve` on port 0,
 * one keep-alive connection), judged as in `in-process.fuzz.test.ts`. A failure prints the request and `FUZZ_SEED`.
 */
import { describe, expect, it } from 'vitest';
import { serve } from '../serve.js';
import { storesUnderTest } from '../stores.test-support.js';
import { mutatingRoutes, tally } from './judge.test-support.js';
import {
  fuzzRoute,
  inProcess,
  overSocket,
  record,
  runsOnStores,
  runsOverSocket,
  timeout,
} from './run.test-support.js';
import { freshMemoryStore, memoryCounts } from './world.test-support.js';

const postgres = storesUnderTest.filter((under) => under.name !== 'memory');

describe.each(postgres.map((under) => [under.name, under] as const))(
  'the HTTP edge, fuzzed in process on %s',
  (name, under) => {
    it.each(mutatingRoutes)(
      `%s: ${runsOnStores} requests answer a documented success or 4xx, and refusals store nothing`,
      async (key) => {
        const started = performance.now();
        const sent = await fuzzRoute(key, runsOnStores, await under.open(), inProcess);
        tally.inProcess += sent;
        record(`in process, ${name}`, sent, started);
        expect(sent).toBe(runsOnStores);
      },
      timeout,
    );
  },
);

describe('the HTTP edge, fuzzed over a socket (keep-alive), memory', () => {
  it.each(mutatingRoutes)(
    `%s: ${runsOverSocket} requests answer a documented success or 4xx, and refusals store nothing`,
    async (key) => {
      const started = performance.now();
      const memory = freshMemoryStore();
      let server: Awaited<ReturnType<typeof serve>> | undefined;
      const sent = await fuzzRoute(
        key,
        runsOverSocket,
        memory,
        async (world, request) => {
          server ??= await serve(world.h.app, { port: 0, hostname: '127.0.0.1' });
          return overSocket(new URL(server.url))(request);
        },
        memoryCounts(memory),
      );
      await server?.close();
      tally.socket += sent;
      record('over a socket, memory', sent, started);
      expect(sent).toBe(runsOverSocket);
    },
    timeout,
  );
});
