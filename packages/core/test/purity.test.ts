import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The core is pure: it decides, the adapters act. These guards read the source, so a Node
// built-in, an I/O global or a sibling package cannot slip into packages/core/src unnoticed.

const coreRoot = fileURLToPath(new URL('..', import.meta.url));
const srcRoot = join(coreRoot, 'src');

const allowedDependencies = ['xstate', 'decimal.js', 'fp-ts', 'io-ts', '@noble/hashes'];

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

/** What is wrong with one import of the core, or undefined when it is allowed. */
const importViolation = (specifier: string): string | undefined => {
  if (specifier.startsWith('.')) return undefined;
  if (
    specifier.startsWith('node:') ||
    builtins.has(specifier) ||
    builtins.has(packageNameOf(specifier))
  ) {
    return 'a Node built-in';
  }
  if (specifier.startsWith('@payrail/')) return 'another @payrail package';
  if (!allowedDependencies.includes(packageNameOf(specifier)))
    return 'a package outside the allowed dependencies';
  return undefined;
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
    expect(importViolation('node:fs')).toBe('a Node built-in');
    expect(importViolation('fs/promises')).toBe('a Node built-in');
    expect(importViolation('crypto')).toBe('a Node built-in');
    expect(importViolation('@payrail/engine')).toBe('another @payrail package');
    expect(importViolation('fast-check')).toBe('a package outside the allowed dependencies');
    expect(importViolation('fp-ts/lib/Either.js')).toBeUndefined();
    expect(importViolation('@noble/hashes/sha3.js')).toBeUndefined();
    expect(importViolation('../money/money.js')).toBeUndefined();
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
  it('has source files to check', () => {
    expect(files.map((f) => f.name)).toContain(join('src', 'money', 'money.ts'));
  });

  it('imports no Node built-in, no other @payrail package, nothing outside its dependencies', () => {
    const violations = files.flatMap(({ name, source }) =>
      importsOf(source).flatMap((specifier) => {
        const problem = importViolation(specifier);
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
  it(`depends only on ${allowedDependencies.join(', ')}`, () => {
    const manifest = JSON.parse(readFileSync(join(coreRoot, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    const declared = Object.keys({
      ...manifest.dependencies,
      ...manifest.peerDependencies,
      ...manifest.optionalDependencies,
    });
    expect(declared.filter((name) => !allowedDependencies.includes(name))).toEqual([]);
  });
});
