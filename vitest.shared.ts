import { availableParallelism } from 'node:os';

/**
 * What every package's vitest config shares: workspace packages resolve to their TypeScript
 * sources (the `@payrail/source` export condition), so tests never run against a stale dist/.
 * Hosts, and plain `node`, get dist/ through the `import` condition.
 */
const sourceConditions = ['@payrail/source', 'module', 'node', 'development|production'];

/**
 * The test workers' Node resolves with the SSR conditions (vitest passes them as `--conditions`),
 * so they leave out `module`: OpenTelemetry's `module` builds import files without their
 * extensions, which only a bundler resolves (ADR 0046); Node takes those packages' `import` or
 * `default` builds, as it does outside the tests.
 */
const nodeConditions = sourceConditions.filter((condition) => condition !== 'module');

export const sourceResolution = {
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: nodeConditions, externalConditions: ['@payrail/source'] } },
};

/**
 * Test files run on every core: vitest's default leaves one core to its main process, which on a
 * 2-core machine runs one file at a time while the other core idles (docs/testing.md, "Where the
 * time goes"). The packages run one after another (scripts/test.mjs), so a package's files have
 * the machine.
 */
export const testWorkers = availableParallelism();

/**
 * The `test` settings of a package's vitest config, with `overrides` for what differs. Property
 * tests run up to 1000 times (`pnpm test:deep`) on a 2-core machine, so a test or hook gets 60 s,
 * not the default 5 s.
 */
export const packageTests = (overrides: Record<string, unknown> = {}) => ({
  ...sourceResolution,
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    maxWorkers: testWorkers,
    setupFiles: ['../core/test/fast-check.setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // `pnpm bench` only: `vitest run` never collects these.
    benchmark: { include: ['src/**/*.bench.ts'] },
    ...overrides,
  },
});
