import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ipInRange, isIpAllowed, isIpRange, parseIpAddress, parseIpRange } from './ip-ranges.js';

describe('parseIpAddress', () => {
  it.each([
    ['0.0.0.0', 4, 0n],
    ['192.0.2.1', 4, 0xc0000201n],
    ['255.255.255.255', 4, 0xffffffffn],
    ['::', 6, 0n],
    ['::1', 6, 1n],
    ['2001:db8::1', 6, 0x20010db8000000000000000000000001n],
    ['2001:DB8:0:0:0:0:0:1', 6, 0x20010db8000000000000000000000001n],
    ['1:2:3:4:5:6:7::', 6, 0x00010002000300040005000600070000n],
    ['::1:2:3:4:5:6:7', 6, 0x00000001000200030004000500060007n],
    ['64:ff9b::192.0.2.1', 6, 0x0064ff9b0000000000000000c0000201n],
    ['1:2:3:4:5:6:192.0.2.1', 6, 0x000100020003000400050006c0000201n],
  ] as const)('%s', (text, version, value) => {
    expect(parseIpAddress(text)).toEqual({ version, value });
  });

  it('reads an IPv4-mapped IPv6 address as the IPv4 address', () => {
    expect(parseIpAddress('::ffff:192.0.2.1')).toEqual({ version: 4, value: 0xc0000201n });
    expect(parseIpAddress('::ffff:c000:201')).toEqual({ version: 4, value: 0xc0000201n });
  });

  it.each([
    '',
    'localhost',
    '1.2.3',
    '1.2.3.4.5',
    '256.0.0.1',
    '01.2.3.4',
    '1.2.3.-4',
    ' 1.2.3.4',
    '1.2.3.4/32',
    ':::',
    '1::2::3',
    ':1',
    '1:',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8::',
    '12345::',
    'g::1',
    'fe80::1%eth0',
    '1.2.3.4::',
    '::1.2.3',
    '::ffff:256.1.1.1',
  ])('%j is not an address', (text) => {
    expect(parseIpAddress(text)).toBeUndefined();
  });
});

describe('parseIpRange', () => {
  it('reads CIDR ranges, clearing host bits', () => {
    expect(parseIpRange('10.1.2.3/8')).toEqual({ version: 4, network: 0x0a000000n, prefix: 8 });
    expect(parseIpRange('0.0.0.0/0')).toEqual({ version: 4, network: 0n, prefix: 0 });
    expect(parseIpRange('2001:db8::/32')).toEqual({
      version: 6,
      network: 0x20010db8n << 96n,
      prefix: 32,
    });
  });

  it('reads a single address as its /32 or /128', () => {
    expect(parseIpRange('192.0.2.1')).toEqual({ version: 4, network: 0xc0000201n, prefix: 32 });
    expect(parseIpRange('::1')).toEqual({ version: 6, network: 1n, prefix: 128 });
  });

  it('reads an IPv4-mapped range as the IPv4 range', () => {
    expect(parseIpRange('::ffff:10.0.0.0/104')).toEqual({
      version: 4,
      network: 0x0a000000n,
      prefix: 8,
    });
    expect(parseIpRange('::ffff:0:0/95')).toMatchObject({ version: 6, prefix: 95 });
  });

  it.each([
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/',
    '10.0.0.0/08',
    '10.0.0.0/-1',
    '10.0.0.0/8/8',
    'x/8',
    '/8',
  ])('%j is not a range', (text) => {
    expect(parseIpRange(text)).toBeUndefined();
    expect(isIpRange(text)).toBe(false);
  });

  it('isIpRange holds for strings only', () => {
    expect(isIpRange('10.0.0.0/8')).toBe(true);
    expect(isIpRange(167772160)).toBe(false);
  });
});

describe('isIpAllowed', () => {
  const whitelist = ['203.0.113.0/24', '198.51.100.7', '2001:db8::/48'];

  it('an empty whitelist allows every address, even an unreadable one', () => {
    expect(isIpAllowed('203.0.113.9', [])).toBe(true);
    expect(isIpAllowed('unknown', [])).toBe(true);
  });

  it('allows an address inside one entry', () => {
    expect(isIpAllowed('203.0.113.255', whitelist)).toBe(true);
    expect(isIpAllowed('198.51.100.7', whitelist)).toBe(true);
    expect(isIpAllowed('2001:db8:0:ffff::1', whitelist)).toBe(true);
    expect(isIpAllowed('::ffff:203.0.113.1', whitelist)).toBe(true);
  });

  it('refuses an address outside every entry, or one that does not parse', () => {
    expect(isIpAllowed('203.0.114.1', whitelist)).toBe(false);
    expect(isIpAllowed('198.51.100.8', whitelist)).toBe(false);
    expect(isIpAllowed('2001:db9::1', whitelist)).toBe(false);
    expect(isIpAllowed('unknown', whitelist)).toBe(false);
    expect(isIpAllowed('1.2.3.4', ['not an entry'])).toBe(false);
  });

  it('never matches across versions', () => {
    expect(isIpAllowed('::', ['0.0.0.0/0'])).toBe(false);
    expect(isIpAllowed('1.2.3.4', ['::/0'])).toBe(false);
  });
});

const ipv4 = fc
  .tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255))
  .map((bytes) => ({ text: bytes.join('.'), value: bytes.reduce((v, b) => v * 256 + b, 0) }));

describe('properties', () => {
  it('an IPv4 address matches a range exactly when its first prefix bits agree', () => {
    fc.assert(
      fc.property(ipv4, ipv4, fc.integer({ min: 0, max: 32 }), (address, base, prefix) => {
        const parsed = parseIpAddress(address.text);
        const range = parseIpRange(`${base.text}/${prefix}`);
        if (parsed === undefined || range === undefined) return false;
        const shift = 32 - prefix;
        const agree =
          prefix === 0 ||
          Math.floor(address.value / 2 ** shift) === Math.floor(base.value / 2 ** shift);
        return ipInRange(parsed, range) === agree;
      }),
    );
  });

  it('the full and the compressed text of an IPv6 address read the same', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }), (groups) => {
        const full = groups.map((g) => g.toString(16)).join(':');
        const zeroRun = groups.indexOf(0);
        const address = parseIpAddress(full);
        if (address === undefined) return false;
        if (zeroRun < 0) return true;
        let end = zeroRun;
        while (end < 8 && groups[end] === 0) end++;
        const hex = (part: readonly number[]) => part.map((g) => g.toString(16)).join(':');
        const compressed = `${hex(groups.slice(0, zeroRun))}::${hex(groups.slice(end))}`;
        expect(parseIpAddress(compressed)).toEqual(address);
        return true;
      }),
    );
  });
});
