import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// What the core may import is dependency-cruiser's to check (`core-imports-only-its-dependencies`,
// `core-fast-check-only-in-testing`) and knip refuses a dependency nothing imports. Neither reads
// how a dependency is declared: fast-check must stay an optional peer, or every host installs it.

interface Manifest {
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>;
}

// JSON.parse answers `any`: this is our own manifest, read as the few fields checked here.
const manifest = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
) as Manifest;

describe('packages/core/package.json', () => {
  it('leaves fast-check to hosts that test: an optional peer, never a dependency', () => {
    expect(manifest.dependencies?.['fast-check']).toBeUndefined();
    expect(manifest.optionalDependencies?.['fast-check']).toBeUndefined();
    expect(manifest.peerDependencies?.['fast-check']).toBeDefined();
    expect(manifest.peerDependenciesMeta?.['fast-check']?.optional).toBe(true);
  });
});
