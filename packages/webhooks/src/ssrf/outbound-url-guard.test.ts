import { describe, expect, it } from 'vitest';
import type { HostResolver } from './guarded-lookup.js';
import { createOutboundUrlGuard } from './outbound-url-guard.js';

const resolver: HostResolver = async (hostname) => {
  if (hostname === 'hooks.merchant.com') return [{ address: '93.184.216.34', family: 4 }];
  if (hostname === 'rebind.attacker.com') return [{ address: '127.0.0.1', family: 4 }];
  throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
};

describe('createOutboundUrlGuard', () => {
  const guard = createOutboundUrlGuard({ allowInsecure: false, resolver, resolveNames: true });

  it('does no DNS unless told to: names are judged at delivery', async () => {
    let lookups = 0;
    const counting: HostResolver = async (hostname) => {
      lookups += 1;
      return resolver(hostname);
    };
    const lexical = createOutboundUrlGuard({ allowInsecure: false, resolver: counting });
    expect(await lexical.check('https://rebind.attacker.com/', 'notify_url')).toBeUndefined();
    expect(await lexical.check('https://hooks.merchant.com/', 'webhook')).toBeUndefined();
    expect(await lexical.check('https://127.0.0.1/', 'notify_url')).toMatchObject({
      message: 'invalid notify_url',
    });
    expect(await lexical.check('http://hooks.merchant.com/', 'webhook')).toMatchObject({
      message: 'invalid webhook url',
    });
    expect(lookups).toBe(0);
  });

  it('answers the catalogue error of the field the url came from', async () => {
    expect(await guard.check('https://127.0.0.1/', 'notify_url')).toMatchObject({
      key: 'invalid_notify_url',
      message: 'invalid notify_url',
      httpStatus: 400,
      code: 51,
    });
    expect(await guard.check('https://rebind.attacker.com/', 'webhook')).toMatchObject({
      message: 'invalid webhook url',
    });
    expect(await guard.check('https://rebind.attacker.com/')).toMatchObject({
      message: 'invalid webhook url',
    });
    expect(await guard.check('https://hooks.merchant.com/', 'notify_url')).toBeUndefined();
  });

  it('explains its verdict', async () => {
    expect(await guard.inspect('https://rebind.attacker.com/x')).toEqual({
      ok: false,
      reason: 'loopback',
      address: '127.0.0.1',
      detail: 'rebind.attacker.com resolves to 127.0.0.1 (loopback address)',
    });
    expect(await guard.inspect('https://8.8.8.8/')).toMatchObject({ ok: true, host: '8.8.8.8' });
  });

  it('accepts a name that does not resolve yet, unless told to refuse it', async () => {
    expect(await guard.check('https://soon.merchant.org/')).toBeUndefined();
    const strictDns = createOutboundUrlGuard({
      allowInsecure: false,
      resolver,
      resolveNames: true,
      refuseUnresolvable: true,
    });
    expect(await strictDns.inspect('https://soon.merchant.org/')).toMatchObject({
      ok: false,
      reason: 'unresolvable',
    });
    expect(await strictDns.check('https://hooks.merchant.com/')).toBeUndefined();
  });
});
