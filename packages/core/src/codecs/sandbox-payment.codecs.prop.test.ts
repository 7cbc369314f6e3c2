import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { payTokenIdArb } from '../testing/acquiring.arbitraries.js';
import {
  decodeSandboxPayment,
  SandboxPaymentRequest,
  sandboxPaymentStatuses,
} from './sandbox-payment.codecs.js';

type Body = Record<string, unknown>;

/** Amounts greater than zero with up to the tokens' 6 decimals ("5", "0.5", "12.000100"). */
const amount = fc
  .tuple(fc.integer({ min: 0, max: 1_000_000_000 }), fc.stringMatching(/^[0-9]{0,6}$/))
  .filter(([whole, fraction]) => whole > 0 || /[1-9]/.test(fraction))
  .map(([whole, fraction]) => (fraction === '' ? `${whole}` : `${whole}.${fraction}`));

const validPayment: fc.Arbitrary<Body> = fc.record(
  {
    token_id: payTokenIdArb,
    amount,
    status: fc.constantFrom(...sandboxPaymentStatuses),
    tx_hash: fc.stringMatching(/^0x[0-9a-f]{1,64}$/),
    payment_id: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
  },
  { requiredKeys: ['token_id', 'amount', 'status'] },
);

const withValue = (body: Body, key: string, value: unknown): Body => {
  const { [key]: _, ...rest } = body;
  return value === undefined ? rest : { ...rest, [key]: value };
};

describe('sandbox payment properties', () => {
  it('decoding a decoded payment is identity (the amount written at the token scale)', () => {
    fc.assert(
      fc.property(validPayment, (body) => {
        const once = decodeSandboxPayment(body);
        if (E.isLeft(once)) throw new Error(once.left.message);
        expect(once.right.amount).toMatch(/^\d+\.\d{6}$/);
        expect(decodeSandboxPayment(once.right)).toEqual(once);
        expect(SandboxPaymentRequest.is(once.right)).toBe(true);
      }),
    );
  });

  it('with two rules broken, the earlier one in the stated order answers', () => {
    const rules = [
      { key: 'token_id', value: undefined, message: 'token_id required' },
      { key: 'amount', value: '0', message: 'amount must be greater than zero' },
      { key: 'status', value: 'completed', message: 'invalid status' },
      { key: 'tx_hash', value: 'has space', message: 'Validation Failed' },
    ] as const;
    const pairs = fc
      .tuple(fc.nat(rules.length - 1), fc.nat(rules.length - 1))
      .filter(([i, j]) => i < j);
    fc.assert(
      fc.property(validPayment, pairs, (body, [i, j]) => {
        const [first, second] = [rules[i], rules[j]];
        if (first === undefined || second === undefined) throw new Error('no such rule');
        const input = withValue(withValue(body, second.key, second.value), first.key, first.value);
        const result = decodeSandboxPayment(input);
        expect(E.isLeft(result) && result.left.message).toBe(first.message);
      }),
    );
  });
});
