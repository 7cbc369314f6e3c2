/**
 * `pnpm --filter @payrail/client run generate`: writes the client's generated sources from the
 * current OpenAPI document (scripts/generated-sources.ts); run it after a change to the routes,
 * their codecs or the catalogue, then build.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedSources, packageDir } from './generated-sources.js';

const readOrEmpty = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

for (const [file, text] of Object.entries(await generatedSources())) {
  const path = join(packageDir, file);
  if (readOrEmpty(path) === text) {
    console.log(`${file}: unchanged`);
    continue;
  }
  writeFileSync(path, text);
  console.log(`${file}: written`);
}
