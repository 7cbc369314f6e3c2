/**
 * The contract documents, for the tests that compare payrail with them. They live beside the
 * repository (`<repo>/../shared/spec`), which a clone made elsewhere does not have: there those
 * tests are skipped, with vitest's "skipped" count saying so. Under CI they always run, and a
 * missing document fails them, as the PostgreSQL suites fail without a server.
 */
import { existsSync, readFileSync } from 'node:fs';

const specDir = new URL('../../../../shared/spec/', import.meta.url);

const specPresent = existsSync(new URL('merchant-payment-interface.md', specDir));

/** Whether the tests that read the documents run: where they are, and always under CI. */
export const withSpec = specPresent || process.env.CI === 'true';

/** One document's text, read once; call it inside a test, never at module load. */
export const specDocument = (name: 'merchant-payment-interface.md' | 'decisions.md') => {
  let text: string | undefined;
  return (): string => {
    text ??= readFileSync(new URL(name, specDir), 'utf8');
    return text;
  };
};
