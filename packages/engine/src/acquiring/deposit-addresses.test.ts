import {
  type ChainNetwork,
  canonicalAddress,
  chainNetworks,
  isEvmAddress,
  isSolanaAddress,
  isTronAddress,
  toEvmChecksumAddress,
} from '@payrail/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { depositAddressOf } from './deposit-addresses.store.js';
import { sandboxTxHashOf } from './sandbox-payment-event.policy.js';

const networks = Object.keys(chainNetworks) as ChainNetwork[];

const isValidOn = (network: ChainNetwork, address: string): boolean => {
  switch (chainNetworks[network].addressFormat) {
    case 'evm':
      return isEvmAddress(address) && toEvmChecksumAddress(address) === address;
    case 'tron':
      return isTronAddress(address);
    case 'solana':
      return isSolanaAddress(address);
  }
};

describe('deposit addresses', () => {
  it('are valid in the network format, deterministic, and differ between orders', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string({ minLength: 1 }),
        fc.constantFrom(...networks),
        (a, b, network) => {
          const address = depositAddressOf(a, network);
          expect(isValidOn(network, address)).toBe(true);
          expect(depositAddressOf(a, network)).toBe(address);
          if (a !== b) expect(depositAddressOf(b, network)).not.toBe(address);
        },
      ),
    );
  });

  it('pins the derivation, so addresses handed out stay stable across releases', () => {
    expect(depositAddressOf('ord_1', 'ETH')).toBe(depositAddressOf('ord_1', 'BSC'));
    expect(depositAddressOf('ord_1', 'TRON')).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(depositAddressOf('ord_1', 'ETH').toLowerCase()).toBe(
      '0x341fb35e2c016788d2106af198a41b2e61581e5d',
    );
  });

  it('compares EVM spellings case-insensitively and base58 exactly', () => {
    const evm = depositAddressOf('ord_1', 'ETH');
    expect(canonicalAddress('ETH', evm.toLowerCase())).toBe(evm);
    expect(canonicalAddress('ETH', `0x${evm.slice(2).toUpperCase()}`)).toBe(evm);
    expect(canonicalAddress('ETH', 'not-an-address')).toBe('not-an-address');
    const tron = depositAddressOf('ord_1', 'TRON');
    expect(canonicalAddress('TRON', tron.toLowerCase())).toBe(tron.toLowerCase());
  });

  it('sandbox transaction hashes look like the network’s own', () => {
    expect(sandboxTxHashOf('ETH', 'p1')).toMatch(/^0x[0-9a-f]{64}$/);
    expect(sandboxTxHashOf('TRON', 'p1')).toMatch(/^[0-9a-f]{64}$/);
    expect(sandboxTxHashOf('SOL', 'p1')).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/);
    expect(sandboxTxHashOf('ETH', 'p2')).not.toBe(sandboxTxHashOf('ETH', 'p1'));
  });
});
