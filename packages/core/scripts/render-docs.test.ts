import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  docsDir,
  errorsDocUrl,
  machines,
  machinesDocUrl,
  renderErrorsDoc,
  renderMachinesDoc,
} from './render-docs.js';

describe('generated docs', () => {
  it('docs/errors.md is the catalogue as it is now (run `pnpm run docs` after changing it)', () => {
    expect(readFileSync(errorsDocUrl, 'utf8')).toBe(renderErrorsDoc());
  });

  it('docs/machines.md shows each machine as it is defined now (run `pnpm run docs`)', () => {
    const current = readFileSync(machinesDocUrl, 'utf8');
    expect(current).toBe(renderMachinesDoc(current));
  });

  it('docs/machines.md has a diagram for every machine', () => {
    const current = readFileSync(machinesDocUrl, 'utf8');
    for (const name of Object.keys(machines)) {
      expect(current).toContain(`<!-- diagram:${name} -->`);
    }
  });

  it('docs/testing.md shows the host example exactly as its test file runs it', () => {
    const example = readFileSync(
      new URL('../src/testing/host-example.prop.test.ts', import.meta.url),
      'utf8',
    );
    const doc = readFileSync(new URL('testing.md', docsDir), 'utf8');
    expect(doc).toContain(`\`\`\`ts\n${example}\`\`\`\n`);
    expect(doc).toContain('packages/core/src/testing/host-example.prop.test.ts');
  });
});
