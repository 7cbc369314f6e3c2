import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import {
  brokenBeneficiaryAccounts,
  sandboxLookup,
  validBeneficiaryAccount,
} from '../testing/payout.arbitraries.js';
import { BeneficiaryAccount, decodeBeneficiaryAccount } from './beneficiary-account.codecs.js';
import { decodeWith } from './codec-toolkit.js';

const decode = (input: unknown) =>
  decodeBeneficiaryAccount(input, { lookupNetwork: sandboxLookup });

describe('beneficiary account properties', () => {
  it('every valid account of a sandbox network decodes to itself', () => {
    fc.assert(
      fc.property(validBeneficiaryAccount, (account) => {
        expect(decode(account)).toEqual(E.right(account));
        expect(BeneficiaryAccount.is(account)).toBe(true);
      }),
    );
  });

  for (const [rule, broken] of Object.entries(brokenBeneficiaryAccounts)) {
    it(`breaking only the ${rule} rule answers exactly its message`, () => {
      fc.assert(
        fc.property(broken, ({ input, message }) => {
          const result = decode(input);
          expect(E.isLeft(result) && result.left.message).toBe(message);
        }),
      );
    });
  }

  it('a network without a field schema answers "schema required"', () => {
    fc.assert(
      fc.property(validBeneficiaryAccount, (account) => {
        const result = decodeBeneficiaryAccount(account, {
          lookupNetwork: (code) => ({ code, fields: [] }),
        });
        expect(E.isLeft(result) && result.left.message).toBe('schema required');
      }),
    );
  });

  it('the shape codec accepts any account whose field values are strings, network unchecked', () => {
    fc.assert(
      fc.property(
        validBeneficiaryAccount,
        fc.dictionary(fc.string({ minLength: 1 }), fc.string()),
        (account, fields) => {
          const input = { ...account, network_code: 'ANY', fields };
          expect(decodeWith(BeneficiaryAccount)(input)).toEqual(E.right(input));
        },
      ),
    );
  });
});
