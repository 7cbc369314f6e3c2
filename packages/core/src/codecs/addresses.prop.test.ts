import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  base58Decode,
  base58Encode,
  isEvmAddress,
  isTronAddress,
  toEvmChecksumAddress,
  toTronAddress,
} from './addresses.js';

const base58Alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

const hex = (bytes: Uint8Array): string =>
  [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

const accountId = fc.uint8Array({ minLength: 20, maxLength: 20 });
const evmChecksummed = accountId.map((bytes) => toEvmChecksumAddress(`0x${hex(bytes)}`));
const tronAddress = accountId.map((bytes) => toTronAddress(Uint8Array.from([0x41, ...bytes])));

describe('EVM checksum properties', () => {
  it('every checksummed address of 20 random bytes is valid, in any input case', () => {
    fc.assert(
      fc.property(accountId, (bytes) => {
        const lower = `0x${hex(bytes)}`;
        const checksummed = toEvmChecksumAddress(lower);
        expect(isEvmAddress(checksummed)).toBe(true);
        expect(checksummed.toLowerCase()).toBe(lower);
        expect(toEvmChecksumAddress(`0x${hex(bytes).toUpperCase()}`)).toBe(checksummed);
      }),
    );
  });

  // Flipping a letter's case always breaks the checksum; the address is still accepted only
  // when the flip leaves all letters in one case, because all-lower and all-upper addresses
  // carry no checksum (EIP-55) and are taken as they are.
  it('flipping the case of one letter invalidates it, unless the result is one-case', () => {
    const withLetter = fc
      .tuple(evmChecksummed, fc.nat())
      .filter(([address]) => /[a-fA-F]/.test(address.slice(2)));
    fc.assert(
      fc.property(withLetter, ([address, pick]) => {
        const letters = [...address.slice(2)].flatMap((c, i) =>
          /[a-fA-F]/.test(c) ? [i + 2] : [],
        );
        const at = letters[pick % letters.length] ?? 2;
        const c = address.charAt(at);
        const flipped =
          address.slice(0, at) +
          (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) +
          address.slice(at + 1);
        const body = flipped.slice(2);
        const oneCase = body === body.toLowerCase() || body === body.toUpperCase();
        expect(isEvmAddress(flipped)).toBe(oneCase);
      }),
    );
  });
});

describe('TRON base58check properties', () => {
  it('every 0x41 + 20 random bytes payload gives a valid 34-character T address', () => {
    fc.assert(
      fc.property(tronAddress, (address) => {
        expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
        expect(isTronAddress(address)).toBe(true);
      }),
    );
  });

  // A single substitution changes the decoded 25 bytes; it survives only if the changed
  // payload's double SHA-256 happens to start with the changed checksum bytes, a 2^-32 chance
  // per case. Runs are seeded, so a pass here is reproducible, and the exhaustive test over a
  // real address in addresses.test.ts pins the same rule without any chance involved.
  it('any single-character substitution invalidates it (up to a 2^-32 checksum collision)', () => {
    fc.assert(
      fc.property(
        tronAddress,
        fc.nat(33),
        fc.constantFrom(...`${base58Alphabet}0OIl`),
        (address, at, replacement) => {
          fc.pre(address.charAt(at) !== replacement);
          const changed = address.slice(0, at) + replacement + address.slice(at + 1);
          expect(isTronAddress(changed)).toBe(false);
        },
      ),
    );
  });

  it('a checksummed payload with any version byte other than 0x41 is refused', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 255 }).filter((v) => v !== 0x41),
        accountId,
        (version, bytes) => {
          expect(isTronAddress(toTronAddress(Uint8Array.from([version, ...bytes])))).toBe(false);
        },
      ),
    );
  });
});

describe('base58 round-trips', () => {
  it('decode(encode(bytes)) is bytes, leading zeros included', () => {
    const bytes = fc
      .tuple(
        fc.uint8Array({ maxLength: 4 }).map((b) => b.map(() => 0)),
        fc.uint8Array({ maxLength: 40 }),
      )
      .map(([zeros, rest]) => Uint8Array.from([...zeros, ...rest]));
    fc.assert(
      fc.property(bytes, (b) => {
        expect(base58Decode(base58Encode(b))).toEqual(b);
      }),
    );
  });

  it('encode(decode(s)) is s for any string over the alphabet', () => {
    const s = fc.string({ unit: fc.constantFrom(...base58Alphabet), maxLength: 50 });
    fc.assert(
      fc.property(s, (value) => {
        const decoded = base58Decode(value);
        expect(decoded).toBeDefined();
        expect(base58Encode(decoded ?? new Uint8Array())).toBe(value);
      }),
    );
  });
});
