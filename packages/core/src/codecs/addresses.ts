/**
 * Receiving address formats: EVM (0x + 40 hex, EIP-55 checksummed when mixed case) and TRON
 * (base58check, version byte 0x41, 21-byte payload). Pure: hashing comes from @noble/hashes.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { type ChainNetwork, chainNetworks } from '../money/pay-tokens.js';

const evmShape = /^0x[0-9a-fA-F]{40}$/;

/** The EIP-55 checksummed form of a 40-hex-digit address (with 0x). */
export const toEvmChecksumAddress = (address: string): string => {
  const lower = address.slice(2).toLowerCase();
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  let out = '0x';
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charAt(i);
    out += Number.parseInt(hash.charAt(i), 16) >= 8 ? c.toUpperCase() : c;
  }
  return out;
};

/** All-lower or all-upper hex is accepted as is; mixed case must carry a valid checksum. */
export const isEvmAddress = (value: unknown): value is string => {
  if (typeof value !== 'string' || !evmShape.test(value)) return false;
  const hex = value.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  return toEvmChecksumAddress(value) === value;
};

const base58Alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export const base58Decode = (value: string): Uint8Array | undefined => {
  let n = 0n;
  for (const char of value) {
    const digit = base58Alphabet.indexOf(char);
    if (digit < 0) return undefined;
    n = n * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (n > 0n) {
    bytes.unshift(Number(n % 256n));
    n /= 256n;
  }
  for (const char of value) {
    if (char !== '1') break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
};

export const base58Encode = (bytes: Uint8Array): string => {
  let n = 0n;
  for (const b of bytes) n = n * 256n + BigInt(b);
  let out = '';
  while (n > 0n) {
    out = base58Alphabet.charAt(Number(n % 58n)) + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
};

const checksumOf = (payload: Uint8Array): Uint8Array => sha256(sha256(payload)).slice(0, 4);

/** Base58check of a 21-byte payload (version byte + 20-byte account id). */
export const toTronAddress = (payload: Uint8Array): string => {
  const full = new Uint8Array(payload.length + 4);
  full.set(payload);
  full.set(checksumOf(payload), payload.length);
  return base58Encode(full);
};

export const isTronAddress = (value: unknown): value is string => {
  if (typeof value !== 'string' || value.length !== 34 || !value.startsWith('T')) return false;
  const bytes = base58Decode(value);
  if (bytes === undefined || bytes.length !== 25 || bytes[0] !== 0x41) return false;
  const payload = bytes.slice(0, 21);
  const expected = checksumOf(payload);
  return expected.every((b, i) => b === bytes[21 + i]);
};

/** Solana addresses: base58 of a 32-byte public key. */
export const isSolanaAddress = (value: unknown): value is string => {
  if (typeof value !== 'string' || value.length < 32 || value.length > 44) return false;
  return base58Decode(value)?.length === 32;
};

/** Whether `value` is an address in the format of `network` (EVM, TRON or Solana). */
export const isAddressOn = (network: ChainNetwork, value: unknown): value is string => {
  switch (chainNetworks[network].addressFormat) {
    case 'evm':
      return isEvmAddress(value);
    case 'tron':
      return isTronAddress(value);
    case 'solana':
      return isSolanaAddress(value);
  }
};

/**
 * How a provider's spelling of an address is compared with ours: EVM hex is case-insensitive, so
 * it is checksummed first; base58 addresses are compared exactly.
 */
export const canonicalAddress = (network: ChainNetwork, address: string): string =>
  chainNetworks[network].addressFormat === 'evm' && evmShape.test(address)
    ? toEvmChecksumAddress(address)
    : address;
