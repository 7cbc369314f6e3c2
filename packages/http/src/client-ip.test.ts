import fc from 'fast-check';
import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import { addressList, clientIpResolver, normalizeAddress, unknownClient } from './client-ip.js';

const contextWith = (forwardedFor: string | undefined): Context =>
  ({
    req: { header: (name: string) => (name === 'X-Forwarded-For' ? forwardedFor : undefined) },
  }) as never;

describe('addressList', () => {
  it('matches single addresses and CIDR blocks of both families', () => {
    const listed = addressList(['192.0.2.1', '10.0.0.0/8', 'fd00::/8', '2001:db8::1']);
    expect(listed('192.0.2.1')).toBe(true);
    expect(listed('192.0.2.2')).toBe(false);
    expect(listed('10.255.0.1')).toBe(true);
    expect(listed('11.0.0.1')).toBe(false);
    expect(listed('fd12::1')).toBe(true);
    expect(listed('2001:db8::1')).toBe(true);
    expect(listed('2001:db8::2')).toBe(false);
    expect(listed('not-an-ip')).toBe(false);
  });

  it('refuses an entry that is not an address', () => {
    expect(() => addressList(['proxy.internal'])).toThrow(/not an IP address/);
  });
});

describe('normalizeAddress', () => {
  it('unwraps IPv4-mapped IPv6 and trims', () => {
    expect(normalizeAddress(' ::ffff:10.0.0.1 ')).toBe('10.0.0.1');
    expect(normalizeAddress('::FFFF:10.0.0.1')).toBe('10.0.0.1');
    expect(normalizeAddress('2001:db8::1')).toBe('2001:db8::1');
  });
});

describe('clientIpResolver', () => {
  it('answers the socket address without the header, and the farthest trusted hop when every hop is trusted', () => {
    const resolve = clientIpResolver(['10.0.0.0/8'], () => '10.0.0.1');
    expect(resolve(contextWith(undefined))).toBe('10.0.0.1');
    expect(resolve(contextWith('10.0.0.7, 10.0.0.8'))).toBe('10.0.0.7');
  });

  it('M3: a hop with a port is that address; a hop that names no address is unknown, never the entry a client wrote left of it', () => {
    const resolve = clientIpResolver(['127.0.0.1'], () => '127.0.0.1');
    // What a trusted proxy appends for the real client 203.0.113.9, behind what the client wrote.
    expect(resolve(contextWith('10.0.0.5, 203.0.113.9:4711'))).toBe('203.0.113.9');
    expect(resolve(contextWith('10.0.0.5, [2001:db8::9]:443'))).toBe('2001:db8::9');
    expect(resolve(contextWith('10.0.0.5,[2001:db8::9]'))).toBe('2001:db8::9');
    expect(resolve(contextWith('10.0.0.5, unknown'))).toBe(unknownClient);
    expect(resolve(contextWith('10.0.0.5, _hidden'))).toBe(unknownClient);
    expect(resolve(contextWith('garbage, also garbage'))).toBe(unknownClient);
    expect(resolve(contextWith('10.0.0.5, 127.0.0.1:80'))).toBe('10.0.0.5');
    // A whitelist of 10.0.0.5 matches none of those clients.
    const whitelisted = addressList(['10.0.0.5']);
    expect(
      ['203.0.113.9:4711', '[2001:db8::9]:443', 'unknown'].map((hop) =>
        whitelisted(resolve(contextWith(`10.0.0.5, ${hop}`))),
      ),
    ).toEqual([false, false, false]);
  });

  it('cannot be spoofed: whatever a client prepends, the answer is the hop the proxy saw (property)', () => {
    const ipv4 = fc.ipV4();
    fc.assert(
      fc.property(fc.array(ipv4, { maxLength: 5 }), ipv4, (spoofed, real) => {
        fc.pre(!real.startsWith('10.'));
        const resolve = clientIpResolver(['10.0.0.0/8'], () => '10.0.0.1');
        const header = [...spoofed, real, '10.9.9.9'].join(', ');
        expect(resolve(contextWith(header))).toBe(real);
      }),
    );
  });
});
