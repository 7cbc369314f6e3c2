/**
 * What every package's vitest config shares: workspace packages resolve to their TypeScript
 * sources (the `@payrail/source` export condition), so tests never run against a stale dist/.
 * Hosts, and plain `node`, get dist/ through the `import` condition.
 */
const sourceConditions = ['@payrail/source', 'module', 'node', 'development|production'];

export const sourceResolution = {
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions, externalConditions: ['@payrail/source'] } },
};
