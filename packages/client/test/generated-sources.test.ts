/**
 * The committed generated sources are what the current OpenAPI document generates (ADR 0048):
 * a route, a codec or a catalogue message changed without `pnpm --filter @payrail/client run
 * generate` fails here, naming the file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  generatedFiles,
  generatedSources,
  packageDir,
  servedDocument,
} from '../scripts/generated-sources.js';

const committed = (file: string): string => readFileSync(join(packageDir, file), 'utf8');

describe('the generated sources', () => {
  let document: Awaited<ReturnType<typeof servedDocument>>;
  let sources: Awaited<ReturnType<typeof generatedSources>>;

  beforeAll(async () => {
    document = await servedDocument();
    sources = await generatedSources(document);
  }, 120_000);

  it('are what the served /openapi.json generates now', () => {
    for (const [file, text] of Object.entries(sources)) {
      expect(
        committed(file) === text,
        `${file} is stale: run \`npx -y pnpm@10 --filter @payrail/client run generate\``,
      ).toBe(true);
    }
  });

  it('type the merchant paths only, and list their catalogue errors', () => {
    expect(sources[generatedFiles.api]).toContain("'/payment/quickpayout': {");
    expect(sources[generatedFiles.api]).not.toContain("'/admin/");
    expect(sources[generatedFiles.errors]).toContain(
      "payout_not_found: { status: 404, code: 65, message: 'payout not found' }",
    );
  });

  it('differ from the committed ones when the document changes', async () => {
    const paths = Object.fromEntries(
      Object.entries(document.paths ?? {}).filter(([path]) => path !== '/payment/quickpayout'),
    );
    const changed = await generatedSources({ ...document, paths });
    expect(changed[generatedFiles.api]).not.toBe(committed(generatedFiles.api));
    expect(changed[generatedFiles.api]).not.toContain("'/payment/quickpayout'");
  }, 120_000);
});
