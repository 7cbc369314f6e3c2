/**
 * The law every request codec keeps, as one property for the codec test files: a generated
 * valid body decodes to a value of the codec's type, and that value decodes to itself.
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { decodeWith } from './codec-toolkit.js';

export type ValidBodies = ReadonlyArray<readonly [t.Mixed, fc.Arbitrary<object>]>;

export const describeValidBodies = (valid: ValidBodies): void =>
  describe.each(valid.map(([codec, arb]) => [codec.name, codec, arb] as const))(
    '%s: generated valid bodies',
    (_, codec, arb) => {
      it('decode to a value of the type, which decodes to itself', () => {
        fc.assert(
          fc.property(arb, (body) => {
            const once = decodeWith(codec)(body);
            if (E.isLeft(once)) throw new Error(`${JSON.stringify(body)}: ${once.left.message}`);
            expect(codec.is(once.right)).toBe(true);
            expect(decodeWith(codec)(once.right)).toEqual(once);
          }),
        );
      });
    },
  );
