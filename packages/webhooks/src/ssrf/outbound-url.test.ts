import { describe, expect, it } from 'vitest';
import { allowedUrls, forbiddenUrls } from './forbidden-urls.test-support.js';
import { checkOutboundUrl } from './outbound-url.js';

const strict = { allowInsecure: false };
const insecure = { allowInsecure: true };

describe('checkOutboundUrl outside the sandbox', () => {
  it('has at least 50 forbidden targets, each listed once', () => {
    expect(forbiddenUrls.length).toBeGreaterThanOrEqual(50);
    expect(new Set(forbiddenUrls.map(([url]) => url)).size).toBe(forbiddenUrls.length);
  });

  it.each(forbiddenUrls)('refuses %s (%s)', (url, reason) => {
    const verdict = checkOutboundUrl(url, strict);
    expect(verdict).toMatchObject({ ok: false, reason });
  });

  it.each(allowedUrls)('accepts %s', (url) => {
    expect(checkOutboundUrl(url, strict)).toMatchObject({ ok: true });
  });

  it('answers the URL to connect to, normalised by the WHATWG parser', () => {
    const verdict = checkOutboundUrl('https://HOOKS.Merchant.com.:8443/p?q=1', strict);
    expect(verdict.ok && verdict.url.href).toBe('https://hooks.merchant.com.:8443/p?q=1');
    expect(verdict.ok && verdict.host).toBe('hooks.merchant.com');
    expect(verdict.ok && verdict.address).toBeUndefined();
    const literal = checkOutboundUrl('https://[::ffff:8.8.8.8]/', strict);
    expect(literal.ok && literal.address).toEqual({ version: 4, value: 0x08080808n });
  });

  it('explains a refusal in one line', () => {
    expect(checkOutboundUrl('https://0x7f000001/', strict)).toEqual({
      ok: false,
      reason: 'loopback',
      detail: 'loopback address 127.0.0.1',
    });
    expect(checkOutboundUrl('https://[fe80::1]/', strict)).toMatchObject({
      detail: 'link-local address fe80::1',
    });
  });

  it('refuses what is not a URL at all', () => {
    for (const text of [
      '',
      'hooks.merchant.com',
      'https://hooks merchant.com/',
      'https://a\u0000b.com',
    ]) {
      expect(checkOutboundUrl(text, strict)).toMatchObject({ ok: false, reason: 'malformed' });
    }
    expect(
      checkOutboundUrl(`https://hooks.merchant.com/${'a'.repeat(2048)}`, strict),
    ).toMatchObject({
      ok: false,
      reason: 'malformed',
    });
    expect(
      checkOutboundUrl(
        `https://${'a'.repeat(60)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com/`,
        strict,
      ),
    ).toMatchObject({ ok: false, reason: 'malformed' });
    expect(checkOutboundUrl('https://-bad.merchant.com/', strict)).toMatchObject({
      ok: false,
      reason: 'malformed',
    });
  });
});

describe('checkOutboundUrl in the sandbox with PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1', () => {
  it.each([
    'http://127.0.0.1:8080/hook',
    'http://127.1:8080/hook',
    'http://2130706433:8080/hook',
    'https://[::1]:8443/',
    'http://[::ffff:127.0.0.1]/',
    'http://localhost:3000/',
    'http://api.localhost/',
    'http://hooks.merchant.com/payrail',
    'https://hooks.merchant.com/payrail',
  ])('accepts http and loopback: %s', (url) => {
    expect(checkOutboundUrl(url, insecure)).toMatchObject({ ok: true });
  });

  it.each([
    ['http://10.0.0.1/', 'private'],
    ['http://192.168.1.10:8080/', 'private'],
    ['http://[fc00::1]/', 'unique_local'],
    ['http://169.254.169.254/', 'metadata'],
    ['http://metadata.google.internal/', 'metadata'],
    ['http://[fe80::1]/', 'link_local'],
    ['http://0.0.0.0:8080/', 'unspecified'],
    ['http://[::]:8080/', 'unspecified'],
    ['http://100.64.0.1/', 'cgnat'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://printer.local/', 'internal_name'],
    ['ftp://127.0.0.1/', 'scheme'],
    ['http://good@127.0.0.1/', 'credentials'],
  ] as const)('still refuses %s (%s)', (url, reason) => {
    expect(checkOutboundUrl(url, insecure)).toMatchObject({ ok: false, reason });
  });
});
