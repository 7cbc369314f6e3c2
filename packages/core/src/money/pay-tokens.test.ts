import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { specDocument } from '../../test/spec-documents.test-support.js';
import type { PayrailError } from '../errors/error-catalogue.js';
import {
  chainNetworks,
  isPayTokenId,
  type PayTokenId,
  payTokenFor,
  payTokenIds,
  payTokens,
  resolvePayToken,
} from './pay-tokens.js';

const interfaceDoc = specDocument('merchant-payment-interface.md');

/** The interface's "Known ids" table: currency -> token ids, read from the contract itself. */
const interfaceTokenTable = (): ReadonlyMap<string, readonly string[]> => {
  const spec = interfaceDoc();
  const lines = spec.split('\n');
  const header = lines.findIndex((line) => /^\|\s*Currency\s*\|\s*Token ids\s*\|$/.test(line));
  if (header < 0) throw new Error('the interface has no "| Currency | Token ids |" table');
  const table = new Map<string, readonly string[]>();
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const [currency = '', ids = ''] = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    table.set(
      currency,
      ids.split(',').map((id) => id.trim()),
    );
  }
  return table;
};

const rejected = (id: unknown, enabled?: readonly PayTokenId[]): PayrailError => {
  const result = resolvePayToken(id, enabled);
  if (E.isRight(result)) throw new Error(`expected ${String(id)} to be rejected`);
  return result.left;
};

describe('pay token ids', () => {
  it("are exactly the 12 ids of the interface's table", () => {
    const fromInterface = [...interfaceTokenTable().values()].flat();
    expect(fromInterface).toHaveLength(12);
    expect([...payTokenIds].sort()).toEqual([...fromInterface].sort());
  });

  it('carry the currency of their table row and the network before the underscore', () => {
    for (const [currency, ids] of interfaceTokenTable()) {
      for (const id of ids) {
        if (!isPayTokenId(id)) throw new Error(`${id} is not a pay token id`);
        const token = payTokens[id];
        expect(token).toEqual({
          id,
          network: id.slice(0, id.indexOf('_')),
          currency,
          addressFormat: token.addressFormat,
        });
      }
    }
  });

  it.each([
    ['TRON_USDT', 'TRON', 'USDT', 'tron'],
    ['ETH_USDT', 'ETH', 'USDT', 'evm'],
    ['BSC_USDT', 'BSC', 'USDT', 'evm'],
    ['MATIC_USDT', 'MATIC', 'USDT', 'evm'],
    ['ARBITRUM_USDT', 'ARBITRUM', 'USDT', 'evm'],
    ['SOL_USDT', 'SOL', 'USDT', 'solana'],
    ['ETH_USDC', 'ETH', 'USDC', 'evm'],
    ['BASE_USDC', 'BASE', 'USDC', 'evm'],
    ['BSC_USDC', 'BSC', 'USDC', 'evm'],
    ['MATIC_USDC', 'MATIC', 'USDC', 'evm'],
    ['ARBITRUM_USDC', 'ARBITRUM', 'USDC', 'evm'],
    ['SOL_USDC', 'SOL', 'USDC', 'solana'],
  ] as const)('%s lives on %s in %s with %s addresses', (id, network, currency, format) => {
    expect(payTokens[id]).toEqual({ id, network, currency, addressFormat: format });
    expect(chainNetworks[network].addressFormat).toBe(format);
  });

  it('isPayTokenId knows only the exact ids', () => {
    expect(isPayTokenId('TRON_USDT')).toBe(true);
    expect(isPayTokenId('tron_usdt')).toBe(false);
    expect(isPayTokenId('TRON_USDC')).toBe(false);
    expect(isPayTokenId('USDT')).toBe(false);
    expect(isPayTokenId(1)).toBe(false);
  });
});

describe('resolvePayToken', () => {
  it('resolves every known id when all are enabled', () => {
    for (const id of payTokenIds) {
      expect(resolvePayToken(id)).toEqual(E.right(payTokens[id]));
    }
  });

  it.each(['USDT', 'tron_usdt', 'Tron_USDT', 'TRON-USDT', 'TRON_USDT ', '', '_USDT', 'TRON_'])(
    'a malformed id %j is 400/51 invalid pay currency: <id>',
    (id) => {
      expect(rejected(id)).toMatchObject({
        key: 'invalid_pay_currency',
        message: `invalid pay currency: ${id}`,
        httpStatus: 400,
        code: 51,
      });
    },
  );

  it('a non-string id is invalid pay currency too', () => {
    expect(rejected(42).message).toBe('invalid pay currency: 42');
    expect(rejected(null).message).toBe('invalid pay currency: null');
  });

  it('an object whose toString is not a function is invalid pay currency, not a TypeError (found by fuzzing)', () => {
    const parsed: unknown = JSON.parse('{"toString": null}');
    expect(rejected(parsed)).toMatchObject({
      message: 'invalid pay currency: [object Object]',
      httpStatus: 400,
      code: 51,
    });
  });

  it.each([
    ['TRON_USDC', 'unsupported network/currency: TRON/USDC'],
    ['FOO_BAR', 'unsupported network/currency: FOO/BAR'],
    ['BASE_USDT', 'unsupported network/currency: BASE/USDT'],
    ['ETH_DAI', 'unsupported network/currency: ETH/DAI'],
  ])('a well-formed unknown id %s is 400/53 %s', (id, message) => {
    expect(rejected(id)).toMatchObject({
      key: 'network_currency_unsupported',
      message,
      httpStatus: 400,
      code: 53,
    });
  });

  it('a known id that is not enabled for the account is unsupported', () => {
    expect(rejected('ETH_USDT', ['TRON_USDT', 'SOL_USDC'])).toMatchObject({
      message: 'unsupported network/currency: ETH/USDT',
      code: 53,
    });
    expect(rejected('TRON_USDT', []).message).toBe('unsupported network/currency: TRON/USDT');
    expect(resolvePayToken('SOL_USDC', ['TRON_USDT', 'SOL_USDC'])).toEqual(
      E.right(payTokens.SOL_USDC),
    );
  });

  it('resolves exactly the enabled subset (property)', () => {
    fc.assert(
      fc.property(fc.subarray([...payTokenIds]), fc.constantFrom(...payTokenIds), (enabled, id) => {
        const result = resolvePayToken(id, enabled);
        expect(E.isRight(result)).toBe(enabled.includes(id));
      }),
    );
  });

  it('any lower-cased id is malformed, never unsupported (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...payTokenIds), (id) => {
        expect(rejected(id.toLowerCase()).key).toBe('invalid_pay_currency');
      }),
    );
  });
});

describe('payTokenFor', () => {
  it('finds the token of a network + currency pair, or nothing', () => {
    expect(payTokenFor('TRON', 'USDT')).toEqual(payTokens.TRON_USDT);
    expect(payTokenFor('BASE', 'USDC')).toEqual(payTokens.BASE_USDC);
    expect(payTokenFor('TRON', 'USDC')).toBeUndefined();
    expect(payTokenFor('tron', 'usdt')).toBeUndefined();
  });
});
