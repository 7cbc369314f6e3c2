import { defineConfig } from 'vitest/config';
import { sourceResolution } from '../../vitest.shared.js';

export default defineConfig({
  ...sourceResolution,
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    setupFiles: ['../core/test/fast-check.setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // `pnpm bench` only: `vitest run` never collects these.
    benchmark: { include: ['src/**/*.bench.ts'] },
  },
});
