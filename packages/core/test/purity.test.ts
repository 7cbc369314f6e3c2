import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The core is pure: it decides, the adapters act. These guards read the source, so an I/O global
// or a package outside the core's dependencies cannot slip into packages/core/src unnoticed.
// Imports of Node built-ins and of our other packages are dependency-cruiser's to refuse
// (`pnpm run lint:boundaries`, ADR 0022); this test leaves them to it.
// src/testing (the `@payrail/core/testing` entry) is held to the same rules, except that it may
// import its optional peer fast-check; nothing outside it may, not even through a relative import.

const coreRoot = fileURLToPath(new URL('..', import.meta.url));
const srcRoot = join(coreRoot, 'src');
const testingRoot = join(srcRoot, 'testing');

const allowedDependencies = ['xstate', 'decimal.js', 'fp-ts', 'io-ts', '@noble/hashes'];
/** Optional peers that only the testing entry may import. */
const testingDependencies = ['fast-check'];

const isUnder = (dir: string, path: string): boolean => path.startsWith(`${dir}${sep}`);

const isTestFile = (path: string): boolean =>
  /\.test\.ts$|\.test-support\.ts$|\.bench\.ts$/.test(path);

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((dirent) => {
    const path = join(dir, dirent.name);
    if (dirent.isDirectory()) return sourceFiles(path);
    return dirent.name.endsWith('.ts') && !isTestFile(path) ? [path] : [];
  });

/** The code without comments, so a doc comment mentioning `process.` is not a finding. */
const withoutComments = (source: string): string =>
  source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

/** Every module specifier: static and type imports, re-exports, side-effect and dynamic imports. */
const importsOf = (source: string): string[] => {
  const code = withoutComments(source);
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...code.matchAll(pattern)].map((m) => m[1] ?? ''));
};

const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

const packageNameOf = (specifier: string): string =>
  specifier.startsWith('@')
    ? specifier.split('/').slice(0, 2).join('/')
    : (specifier.split('/')[0] ?? specifier);

/** Rules `core-imports-no-node-builtin` and `core-imports-no-payrail-package` of dependency-cruiser. */
const isLeftToDependencyCruiser = (specifier: string): boolean =>
  specifier.startsWith('node:') ||
  builtins.has(packageNameOf(specifier)) ||
  specifier.startsWith('@payrail/');

/** What is wrong with one import of the core file at `path`, or undefined when it is allowed. */
const importViolation = (path: string, specifier: string): string | undefined => {
  const inTesting = isUnder(testingRoot, path);
  if (specifier.startsWith('.')) {
    return !inTesting && isUnder(testingRoot, resolve(dirname(path), specifier))
      ? 'the testing entry, which needs fast-check'
      : undefined;
  }
  if (isLeftToDependencyCruiser(specifier)) return undefined;
  const name = packageNameOf(specifier);
  if (allowedDependencies.includes(name)) return undefined;
  if (testingDependencies.includes(name)) {
    return inTesting ? undefined : 'a testing-only package outside src/testing';
  }
  return 'a package outside the allowed dependencies';
};

const globalsUsed = (source: string): string[] => {
  const code = withoutComments(source);
  return [
    [/\bprocess\s*\./, 'process.'],
    [/\bBuffer\b/, 'Buffer'],
    [/\brequire\s*\(/, 'require('],
  ].flatMap(([pattern, name]) => ((pattern as RegExp).test(code) ? [name as string] : []));
};

const files = sourceFiles(srcRoot).map((path) => ({
  path,
  name: relative(coreRoot, path),
  source: readFileSync(path, 'utf8'),
}));

describe('the guards themselves', () => {
  it('see every kind of import', () => {
    const source = [
      "import { readFileSync } from 'node:fs';",
      "import type { Server } from 'http';",
      "import * as path from 'path';",
      "export { engine } from '@payrail/engine';",
      "import 'crypto';",
      "const lazy = await import('fs/promises');",
      "import {\n  a,\n  b,\n} from './local.js';",
      "import { sha256 } from '@noble/hashes/sha2.js';",
      "// import { nope } from 'node:os';",
    ].join('\n');
    expect(importsOf(source)).toEqual([
      'node:fs',
      'http',
      'path',
      '@payrail/engine',
      './local.js',
      '@noble/hashes/sha2.js',
      'crypto',
      'fs/promises',
    ]);
  });

  it('classify imports', () => {
    const codec = join(srcRoot, 'codecs', 'payout.codecs.ts');
    expect(importViolation(codec, 'left-pad')).toBe('a package outside the allowed dependencies');
    expect(importViolation(codec, 'fp-ts/lib/Either.js')).toBeUndefined();
    expect(importViolation(codec, '@noble/hashes/sha3.js')).toBeUndefined();
    expect(importViolation(codec, '../money/money.js')).toBeUndefined();
    // Left to dependency-cruiser, which sees resolved edges, re-exports and type imports alike.
    for (const specifier of ['node:fs', 'fs/promises', 'crypto', '@payrail/engine']) {
      expect(importViolation(codec, specifier)).toBeUndefined();
    }
  });

  it('allow fast-check in src/testing only, and keep the rest of src away from src/testing', () => {
    const codec = join(srcRoot, 'codecs', 'payout.codecs.ts');
    const index = join(srcRoot, 'index.ts');
    const arbitraries = join(testingRoot, 'payout.arbitraries.ts');
    const outsideTesting = 'a testing-only package outside src/testing';
    expect(importViolation(codec, 'fast-check')).toBe(outsideTesting);
    expect(importViolation(index, 'fast-check')).toBe(outsideTesting);
    expect(importViolation(join(srcRoot, 'testing-like', 'x.ts'), 'fast-check')).toBe(
      outsideTesting,
    );
    expect(importViolation(arbitraries, 'fast-check')).toBeUndefined();
    expect(importViolation(codec, '../testing/payout.arbitraries.js')).toBe(
      'the testing entry, which needs fast-check',
    );
    expect(importViolation(index, './testing/index.js')).toBe(
      'the testing entry, which needs fast-check',
    );
    expect(importViolation(arbitraries, './crypto-batch.arbitraries.js')).toBeUndefined();
    expect(importViolation(arbitraries, '../codecs/payout.codecs.js')).toBeUndefined();
    // The testing entry is otherwise as pure as the rest.
    expect(importViolation(arbitraries, 'left-pad')).toBe(
      'a package outside the allowed dependencies',
    );
  });

  it('see I/O globals in code but not in comments', () => {
    expect(globalsUsed('const port = process.env.PORT;')).toEqual(['process.']);
    expect(globalsUsed('const b = Buffer.from("x");')).toEqual(['Buffer']);
    expect(globalsUsed('const fs = require("fs");')).toEqual(['require(']);
    expect(
      globalsUsed('/** the engine will process. Buffer it. require(x) */\n// process.exit()'),
    ).toEqual([]);
    expect(globalsUsed("const url = 'https://x'; // process.env")).toEqual([]);
  });
});

describe('packages/core/src is pure', () => {
  it('has source files to check, the testing entry among them', () => {
    expect(files.map((f) => f.name)).toContain(join('src', 'money', 'money.ts'));
    expect(files.map((f) => f.name)).toContain(join('src', 'testing', 'payout.arbitraries.ts'));
  });

  it('imports nothing outside its dependencies, and fast-check only in src/testing', () => {
    const violations = files.flatMap(({ path, name, source }) =>
      importsOf(source).flatMap((specifier) => {
        const problem = importViolation(path, specifier);
        return problem === undefined ? [] : [`${name} imports '${specifier}': ${problem}`];
      }),
    );
    expect(violations).toEqual([]);
  });

  it('uses no process, Buffer or require', () => {
    const violations = files.flatMap(({ name, source }) =>
      globalsUsed(source).map((global) => `${name} uses ${global}`),
    );
    expect(violations).toEqual([]);
  });
});

describe('packages/core/package.json', () => {
  const manifest = JSON.parse(readFileSync(join(coreRoot, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
    peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    optionalDependencies?: Record<string, string>;
  };

  it(`depends only on ${[...allowedDependencies, ...testingDependencies].join(', ')}`, () => {
    const declared = Object.keys({
      ...manifest.dependencies,
      ...manifest.peerDependencies,
      ...manifest.optionalDependencies,
    });
    expect(
      declared.filter(
        (name) => !allowedDependencies.includes(name) && !testingDependencies.includes(name),
      ),
    ).toEqual([]);
  });

  it(`leaves ${testingDependencies.join(', ')} to hosts that test: an optional peer only`, () => {
    for (const name of testingDependencies) {
      expect(manifest.dependencies?.[name]).toBeUndefined();
      expect(manifest.optionalDependencies?.[name]).toBeUndefined();
      expect(manifest.peerDependenciesMeta?.[name]?.optional).toBe(true);
    }
  });
});
