/** Fixtures of the sandbox tests: well-formed addresses of each format and a sandbox event. */
import { base58Encode, toEvmChecksumAddress, toTronAddress } from '@payrail/core';

export const tronAddress = toTronAddress(Uint8Array.from([0x41, ...Array(20).fill(7)]));
export const evmAddress = toEvmChecksumAddress(`0x${'ab'.repeat(20)}`);
export const solanaAddress = base58Encode(Uint8Array.from(Array(32).fill(9)));

/** A sandbox payload event of a TRON_USDT payment to `tronAddress`. */
export const tronEvent = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  network: 'TRON',
  address: tronAddress,
  token_id: 'TRON_USDT',
  tx_hash: 'a1'.repeat(32),
  amount: '30',
  status: 'processing',
  ...overrides,
});
