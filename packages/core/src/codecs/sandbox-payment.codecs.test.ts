import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import type { PayrailError } from '../errors/error-catalogue.js';
import { decodeSandboxPayment, SandboxPaymentRequest } from './sandbox-payment.codecs.js';

const valid = { token_id: 'TRON_USDT', amount: '12.5', status: 'confirmed' };

const errorOf = (input: unknown): PayrailError => {
  const result = decodeSandboxPayment(input);
  if (E.isRight(result)) throw new Error(`expected an error, got ${JSON.stringify(result.right)}`);
  return result.left;
};

describe('sandbox payment body', () => {
  it('decodes a payment with the amount at the token scale and leaves unsent optionals out', () => {
    expect(decodeSandboxPayment(valid)).toEqual(
      E.right({ token_id: 'TRON_USDT', amount: '12.500000', status: 'confirmed' }),
    );
  });

  it('keeps tx_hash and payment_id when sent, and reads blank ones as not sent', () => {
    expect(
      decodeSandboxPayment({ ...valid, status: 'processing', tx_hash: '0xabc', payment_id: 'p-1' }),
    ).toEqual(
      E.right({
        token_id: 'TRON_USDT',
        amount: '12.500000',
        status: 'processing',
        tx_hash: '0xabc',
        payment_id: 'p-1',
      }),
    );
    expect(decodeSandboxPayment({ ...valid, tx_hash: ' ', payment_id: null })).toEqual(
      E.right({ token_id: 'TRON_USDT', amount: '12.500000', status: 'confirmed' }),
    );
  });

  it('answers each broken rule with its catalogue message, first rule first', () => {
    const cases: readonly (readonly [unknown, string, number, number])[] = [
      [undefined, 'request required', 400, 51],
      [[valid], 'request required', 400, 51],
      [{ ...valid, token_id: undefined, amount: 'x' }, 'token_id required', 400, 51],
      [{ ...valid, token_id: 'USDT' }, 'invalid pay currency: USDT', 400, 51],
      [{ ...valid, token_id: 'TRON_USDC' }, 'unsupported network/currency: TRON/USDC', 400, 53],
      [{ ...valid, amount: '' }, 'amount required', 400, 51],
      [
        { ...valid, amount: '1.0000001' },
        'amount must be a decimal string with at most 6 decimal places',
        400,
        51,
      ],
      [
        { ...valid, amount: 5 },
        'amount must be a decimal string with at most 6 decimal places',
        400,
        51,
      ],
      [{ ...valid, amount: '0' }, 'amount must be greater than zero', 400, 51],
      [{ ...valid, status: undefined }, 'status required', 400, 51],
      [{ ...valid, status: 'completed' }, 'invalid status', 400, 51],
      [{ ...valid, tx_hash: 7 }, 'Validation Failed', 400, 51],
      [{ ...valid, tx_hash: 'has space' }, 'Validation Failed', 400, 51],
      [{ ...valid, tx_hash: 'a'.repeat(129) }, 'Validation Failed', 400, 51],
      [{ ...valid, payment_id: 'no/slash' }, 'Validation Failed', 400, 51],
      [{ ...valid, payment_id: 'p'.repeat(65) }, 'Validation Failed', 400, 51],
    ];
    for (const [input, message, httpStatus, code] of cases) {
      const error = errorOf(input);
      expect({ message: error.message, httpStatus: error.httpStatus, code: error.code }).toEqual({
        message,
        httpStatus,
        code,
      });
    }
  });

  it('`is` holds for decoded bodies only', () => {
    const decoded = decodeSandboxPayment(valid);
    if (E.isLeft(decoded)) throw new Error('expected success');
    expect(SandboxPaymentRequest.is(decoded.right)).toBe(true);
    expect(SandboxPaymentRequest.is(valid)).toBe(false);
  });
});
