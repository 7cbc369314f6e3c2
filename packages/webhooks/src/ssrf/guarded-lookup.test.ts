import type { LookupAddress } from 'node:dns';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GuardedLookupOptions,
  guardedLookup,
  type HostResolver,
  OutboundTargetRefusedError,
  outboundRefusalOf,
  resolveAndCheck,
  systemResolver,
} from './guarded-lookup.js';
import { createOutboundUrlGuard } from './outbound-url-guard.js';

const fakeDns =
  (table: Record<string, readonly string[]>): HostResolver =>
  async (hostname) => {
    const addresses = table[hostname];
    if (addresses === undefined) {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    }
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const resolver = fakeDns({
  'hooks.merchant.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'rebind.attacker.com': ['127.0.0.1'],
  'mixed.attacker.com': ['93.184.216.34', '10.0.0.7'],
  'metadata.attacker.com': ['169.254.169.254'],
  'mapped.attacker.com': ['::ffff:127.0.0.1'],
  'v6.attacker.com': ['fe80::1%eth0'],
  'empty.attacker.com': [],
  'garbage.attacker.com': ['not-an-ip'],
});

/** The operating system's real answer for `localhost`, whatever name is asked. */
const systemLocalhost: HostResolver = () => systemResolver('localhost');

interface LookupResult {
  readonly error: NodeJS.ErrnoException | null;
  readonly address: string | LookupAddress[];
  readonly family: number | undefined;
}

const lookup = (hostname: string, options: GuardedLookupOptions, all = false, family = 0) =>
  new Promise<LookupResult>((resolve) => {
    guardedLookup(options)(hostname, { all, family }, (error, address, fam) =>
      resolve({ error, address, family: fam }),
    );
  });

describe('resolveAndCheck', () => {
  it('accepts a name that resolves only to public addresses, with every address', async () => {
    expect(await resolveAndCheck('hooks.merchant.com', { allowInsecure: false, resolver })).toEqual(
      {
        ok: true,
        host: 'hooks.merchant.com',
        addresses: [
          { address: '93.184.216.34', family: 4 },
          { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
        ],
      },
    );
  });

  it.each([
    ['rebind.attacker.com', 'loopback', '127.0.0.1'],
    ['mixed.attacker.com', 'private', '10.0.0.7'],
    ['metadata.attacker.com', 'metadata', '169.254.169.254'],
    ['mapped.attacker.com', 'loopback', '::ffff:127.0.0.1'],
    ['v6.attacker.com', 'link_local', 'fe80::1%eth0'],
    ['garbage.attacker.com', 'not_an_address', 'not-an-ip'],
  ])('refuses %s: it resolves to a %s address', async (host, reason, address) => {
    expect(await resolveAndCheck(host, { allowInsecure: false, resolver })).toEqual({
      ok: false,
      reason,
      address,
      detail: `${host} resolves to ${address} (${reason === 'not_an_address' ? 'not an address' : `${reason} address`})`,
    });
  });

  it('refuses what does not resolve, what has no address, and what resolves too slowly', async () => {
    const slow: HostResolver = () => new Promise(() => {});
    expect(
      await resolveAndCheck('nx.merchant.com', { allowInsecure: false, resolver }),
    ).toMatchObject({
      ok: false,
      reason: 'unresolvable',
    });
    expect(
      await resolveAndCheck('empty.attacker.com', { allowInsecure: false, resolver }),
    ).toMatchObject({
      ok: false,
      reason: 'unresolvable',
      detail: 'empty.attacker.com has no address',
    });
    expect(
      await resolveAndCheck('slow.merchant.com', {
        allowInsecure: false,
        resolver: slow,
        timeoutMs: 20,
      }),
    ).toMatchObject({
      ok: false,
      reason: 'unresolvable',
      detail: expect.stringContaining('timed out'),
    });
  });

  it('judges names and IP literals lexically before asking DNS', async () => {
    const never: HostResolver = () => Promise.reject(new Error('DNS must not be asked'));
    const options = { allowInsecure: false, resolver: never };
    expect(await resolveAndCheck('localhost', options)).toMatchObject({ reason: 'localhost' });
    expect(await resolveAndCheck('metadata.google.internal.', options)).toMatchObject({
      reason: 'metadata',
    });
    expect(await resolveAndCheck('[::1]', options)).toMatchObject({ reason: 'loopback' });
    expect(await resolveAndCheck('8.8.8.8', options)).toMatchObject({ ok: true });
  });

  it('lets loopback through only in the insecure sandbox mode', async () => {
    const options = { allowInsecure: true, resolver };
    expect(await resolveAndCheck('rebind.attacker.com', options)).toMatchObject({ ok: true });
    expect(await resolveAndCheck('mixed.attacker.com', options)).toMatchObject({
      reason: 'private',
    });
    expect(await resolveAndCheck('metadata.attacker.com', options)).toMatchObject({
      reason: 'metadata',
    });
  });
});

describe('guardedLookup, as dns.lookup', () => {
  it('fails the lookup with OutboundTargetRefusedError for a name resolving to a forbidden address', async () => {
    const result = await lookup('rebind.attacker.com', { allowInsecure: false, resolver });
    expect(result.error).toBeInstanceOf(OutboundTargetRefusedError);
    expect(result.error).toMatchObject({
      code: 'ERR_PAYRAIL_OUTBOUND_REFUSED',
      hostname: 'rebind.attacker.com',
      reason: 'loopback',
    });
    const all = await lookup('mixed.attacker.com', { allowInsecure: false, resolver }, true);
    expect(all.error).toMatchObject({ reason: 'private' });
    expect(all.address).toEqual([]);
  });

  it('answers like dns.lookup for an allowed name: one address, or all, or one family', async () => {
    const options = { allowInsecure: false, resolver };
    expect(await lookup('hooks.merchant.com', options)).toEqual({
      error: null,
      address: '93.184.216.34',
      family: 4,
    });
    expect(await lookup('hooks.merchant.com', options, true)).toMatchObject({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ],
    });
    expect(await lookup('hooks.merchant.com', options, false, 6)).toMatchObject({
      address: '2606:2800:220:1:248:1893:25c8:1946',
      family: 6,
    });
    const none = await lookup('rebind.attacker.com', { allowInsecure: true, resolver }, false, 6);
    expect(none.error).toMatchObject({ code: 'ENOTFOUND' });
  });

  it('refuses the real localhost: by name, and as what the system resolver makes of it', async () => {
    const byName = await lookup('localhost', { allowInsecure: false });
    expect(byName.error).toMatchObject({ reason: 'localhost' });
    expect((await lookup('localhost.', { allowInsecure: false })).error).toBeInstanceOf(
      OutboundTargetRefusedError,
    );
    // A public-looking name whose real getaddrinfo answer is localhost's: judged on the addresses.
    const resolved = await lookup('loopback.merchant.com', {
      allowInsecure: false,
      resolver: systemLocalhost,
    });
    expect(resolved.error).toMatchObject({ reason: 'loopback' });
    expect(resolved.error?.message).toMatch(
      /loopback\.merchant\.com resolves to (127\.0\.0\.1|::1)/,
    );
    expect(await resolveAndCheck('localhost', { allowInsecure: true })).toMatchObject({ ok: true });
  });
});

describe('a real request through the guarded lookup', () => {
  let server: Server;
  let port: number;
  const received: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (
    url: string,
    options: GuardedLookupOptions,
  ): Promise<{ status: number } | { error: unknown }> =>
    new Promise((resolve) => {
      const send = url.startsWith('https:') ? httpsRequest : httpRequest;
      const req = send(
        url,
        { method: 'POST', lookup: guardedLookup(options), timeout: 5000 },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        },
      );
      req.on('error', (error) => resolve({ error }));
      req.end('{}');
    });

  it('never reaches a receiver on 127.0.0.1 by name unless the sandbox allows insecure targets', async () => {
    received.length = 0;
    const targets = [
      ['localhost', { allowInsecure: false }],
      ['rebind.attacker.com', { allowInsecure: false, resolver }],
      ['loopback.merchant.com', { allowInsecure: false, resolver: systemLocalhost }],
    ] as const;
    for (const [host, options] of targets) {
      const refused = await post(`http://${host}:${port}/hook`, options);
      expect('error' in refused && outboundRefusalOf(refused.error)).toBeInstanceOf(
        OutboundTargetRefusedError,
      );
    }
    expect(received).toEqual([]);

    expect(await post(`http://localhost:${port}/ok`, { allowInsecure: true })).toEqual({
      status: 204,
    });
    expect(
      await post(`http://rebind.attacker.com:${port}/ok2`, { allowInsecure: true, resolver }),
    ).toEqual({
      status: 204,
    });
    expect(received).toEqual(['POST /ok', 'POST /ok2']);
  });

  it('refuses an https request before any TLS is spoken', async () => {
    received.length = 0;
    const refused = await post(`https://localhost:${port}/hook`, { allowInsecure: false });
    expect('error' in refused && outboundRefusalOf(refused.error)).toMatchObject({
      reason: 'localhost',
    });
    expect(received).toEqual([]);
  });

  it('closes the DNS-rebinding window: create time saw a public address, delivery sees loopback', async () => {
    received.length = 0;
    let calls = 0;
    const rebinding: HostResolver = async () => {
      calls += 1;
      return [{ address: calls === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
    };
    const guard = createOutboundUrlGuard({
      allowInsecure: false,
      resolver: rebinding,
      resolveNames: true,
    });
    expect(await guard.check(`https://flip.attacker.com:${port}/hook`, 'webhook')).toBeUndefined();
    const refused = await post(`https://flip.attacker.com:${port}/hook`, {
      allowInsecure: false,
      resolver: rebinding,
    });
    expect('error' in refused && outboundRefusalOf(refused.error)).toMatchObject({
      reason: 'loopback',
    });
    expect(received).toEqual([]);
  });
});

describe('outboundRefusalOf', () => {
  it('finds the refusal under the causes a client wraps it in', () => {
    const refusal = new OutboundTargetRefusedError(
      'x.com',
      'loopback',
      'x.com resolves to 127.0.0.1',
    );
    const wrapped = new TypeError('fetch failed', {
      cause: new Error('connect', { cause: refusal }),
    });
    expect(outboundRefusalOf(wrapped)).toBe(refusal);
    expect(outboundRefusalOf(new Error('ECONNREFUSED'))).toBeUndefined();
    expect(outboundRefusalOf(undefined)).toBeUndefined();
  });
});
