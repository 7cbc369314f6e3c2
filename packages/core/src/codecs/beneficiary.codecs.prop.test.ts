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

  it('with two profile fields broken, the earlier in the table answers', () => {
    // One broken value per key, in the table's order (zip's length rule needs no country).
    const broken: readonly (readonly [key: string, value: string, message: string])[] = [
      ['payee_id', '!', 'fields.payee_id invalid: expect ^[a-zA-Z0-9]{3,60}$'],
      ['language', 'eng', 'fields.language invalid: expect 2 letters'],
      ['country', 'xx', 'fields.country invalid: expect ISO-2 uppercase'],
      ['phone', '1', 'fields.phone invalid: expect ^(\\+?\\d{1,3}-)?\\d{4,12}$'],
      ['birthdate', '2023-02-29', 'fields.birthdate invalid: expect yyyy-MM-dd'],
      ['email', 'ann', 'fields.email invalid'],
      ['first_name', 'A1', "fields.first_name invalid: length 3-100, letters/'/-/space only"],
      ['last_name', 'B2', "fields.last_name invalid: length 3-100, letters/'/-/space only"],
      ['zip', '1', 'fields.zip invalid: length 3-30'],
      ['city', 'x', 'fields.city invalid: length 2-120'],
      ['state', 'y', 'fields.state invalid: length 2-60'],
      ['address', 'z', 'fields.address invalid: length 3-200'],
    ];
    const pairs = fc
      .tuple(fc.nat(broken.length - 1), fc.nat(broken.length - 1))
      .filter(([i, j]) => i < j);
    fc.assert(
      fc.property(validBeneficiaryFields, pairs, (fields, [i, j]) => {
        const [first, second] = [broken[i], broken[j]];
        if (first === undefined || second === undefined) throw new Error('no such rule');
        const input = { ...fields, [second[0]]: second[1], [first[0]]: first[1] };
        const result = decodeFields(input);
        expect(E.isLeft(result) && result.left.message).toBe(first[2]);
      }),
    );
  });

  it('decoding a decoded beneficiary is identity', () => {
    fc.assert(
      fc.property(validBeneficiary, fc.string(), (beneficiary, note) => {
        const once = decodeBeneficiary({
          ...beneficiary,
          note,
          fields: { ...beneficiary.fields, phone: null },
        });
        if (E.isLeft(once)) throw new Error(once.left.message);
        expect(decodeBeneficiary(once.right)).toEqual(once);
        expect(Beneficiary.is(once.right)).toBe(true);
      }),
    );
  });
});
