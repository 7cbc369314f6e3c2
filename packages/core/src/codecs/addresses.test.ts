import { describe, expect, it } from 'vitest';
import {
  base58Decode,
  base58Encode,
  isAddressOn,
  isEvmAddress,
  isSolanaAddress,
  isTronAddress,
  toEvmChecksumAddress,
  toTronAddress,
} from './addresses.js';

/** EIP-55's own test vectors ("Normal" and "All caps" sections of the EIP). */
const eip55Vectors = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];
const eip55AllCaps = [
  '0x52908400098527886E0F7030069857D2E4169EE7',
  '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
];
const eip55AllLower = [
  '0xde709f2102306220921060314715629080e2fb77',
  '0x27b1fdb04752bbc536007a920d24acb045561c26',
];

const flipCaseAt = (address: string, index: number): string => {
  const c = address.charAt(index);
  const flipped = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
  return address.slice(0, index) + flipped + address.slice(index + 1);
};

/** The USDT contract on TRON: a real, well-known base58check address. */
const tronUsdtContract = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const base58Alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

describe('EVM addresses (EIP-55)', () => {
  it.each(eip55Vectors)('accepts the EIP vector %s and computes the same checksum', (address) => {
    expect(isEvmAddress(address)).toBe(true);
    expect(toEvmChecksumAddress(address.toLowerCase())).toBe(address);
    expect(toEvmChecksumAddress(address.toUpperCase().replace('0X', '0x'))).toBe(address);
  });

  it.each([...eip55AllCaps, ...eip55AllLower])(
    'computes the EIP checksum %s, whose letters happen to be all one case',
    (address) => {
      expect(toEvmChecksumAddress(address.toLowerCase())).toBe(address);
      expect(isEvmAddress(address)).toBe(true);
    },
  );

  it('accepts all-lower and all-upper hex unchecked', () => {
    for (const address of eip55Vectors) {
      expect(isEvmAddress(address.toLowerCase())).toBe(true);
      expect(isEvmAddress(`0x${address.slice(2).toUpperCase()}`)).toBe(true);
    }
  });

  it('rejects any vector with the case of one letter flipped', () => {
    for (const address of eip55Vectors) {
      for (let i = 2; i < address.length; i++) {
        if (!/[a-fA-F]/.test(address.charAt(i))) continue;
        expect(isEvmAddress(flipCaseAt(address, i)), `${address} flipped at ${i}`).toBe(false);
      }
    }
  });

  it.each([
    ['no 0x prefix', '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['an upper-case 0X prefix', '0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['39 hex digits', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe'],
    ['41 hex digits', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAedd'],
    ['a non-hex digit', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg'],
    ['surrounding whitespace', ' 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['a TRON address', tronUsdtContract],
    ['the empty string', ''],
  ])('rejects %s', (_, value) => {
    expect(isEvmAddress(value)).toBe(false);
  });

  it('rejects non-strings', () => {
    expect(isEvmAddress(undefined)).toBe(false);
    expect(isEvmAddress(0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaedn)).toBe(false);
  });
});

describe('TRON addresses (base58check, version 0x41)', () => {
  it('accepts the USDT contract address', () => {
    expect(isTronAddress(tronUsdtContract)).toBe(true);
  });

  it('toTronAddress of its decoded payload gives the same address', () => {
    const bytes = base58Decode(tronUsdtContract);
    expect(bytes).toHaveLength(25);
    expect(bytes?.[0]).toBe(0x41);
    expect(toTronAddress(bytes?.slice(0, 21) ?? new Uint8Array())).toBe(tronUsdtContract);
  });

  it('rejects a changed last character', () => {
    expect(isTronAddress(`${tronUsdtContract.slice(0, -1)}u`)).toBe(false);
    expect(isTronAddress(`${tronUsdtContract.slice(0, -1)}7`)).toBe(false);
  });

  it('rejects every single-character substitution of the USDT contract address (exhaustive)', () => {
    const survivors: string[] = [];
    for (let i = 0; i < tronUsdtContract.length; i++) {
      for (const c of `${base58Alphabet}0OIl`) {
        if (c === tronUsdtContract.charAt(i)) continue;
        const changed = tronUsdtContract.slice(0, i) + c + tronUsdtContract.slice(i + 1);
        if (isTronAddress(changed)) survivors.push(changed);
      }
    }
    expect(survivors).toEqual([]);
  });

  it('rejects a well-checksummed payload with another version byte', () => {
    const bytes = base58Decode(tronUsdtContract)?.slice(0, 21) ?? new Uint8Array();
    for (const version of [0x00, 0x40, 0x42, 0xa0]) {
      const payload = Uint8Array.from(bytes);
      payload[0] = version;
      expect(isTronAddress(toTronAddress(payload))).toBe(false);
    }
  });

  it('rejects wrong lengths, even with a valid checksum', () => {
    const payload = base58Decode(tronUsdtContract)?.slice(0, 21) ?? new Uint8Array();
    expect(isTronAddress(toTronAddress(Uint8Array.from([...payload, 0])))).toBe(false);
    expect(isTronAddress(toTronAddress(payload.slice(0, 20)))).toBe(false);
    expect(isTronAddress(tronUsdtContract.slice(0, -1))).toBe(false);
    expect(isTronAddress(`${tronUsdtContract}1`)).toBe(false);
  });

  it('rejects characters outside base58, EVM addresses and non-strings', () => {
    expect(isTronAddress(`${tronUsdtContract.slice(0, -1)}0`)).toBe(false);
    expect(isTronAddress(eip55Vectors[0])).toBe(false);
    expect(isTronAddress(42)).toBe(false);
  });
});

describe('Solana addresses (base58 of 32 bytes)', () => {
  it.each([
    '11111111111111111111111111111111',
    'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
    'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
    'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  ])('accepts %s', (address) => {
    expect(isSolanaAddress(address)).toBe(true);
  });

  it.each([
    ['31 characters', '1111111111111111111111111111111'],
    ['a TRON address (25 bytes)', tronUsdtContract],
    ['a 0 (not base58)', 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNY0'],
    ['an EVM address', eip55Vectors[0]],
    ['45 characters', `${'2'.repeat(45)}`],
  ])('rejects %s', (_, value) => {
    expect(isSolanaAddress(value)).toBe(false);
  });
});

describe('base58', () => {
  const text = (s: string) => new TextEncoder().encode(s);

  it('matches the published vectors', () => {
    expect(base58Encode(text('Hello World!'))).toBe('2NEpo7TZRRrLZSi2U');
    expect(base58Encode(text('The quick brown fox jumps over the lazy dog.'))).toBe(
      'USm3fpXnKG5EUBx2ndxBDMPVciP5hGey2Jh4NDv6gmeo1LkMeiKrLJUUBk6Z',
    );
    expect(base58Encode(Uint8Array.from([0, 0, 0x28, 0x7f, 0xb4, 0xcd]))).toBe('11233QC4');
    expect(base58Decode('11233QC4')).toEqual(Uint8Array.from([0, 0, 0x28, 0x7f, 0xb4, 0xcd]));
  });

  it('keeps leading zero bytes as leading 1s', () => {
    expect(base58Encode(new Uint8Array())).toBe('');
    expect(base58Encode(Uint8Array.from([0]))).toBe('1');
    expect(base58Decode('111')).toEqual(Uint8Array.from([0, 0, 0]));
  });

  it('refuses characters outside the alphabet', () => {
    for (const c of ['0', 'O', 'I', 'l', '+', ' ']) {
      expect(base58Decode(`2${c}2`)).toBeUndefined();
    }
  });
});

describe('isAddressOn', () => {
  // The System Program's id: 32 zero bytes in base58.
  const solanaAddress = '11111111111111111111111111111111';
  const evmAddress = eip55Vectors[0] ?? '';

  it("accepts an address in its network's format and refuses the other formats", () => {
    expect(isAddressOn('ETH', evmAddress)).toBe(true);
    expect(isAddressOn('BASE', evmAddress)).toBe(true);
    expect(isAddressOn('TRON', tronUsdtContract)).toBe(true);
    expect(isAddressOn('SOL', solanaAddress)).toBe(true);
    expect(isAddressOn('TRON', evmAddress)).toBe(false);
    expect(isAddressOn('ETH', tronUsdtContract)).toBe(false);
    expect(isAddressOn('BSC', solanaAddress)).toBe(false);
    expect(isAddressOn('SOL', 42)).toBe(false);
  });
});
