import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('docs/testing.md', () => {
  it('shows the engine example exactly as host-payouts.prop.test.ts runs it', () => {
    const example = readFileSync(new URL('host-payouts.prop.test.ts', import.meta.url), 'utf8');
    const doc = readFileSync(new URL('../../../docs/testing.md', import.meta.url), 'utf8');
    // The one difference: the test imports the package's own sources, a host the package.
    const asHostWritesIt = example.replace("from './index.js';", "from '@payrail/server';");
    expect(asHostWritesIt).not.toBe(example);
    expect(doc).toContain(`\`\`\`ts\n${asHostWritesIt}\`\`\`\n`);
    expect(doc).toContain('packages/server/src/host-payouts.prop.test.ts');
  });
});
