import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { operatorTokenMatches } from './operator-token.js';

describe('operatorTokenMatches', () => {
  it('matches the configured token only', () => {
    expect(operatorTokenMatches('s3cret', 's3cret')).toBe(true);
    expect(operatorTokenMatches('s3cret', 's3cre')).toBe(false);
    expect(operatorTokenMatches('s3cret', 's3cret ')).toBe(false);
    expect(operatorTokenMatches('s3cret', undefined)).toBe(false);
    expect(operatorTokenMatches('', '')).toBe(false);
  });

  it('agrees with string equality (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string(), (configured, presented) => {
        expect(operatorTokenMatches(configured, presented)).toBe(configured === presented);
      }),
    );
  });
});
