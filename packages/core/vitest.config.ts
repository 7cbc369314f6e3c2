import { defineConfig } from 'vitest/config';
import { sourceResolution, testWorkers } from '../../vitest.shared.js';

export default defineConfig({
  ...sourceResolution,
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'],
    setupFiles: ['test/fast-check.setup.ts'],
    maxWorkers: testWorkers,
    // 1000 runs of a property take seconds on a 2-core machine; the default 5 s is a stopwatch.
    testTimeout: 60_000,
    // `pnpm bench` only: `vitest run` never collects these.
    benchmark: { include: ['src/**/*.bench.ts'] },
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      // src/testing is test tooling shipped to hosts (@payrail/core/testing): the tests run it
      // by construction, so its lines would say nothing about how well the domain is tested.
      exclude: [
        'src/**/*.test.ts',
        'src/**/*.test-support.ts',
        'src/**/*.bench.ts',
        'src/testing/**',
      ],
      reporter: ['text-summary', 'text'],
      thresholds: { lines: 90 },
    },
  },
});
