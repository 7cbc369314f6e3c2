/**
 * The trusted-proxy warning (issue 12, finding 1): with no trusted proxies the client address is
 * the socket's, so a reverse proxy on the same host makes every client 127.0.0.1 (API keys'
 * ip_whitelist and the upstream sources cannot tell them apart). The app tells the host once, at
 * the first request that carries a forwarded header from a peer it does not trust.
 */
import { describe, expect, it } from 'vitest';
import { createApp } from './create-app.js';
import { fakeEngine } from './fake-engine.test-support.js';

const from = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } } });

const appTelling = (told: string[], trustedProxies?: readonly string[]) =>
  createApp({
    engine: fakeEngine().engine,
    adminToken: 'operator-token-for-tests',
    ...(trustedProxies === undefined ? {} : { trustedProxies }),
    warnUntrustedForwarding: (peer) => told.push(peer),
  });

describe('forwarded headers from an untrusted proxy (issue 12, finding 1)', () => {
  it('warns once, naming the peer, at the first X-Forwarded-For or Forwarded from an untrusted peer', async () => {
    const told: string[] = [];
    const app = appTelling(told);
    await app.request('/openapi.json', {}, from('127.0.0.1'));
    expect(told).toEqual([]);
    await app.request(
      '/openapi.json',
      { headers: { 'X-Forwarded-For': '203.0.113.7' } },
      from('::ffff:127.0.0.1'),
    );
    expect(told).toEqual(['127.0.0.1']);
    for (const headers of [{ 'X-Forwarded-For': '198.51.100.1' }, { Forwarded: 'for=192.0.2.1' }]) {
      await app.request(
        '/upstream/acquiring/sandbox',
        { method: 'POST', headers },
        from('10.0.0.3'),
      );
    }
    expect(told).toEqual(['127.0.0.1']);
  });

  it('warns for Forwarded alone, and for a peer outside the trusted proxies', async () => {
    const told: string[] = [];
    const app = appTelling(told, ['10.0.0.1']);
    await app.request(
      '/openapi.json',
      { headers: { 'X-Forwarded-For': '1.2.3.4' } },
      from('10.0.0.1'),
    );
    expect(told).toEqual([]);
    await app.request('/openapi.json', { headers: { Forwarded: 'for=1.2.3.4' } }, from('10.0.0.2'));
    expect(told).toEqual(['10.0.0.2']);
  });
});
