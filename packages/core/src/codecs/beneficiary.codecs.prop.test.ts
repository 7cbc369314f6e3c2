import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  blankOrMissing,
  brokenBeneficiaryFields,
  validBeneficiary,
  validBeneficiaryFields,
} from '../testing/payout.arbitraries.js';
import { Beneficiary, BeneficiaryFields, requireBeneficiaryFields } from './beneficiary.codecs.js';
import { decodeWith } from './codec-toolkit.js';

const decodeFields = decodeWith(BeneficiaryFields);
const decodeBeneficiary = decodeWith(Beneficiary);

describe('beneficiary properties', () => {
  it('every valid profile decodes to itself', () => {
    fc.assert(
      fc.property(validBeneficiaryFields, (fields) => {
        expect(decodeFields(fields)).toEqual(E.right(fields));
        expect(BeneficiaryFields.is(fields)).toBe(true);
      }),
    );
  });

  it('every valid {name, fields} beneficiary decodes to itself', () => {
    fc.assert(
      fc.property(validBeneficiary, (beneficiary) => {
        expect(decodeBeneficiary(beneficiary)).toEqual(E.right(beneficiary));
      }),
    );
  });

  for (const [rule, broken] of Object.entries(brokenBeneficiaryFields)) {
    it(`breaking only the ${rule} rule answers exactly its message`, () => {
      fc.assert(
        fc.property(broken, ({ input, message }) => {
          const result = decodeFields(input);
          expect(E.isLeft(result) && result.left.message).toBe(message);
          // The same profile inside a beneficiary answers the same message.
          const inline = decodeBeneficiary({ name: 'Ann Lee', fields: input });
          expect(E.isLeft(inline) && inline.left.message).toBe(message);
        }),
      );
    });
  }

  it('a missing name answers "beneficiary.name required"', () => {
    fc.assert(
      fc.property(validBeneficiary, blankOrMissing, (beneficiary, name) => {
        const result = decodeBeneficiary({ ...beneficiary, name });
        expect(E.isLeft(result) && result.left.message).toBe('beneficiary.name required');
      }),
    );
  });

  it('missing fields answer "beneficiary fields required"', () => {
    fc.assert(
      fc.property(validBeneficiary, fc.constantFrom(undefined, null), (beneficiary, fields) => {
        const result = decodeBeneficiary({ ...beneficiary, fields });
        expect(E.isLeft(result) && result.left.message).toBe('beneficiary fields required');
      }),
    );
  });

  it('a route requirement lists exactly the missing keys, in the route order', () => {
    const keys = ['language', 'country', 'phone', 'email', 'first_name', 'zip', 'city'] as const;
    fc.assert(
      fc.property(validBeneficiaryFields, fc.shuffledSubarray([...keys]), (fields, required) => {
        const missing = required.filter((key) => !(key in fields));
        const result = requireBeneficiaryFields(fields, required);
        if (missing.length === 0) expect(result).toEqual(E.right(fields));
        else
          expect(E.isLeft(result) && result.left.message).toBe(
            `beneficiary profile incomplete: missing ${missing.join(', ')}`,
          );
      }),
    );
  });
});
