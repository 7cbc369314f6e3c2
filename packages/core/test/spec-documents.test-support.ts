/**
 * The contract documents, for the tests that compare payrail with them. They live in the
 * repository (`docs/spec/`), so every clone has them and the tests always run.
 */
import { readFileSync } from 'node:fs';

const specDir = new URL('../../../docs/spec/', import.meta.url);

/** One document's text, read once; call it inside a test, never at module load. */
export const specDocument = (name: 'merchant-payment-interface.md' | 'decisions.md') => {
  let text: string | undefined;
  return (): string => {
    text ??= readFileSync(new URL(name, specDir), 'utf8');
    return text;
  };
};
