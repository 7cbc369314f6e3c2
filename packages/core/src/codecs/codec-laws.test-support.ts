/**
 * The laws every request codec keeps, as properties for the codec test files: a generated valid
 * body decodes to a value of the codec's type, and that value decodes to itself; the same body
 * with a NUL or an unpaired surrogate in any string fails with the field's 400 (issue 12, finding 5).
 */
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { withNonText } from '../testing/non-text.arbitraries.js';
import { decodeWith, holdsNonText } from './codec-toolkit.js';

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
      it("finding 5: with a NUL or an unpaired surrogate in any string, fail with the field's 400 or are dropped", () => {
        fc.assert(
          fc.property(withNonText(arb), (body) => {
            if (!holdsNonText(body)) return;
            const decoded = decodeWith(codec)(body);
            // Decoded only when the string sat in a member the codec drops: never handed on.
            if (E.isRight(decoded)) expect(holdsNonText(decoded.right)).toBe(false);
            // Else the field's own message: a format's (400/51), or an unknown value's (400/53).
            else expect(decoded.left.httpStatus).toBe(400);
          }),
        );
      });
    },
  );
