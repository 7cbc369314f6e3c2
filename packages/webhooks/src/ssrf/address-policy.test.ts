import { describe, expect, it } from 'vitest';
import { addressRefusal, classifyAddress, isForbiddenAddress } from './address-policy.js';

const strict = { allowInsecure: false };
const insecure = { allowInsecure: true };

describe('isForbiddenAddress, on what a resolver or a socket reports', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.20.0.2', 'private'],
    ['192.168.0.10', 'private'],
    ['fe80::1%eth0', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:a9fe:a9fe::', 'metadata'],
    ['64:ff9b:1::1', 'private'],
    ['2130706433', 'not_an_address'],
    ['localhost', 'not_an_address'],
    ['', 'not_an_address'],
  ])('refuses %s (%s)', (ip, reason) => {
    expect(isForbiddenAddress(ip, strict)).toBe(true);
    expect(addressRefusal(ip, strict)).toBe(reason);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows the public address %s', (ip) => {
    expect(isForbiddenAddress(ip, strict)).toBe(false);
    expect(isForbiddenAddress(ip, insecure)).toBe(false);
  });

  it('lets loopback, and only loopback, through in the insecure sandbox', () => {
    for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
      expect(isForbiddenAddress(ip, insecure), ip).toBe(false);
    }
    for (const ip of ['10.0.0.1', '169.254.169.254', '0.0.0.0', 'fc00::1', '100.64.0.1']) {
      expect(isForbiddenAddress(ip, insecure), ip).toBe(true);
    }
  });

  it('names no class for a public address', () => {
    expect(classifyAddress({ version: 4, value: 0x5db8d822n })).toBeUndefined();
    expect(classifyAddress({ version: 6, value: 1n })).toBe('loopback');
  });
});
