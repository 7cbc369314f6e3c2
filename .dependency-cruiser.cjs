// The package boundaries of docs/architecture.md, checked on the import graph (ADR 0022).
// Workspace imports (`@payrail/core`) resolve through the `@payrail/source` export condition to
// the package's TypeScript sources, so every rule speaks of paths under packages/.

/** Tests and benchmarks may reach further than the code they test (docs/architecture.md). */
const testFiles = '\\.(test|test-support|bench|bench-support)\\.ts$';

/**
 * A package of ours, by its sources or, when the importer does not depend on it and the name
 * cannot resolve, by its name. `names` is a regular expression alternative such as `core|engine`.
 */
const payrail = (names) => [`^packages/(${names})/`, `^@payrail/(${names})($|/)`];

/**
 * An npm package by its resolved path (pnpm's `node_modules/.pnpm/<name>@<version>/node_modules/`
 * included) or, when it cannot resolve, by its name. `names` is a regular expression alternative.
 */
const npm = (names) => [
  `(^|/)node_modules/(${names})/`,
  `(^|/)node_modules/\\.pnpm/[^/]+/node_modules/(${names})/`,
  `^(${names})($|/)`,
];

/** What the core may import from npm (its `dependencies` and `peerDependencies`). */
const coreDependencies = 'xstate|decimal\\.js|fp-ts|io-ts|@noble/hashes|fast-check';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-payrail-package',
      comment:
        'The core is the pure centre everything else points at; importing any other package of ours would turn a dependency outward.',
      severity: 'error',
      from: { path: '^packages/core/src/', pathNot: testFiles },
      to: { path: payrail('[^/]+'), pathNot: payrail('core') },
    },
    {
      name: 'core-imports-no-node-builtin',
      comment:
        'The core decides and the adapters act: it runs on any JavaScript runtime, so no fs, path, http, crypto or other node: module.',
      severity: 'error',
      from: { path: '^packages/core/src/', pathNot: testFiles },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-imports-only-its-dependencies',
      comment:
        'The core stays small and portable: a new npm package in it is a decision (ADR), made by adding it here and to its manifest; knip refuses a manifest entry nothing imports.',
      severity: 'error',
      from: { path: '^packages/core/src/', pathNot: testFiles },
      to: {
        dependencyTypes: [
          'npm',
          'npm-dev',
          'npm-optional',
          'npm-peer',
          'npm-bundled',
          'npm-no-pkg',
          'npm-unknown',
          'unknown',
        ],
        pathNot: [...npm(coreDependencies), ...payrail('[^/]+')],
      },
    },
    {
      name: 'core-fast-check-only-in-testing',
      comment:
        'fast-check is an optional peer for hosts that test: only the `@payrail/core/testing` entry (src/testing) may import it, or every host would need it.',
      severity: 'error',
      from: { path: '^packages/core/src/', pathNot: ['^packages/core/src/testing/', testFiles] },
      to: { path: npm('fast-check') },
    },
    {
      name: 'core-testing-entry-stays-apart',
      comment:
        'src/testing imports fast-check, so the rest of the core must not import it, even through a relative path.',
      severity: 'error',
      from: { path: '^packages/core/src/', pathNot: ['^packages/core/src/testing/', testFiles] },
      to: { path: '^packages/core/src/testing/' },
    },
    {
      name: 'engine-imports-only-core',
      comment:
        'The engine runs use cases over the ports the core declares; an adapter of its own would bypass the ports.',
      severity: 'error',
      from: { path: '^packages/engine/src/', pathNot: testFiles },
      to: { path: payrail('[^/]+'), pathNot: payrail('core|engine') },
    },
    {
      name: 'adapter-imports-only-core-and-engine',
      comment:
        'Adapters never import each other at run time, so each can be replaced or left out; their tests may, through dev dependencies.',
      severity: 'error',
      from: {
        path: '^packages/(store-memory|store-postgres|store-testkit|http|webhooks|sandbox|checkout)/src/',
        pathNot: testFiles,
      },
      to: { path: payrail('[^/]+'), pathNot: payrail('$1|core|engine') },
    },
    {
      name: 'client-imports-no-payrail-package',
      comment:
        'The merchant SDK speaks to payrail over HTTP only: its run-time code imports no package of ours (its tests and generator may, through dev dependencies; ADR 0048).',
      severity: 'error',
      from: { path: '^packages/client/src/', pathNot: testFiles },
      to: { path: payrail('[^/]+'), pathNot: payrail('client') },
    },
    {
      name: 'client-imports-only-the-web-platform-and-openapi-fetch',
      comment:
        'The merchant SDK runs in Node 20 and in browsers: no node: module, and of npm only openapi-fetch and its type helpers (ADR 0048).',
      severity: 'error',
      from: { path: '^packages/client/src/', pathNot: testFiles },
      to: {
        dependencyTypes: [
          'core',
          'npm',
          'npm-dev',
          'npm-optional',
          'npm-peer',
          'npm-no-pkg',
          'npm-unknown',
        ],
        pathNot: npm('openapi-fetch|openapi-typescript-helpers'),
      },
    },
    {
      name: 'only-server-imports-server',
      comment:
        'The server is the one place that knows every package and wires them; nothing may depend on the wiring.',
      severity: 'error',
      from: { path: '^packages/', pathNot: '^packages/server/' },
      to: { path: payrail('server') },
    },
    {
      name: 'only-tools-import-simulation',
      comment:
        'The simulation (packages/simulation) is a test tool that may import every package, as the server does; nothing may import it in turn.',
      severity: 'error',
      from: { path: '^packages/', pathNot: '^packages/simulation/' },
      to: { path: payrail('simulation') },
    },
    {
      name: 'no-circular-in-package',
      comment:
        'A cycle of run-time imports makes the result depend on which module loads first (an export read before it is set); type-only hops are erased by tsc and cannot.',
      severity: 'error',
      from: { path: '^packages/([^/]+)/src/' },
      to: {
        circular: true,
        path: '^packages/$1/src/',
        viaOnly: { dependencyTypesNot: ['type-only'] },
      },
    },
    {
      name: 'no-relative-import-across-packages',
      comment:
        'Another package is reached by its name and its exports map (`@payrail/core`), never by a relative path into its src/, which would skip its face and its build.',
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      to: { dependencyTypes: ['local'], path: '^packages/', pathNot: '^packages/$1/' },
    },
    {
      name: 'payrail-imports-resolve',
      comment:
        'The rules above match resolved paths; an import of ours that does not resolve would slip past them unseen.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, path: '^@payrail/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules stays in the graph (as leaves, not followed) so the npm rules see what is imported.
    exclude: { path: '^packages/[^/]+/(dist|coverage)/' },
    // Type-only imports cross boundaries as surely as value imports do.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      conditionNames: ['@payrail/source', 'import', 'types', 'node', 'default'],
      exportsFields: ['exports'],
      extensions: ['.ts', '.mts', '.js', '.mjs', '.d.ts', '.json'],
    },
  },
};
