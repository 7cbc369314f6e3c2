import { decodePayoutCreate } from '@payrail/core';
import { sandboxLookup, validPayoutCreate } from '@payrail/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('a host property-tests the quick payout codec', () => {
  it('decodes every valid body, and decodes its stored (JSON) decoded form to the same request', () => {
    const decode = (body: unknown) => decodePayoutCreate(body, { lookupNetwork: sandboxLookup });
    fc.assert(
      fc.property(validPayoutCreate, (body) => {
        const decoded = decode(body);
        if (decoded._tag === 'Left') throw new Error(decoded.left.message);
        const stored: unknown = JSON.parse(JSON.stringify(decoded.right));
        expect(decode(stored)).toEqual(decoded);
      }),
    );
  });
});
