/**
 * fast-check arbitraries for crypto batch requests: valid EVM and TRON addresses from random
 * bytes, positive amounts at the crypto scale, and batches of unique items, so properties start
 * from what the codec must accept and break one rule at a time.
 */

import { bytesToHex } from '@noble/hashes/utils.js';
import fc from 'fast-check';
import { toEvmChecksumAddress, toTronAddress } from '../codecs/addresses.js';
import {
  type CryptoBatchItem,
  type CryptoNetworkCode,
  inferNetworkCode,
  maxBatchItems,
  receivingAddressKey,
} from '../codecs/crypto-batch.codecs.js';

/** A receiving account as a client sends it: network_code may be left out. */
export interface WireBeneficiaryAccount {
  readonly address: string;
  readonly network_code?: CryptoNetworkCode;
  readonly display_name?: string;
}

export interface WireCryptoBatchItem {
  readonly order_no: string;
  readonly amount: string;
  readonly beneficiary_account: WireBeneficiaryAccount;
}

const accountBytes = fc.uint8Array({ minLength: 20, maxLength: 20 });

/**
 * The EVM address of 20 bytes, in one of its accepted spellings.
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const evmAddressOf = (
  bytes: Uint8Array,
  spelling: 'checksum' | 'lower' | 'upper',
): string => {
  const hex = bytesToHex(bytes);
  if (spelling === 'lower') return `0x${hex}`;
  if (spelling === 'upper') return `0x${hex.toUpperCase()}`;
  return toEvmChecksumAddress(`0x${hex}`);
};

/**
 * The TRON address of a 20-byte account id (version byte 0x41).
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const tronAddressOf = (bytes: Uint8Array): string => {
  const payload = new Uint8Array(21);
  payload[0] = 0x41;
  payload.set(bytes, 1);
  return toTronAddress(payload);
};

export const evmAddress: fc.Arbitrary<string> = fc
  .tuple(
    accountBytes,
    fc.constantFrom<'checksum' | 'lower' | 'upper'>('checksum', 'checksum', 'lower', 'upper'),
  )
  .map(([bytes, spelling]) => evmAddressOf(bytes, spelling));

export const tronAddress: fc.Arbitrary<string> = accountBytes.map(tronAddressOf);

const displayName = fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined });

const accountWith = (
  address: string,
  network: CryptoNetworkCode | undefined,
  name: string | undefined,
): WireBeneficiaryAccount => ({
  address,
  ...(network === undefined ? {} : { network_code: network }),
  ...(name === undefined ? {} : { display_name: name }),
});

/**
 * A receiving account whose address fits its network_code, or no network_code at all.
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const beneficiaryAccount: fc.Arbitrary<WireBeneficiaryAccount> = fc.oneof(
  fc
    .tuple(evmAddress, fc.option(fc.constant('EVM' as const), { nil: undefined }), displayName)
    .map(([address, network, name]) => accountWith(address, network, name)),
  fc
    .tuple(tronAddress, fc.option(fc.constant('TRON' as const), { nil: undefined }), displayName)
    .map(([address, network, name]) => accountWith(address, network, name)),
);

/** The account as the codec answers it: network_code sent or inferred. */
export const decodedAccountOf = (account: WireBeneficiaryAccount) => ({
  ...account,
  network_code: account.network_code ?? inferNetworkCode(account.address),
});

/**
 * order_no: any string with a non-blank character.
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const orderNo: fc.Arbitrary<string> = fc
  .string({ minLength: 1, maxLength: 40 })
  .filter((s) => s.trim() !== '');

/**
 * A positive amount at scale 6 as a client may spell it ("12", "0.5", "3.250000").
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const cryptoAmount: fc.Arbitrary<string> = fc
  .tuple(fc.bigInt({ min: 1n, max: 10n ** 18n }), fc.boolean())
  .map(([units, padded]) => {
    const int = (units / 1_000_000n).toString();
    const frac = (units % 1_000_000n).toString().padStart(6, '0');
    const shown = padded ? frac : frac.replace(/0+$/, '');
    return shown === '' ? int : `${int}.${shown}`;
  });

/** Lengths biased to small batches, with the occasional large one up to 500. */
const batchLength = (max: number = maxBatchItems): fc.Arbitrary<number> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min: 1, max: Math.min(12, max) }) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max }) },
  );

/**
 * `n` items with unique order_no and unique receiving addresses (EVM case-insensitively).
 * @public listed in docs/testing.md for hosts' own properties.
 */
export const itemsOfLength = (n: number): fc.Arbitrary<WireCryptoBatchItem[]> =>
  fc
    .tuple(
      fc.uniqueArray(orderNo, { minLength: n, maxLength: n }),
      fc.uniqueArray(beneficiaryAccount, {
        minLength: n,
        maxLength: n,
        selector: (account) => receivingAddressKey(account.address),
      }),
      fc.array(cryptoAmount, { minLength: n, maxLength: n }),
    )
    .map(([orderNos, accounts, amounts]) =>
      orderNos.map((order_no, i) => ({
        order_no,
        amount: amounts[i] ?? '1',
        beneficiary_account: accounts[i] ?? { address: '' },
      })),
    );

export const validItems = (max: number = maxBatchItems): fc.Arbitrary<WireCryptoBatchItem[]> =>
  batchLength(max).chain(itemsOfLength);

/** A create body that must decode, with up to `maxItems` items (`minItems` at least). */
export const validCryptoBatchCreateOf = (maxItems: number = maxBatchItems, minItems = 1) =>
  fc.record(
    {
      currency: fc.constantFrom('USDT' as const, 'USDC' as const),
      method_id: fc.integer({ min: 1, max: 1_000_000 }),
      items: fc.integer({ min: minItems, max: maxItems }).chain(itemsOfLength),
      submit: fc.boolean(),
    },
    { requiredKeys: ['currency', 'method_id', 'items'] },
  );

/** A create body that must decode: mostly small batches, now and then up to 500 items. */
export const validCryptoBatchCreate = fc.oneof(
  { weight: 8, arbitrary: validCryptoBatchCreateOf(12) },
  { weight: 1, arbitrary: validCryptoBatchCreateOf(maxBatchItems) },
);
export type ValidCryptoBatchCreate =
  typeof validCryptoBatchCreate extends fc.Arbitrary<infer A> ? A : never;

/**
 * Addresses computed once for the machine's model tests, where batches reach 500 items many
 * times over: unique, valid, and cheap to draw.
 */
export const addressPool: readonly string[] = Array.from({ length: 1400 }, (_, i) => {
  const bytes = new Uint8Array(20);
  bytes[0] = i >> 8;
  bytes[1] = i & 0xff;
  bytes[19] = 7;
  return i % 2 === 0 ? evmAddressOf(bytes, 'checksum') : tronAddressOf(bytes);
});

/** An item drawn from the pool: order_no `o<i>`, address `addressPool[i]`. */
export const poolItem = (i: number, amount: string): CryptoBatchItem => ({
  order_no: `o${i}`,
  amount,
  beneficiary_account: {
    address: addressPool[i] ?? '',
    network_code: i % 2 === 0 ? 'EVM' : 'TRON',
  },
});
