/**
 * Issue 12, finding 6: webhook URLs were resolved (DNS) before the permission check, so a key
 * without `payment.webhook.write` could make the server look names up. The create-time guard
 * (with `resolveNames`, the host's choice to look names up at create) is now asked only for a
 * caller whose key holds the use case's permissions: the others are answered `forbidden` and
 * the resolver is never called. The same holds for a payout's and a batch's notify_url.
 * Through HTTP, on the memory store, with the real guard over a counting resolver.
 */
import type { IdGenerator } from '@payrail/core';
import { adjustableClock, createEngine, permissions } from '@payrail/engine';
import { createApp } from '@payrail/http';
import { createMemoryStore } from '@payrail/store-memory';
import { describe, expect, it } from 'vitest';
import type { HostResolver } from './guarded-lookup.js';
import { createOutboundUrlGuard } from './outbound-url-guard.js';

const operatorToken = 'operator-token-for-url-order-tests';

const countingIds = (): IdGenerator => {
  let n = 0;
  return {
    next: (prefix) => {
      n += 1;
      return `${prefix}_${n}`;
    },
  };
};

const world = async () => {
  const looked: string[] = [];
  const resolver: HostResolver = async (hostname) => {
    looked.push(hostname);
    return [{ address: '93.184.216.34', family: 4 }];
  };
  const app = createApp({
    engine: createEngine({
      store: createMemoryStore(),
      clock: adjustableClock({ now: () => 1_800_000_000 }),
      ids: countingIds(),
      settings: {
        environment: 'sandbox',
        checkoutBaseUrl: 'https://pay.merchant.com/checkout',
        allowInsecureWebhooks: false,
        keySecret: new Uint8Array(32).fill(5),
      },
      outboundUrlGuard: createOutboundUrlGuard({
        allowInsecure: false,
        resolver,
        resolveNames: true,
      }),
    }),
    adminToken: operatorToken,
    rateLimit: { requestsPerSecond: 0 },
  });
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = (await res.json()) as { code: number; message: string; data: unknown };
    return { status: res.status, code: answer.code, message: answer.message, data: answer.data };
  };
  const admin = async (method: string, path: string, body?: unknown) => {
    const answer = await call(method, path, operatorToken, body);
    expect(answer.code, `${method} ${path}`).toBe(0);
    return answer.data as Record<string, Record<string, string>>;
  };
  const { merchant } = await admin('POST', '/admin/merchants', {
    name: 'Acme',
    currencies: ['USD', 'USDT'],
  });
  const keyWith = async (held: readonly string[]) =>
    (
      await admin('POST', `/admin/accounts/${merchant?.account_id}/api-keys`, {
        permissions: held,
      })
    ).api_key?.token as string;
  return { call, keyWith, looked };
};

const forbidden = { status: 403, code: 61, message: 'forbidden', data: null };

/** Each route that takes a URL, and a body naming one the resolver would be asked about. */
const urlRoutes: ReadonlyArray<readonly [string, string, Record<string, unknown>]> = [
  ['POST', '/payment/webhooks', { url: 'https://hooks.probe.example/a', events: ['payout.*'] }],
  ['PATCH', '/payment/webhooks/wh_1', { url: 'https://hooks.probe.example/b' }],
  [
    'POST',
    '/payment/quickpayout',
    {
      currency: 'USD',
      amount: '25.00',
      method_id: 1,
      reference: 'probe-1',
      notify_url: 'https://hooks.probe.example/c',
    },
  ],
  ['PATCH', '/payment/payouts/po_1', { notify_url: 'https://hooks.probe.example/d' }],
  [
    'POST',
    '/payment/crypto-payouts/batches',
    { currency: 'USDT', method_id: 2, notify_url: 'https://hooks.probe.example/e' },
  ],
];

describe('webhook URLs are resolved before the permission check (issue 12, finding 6)', () => {
  it.each(urlRoutes)(
    '%s %s without the permission: forbidden, and no name is looked up',
    async (method, path, body) => {
      const w = await world();
      const readOnly = await w.keyWith(['payment.account.read', 'payment.webhook.read']);
      expect(await w.call(method, path, readOnly, body)).toEqual(forbidden);
      expect(w.looked).toEqual([]);
    },
  );

  it('a key that holds the permission still has the name judged', async () => {
    const w = await world();
    const writer = await w.keyWith([...permissions]);
    const [, path, body] = urlRoutes[0] ?? [];
    expect((await w.call('POST', path ?? '', writer, body)).code).toBe(0);
    expect(w.looked).toEqual(['hooks.probe.example']);
  });
});
