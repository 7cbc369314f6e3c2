/**
 * The guard at create time, as a merchant meets it: through HTTP (`app.request()`), on the
 * memory store, with the engine wired as the server wires it.
 */
import { type IdGenerator, isNotifyUrl, sandboxNetworkSchemas } from '@payrail/core';
import { adjustableClock, createEngine, type EngineDeps, permissions } from '@payrail/engine';
import { createApp } from '@payrail/http';
import { createMemoryStore } from '@payrail/store-memory';
import { describe, expect, it } from 'vitest';
import { allowedUrls, forbiddenUrls } from './forbidden-urls.test-support.js';
import type { HostResolver } from './guarded-lookup.js';
import { createOutboundUrlGuard } from './outbound-url-guard.js';

const operatorToken = 'operator-token-for-ssrf-tests';

const countingIds = (): IdGenerator => {
  const counts = new Map<string, number>();
  return {
    next: (prefix) => {
      const n = (counts.get(prefix) ?? 0) + 1;
      counts.set(prefix, n);
      return `${prefix}_${n}`;
    },
  };
};

/** hooks.* and bücher.* are public; rebind.attacker.com is loopback; the rest does not resolve. */
const resolver: HostResolver = async (hostname) => {
  if (hostname === 'rebind.attacker.com') return [{ address: '127.0.0.1', family: 4 }];
  if (hostname === 'inside.attacker.com') return [{ address: '10.1.2.3', family: 4 }];
  if (hostname.endsWith('merchant.com')) return [{ address: '93.184.216.34', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

interface Answer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers by path, as a merchant reads JSON.
  readonly body: { readonly code: number; readonly message: string; readonly data: any };
}

const world = async (
  options: {
    readonly guard?: boolean;
    readonly allowInsecure?: boolean;
    readonly resolveNames?: boolean;
  } = {},
) => {
  const allowInsecure = options.allowInsecure ?? false;
  const store = createMemoryStore();
  const deps: EngineDeps = {
    store,
    clock: adjustableClock({ now: () => 1_800_000_000 }),
    ids: countingIds(),
    settings: {
      environment: 'sandbox',
      checkoutBaseUrl: 'https://pay.merchant.com/checkout',
      allowInsecureWebhooks: allowInsecure,
      keySecret: new Uint8Array(32).fill(7),
    },
    ...(options.guard === false
      ? {}
      : {
          outboundUrlGuard: createOutboundUrlGuard({
            allowInsecure,
            resolver,
            resolveNames: options.resolveNames ?? false,
          }),
        }),
  };
  const app = createApp({
    engine: createEngine(deps),
    adminToken: operatorToken,
    rateLimit: { requestsPerSecond: 0 },
  });
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await app.request(path, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  };
  const admin = async (method: string, path: string, body?: unknown) => {
    const answer = await call(method, path, operatorToken, body);
    expect(answer.body, `${method} ${path}`).toMatchObject({ code: 0 });
    return answer.body.data;
  };
  for (const schema of sandboxNetworkSchemas) {
    await admin('POST', '/admin/payout-networks', { code: schema.code, fields: schema.fields });
  }
  await admin('POST', '/admin/payout-methods', {
    method_id: 1,
    name: 'Wallet payout',
    currency_type: 'fiat',
    currencies: ['USD'],
    network_codes: ['WALLETA', 'WALLETB'],
  });
  await admin('POST', '/admin/payout-methods', {
    method_id: 2,
    name: 'Stablecoin payout',
    currency_type: 'crypto',
    currencies: ['USDT'],
    network_codes: ['EVM', 'TRON'],
  });
  await admin('POST', '/admin/routes', {
    currency: 'USD',
    method_id: 1,
    min_amount: '1.00',
    max_amount: '100000.00',
    fixed_fee: '0.50',
    channel_account_id: 'sandbox_usd',
  });
  await admin('POST', '/admin/routes', {
    currency: 'USDT',
    method_id: 2,
    min_amount: '1.000000',
    max_amount: '1000000.000000',
    fixed_fee: '1.000000',
    channel_account_id: 'sandbox_usdt',
  });
  const { merchant } = await admin('POST', '/admin/merchants', {
    name: 'Acme',
    currencies: ['USD', 'USDT'],
  });
  const { api_key } = await admin('POST', `/admin/accounts/${merchant.account_id}/api-keys`, {
    permissions: [...permissions],
  });
  const token = api_key.token as string;
  let references = 0;
  return {
    store,
    post: (path: string, body: unknown) => call('POST', path, token, body),
    patch: (path: string, body: unknown) => call('PATCH', path, token, body),
    get: (path: string) => call('GET', path, token),
    payout: (notifyUrl: string, extra: Record<string, unknown> = {}) => {
      references += 1;
      return {
        currency: 'USD',
        amount: '25.00',
        method_id: 1,
        reference: `ref${references}`,
        notify_url: notifyUrl,
        beneficiary: { name: 'Jane Doe', fields: { payee_id: `payee${references}` } },
        beneficiary_account: {
          network_code: 'WALLETA',
          fields: { walleta_email: 'jane@example.com' },
        },
        ...extra,
      };
    },
  };
};

const refusal = (answer: Answer) => ({
  status: answer.status,
  code: answer.body.code,
  message: answer.body.message,
});

const invalidWebhookUrl = { status: 400, code: 51, message: 'invalid webhook url' };
const invalidNotifyUrl = { status: 400, code: 51, message: 'invalid notify_url' };

describe('POST /payment/webhooks refuses a forbidden url', () => {
  it.each(forbiddenUrls)('%s (%s)', async (url) => {
    const w = await world();
    const answer = await w.post('/payment/webhooks', { url, events: ['acquiring.*'] });
    expect(refusal(answer)).toEqual(invalidWebhookUrl);
    expect((await w.get('/payment/webhooks')).body.data.total).toBe(0);
  });
});

describe('POST /payment/quickpayout refuses a forbidden notify_url', () => {
  it.each(forbiddenUrls)('%s (%s)', async (url) => {
    const w = await world();
    const answer = await w.post('/payment/quickpayout', w.payout(url));
    expect(refusal(answer)).toEqual(invalidNotifyUrl);
    expect((await w.get('/payment/payouts')).body.data.total).toBe(0);
  });
});

describe('the create-time guard', () => {
  it('is what refuses an address the lexical codec accepts', async () => {
    const unguarded = await world({ guard: false });
    const guarded = await world();
    for (const url of [
      'https://127.0.0.1/hook',
      'https://[::ffff:7f00:1]/',
      'https://2852039166/',
    ]) {
      const open = await unguarded.post('/payment/webhooks', { url, events: ['acquiring.*'] });
      expect(open.body, url).toMatchObject({ code: 0 });
      const shut = await guarded.post('/payment/webhooks', { url, events: ['acquiring.*'] });
      expect(refusal(shut), url).toEqual(invalidWebhookUrl);
    }
  });

  it('accepts public targets, and a name that does not resolve yet', async () => {
    const w = await world();
    // A trailing dot or a non-ASCII name is the codec's to refuse, before any guard.
    const lexicallyValid = allowedUrls.filter((url) => isNotifyUrl(url));
    expect(lexicallyValid.length).toBe(allowedUrls.length - 2);
    for (const url of [...lexicallyValid, 'https://not-live-yet.example.org/hook']) {
      const answer = await w.post('/payment/webhooks', { url, events: ['acquiring.*'] });
      expect(answer.body, url).toMatchObject({ code: 0, data: { webhook: { url } } });
    }
    const payout = await w.post('/payment/quickpayout', w.payout('https://hooks.merchant.com/n'));
    expect(payout.body).toMatchObject({
      code: 0,
      data: { payout: { reference: 'ref1', status: 'pending_review' } },
    });
  });

  it('stores a name without looking it up: where it resolves is judged at delivery', async () => {
    const w = await world();
    for (const host of ['rebind.attacker.com', 'inside.attacker.com']) {
      const hook = await w.post('/payment/webhooks', {
        url: `https://${host}/hook`,
        events: ['acquiring.*'],
      });
      expect(hook.body).toMatchObject({ code: 0, data: { webhook: { status: 'active' } } });
      const payout = await w.post('/payment/quickpayout', w.payout(`https://${host}/n`));
      expect(payout.body).toMatchObject({ code: 0 });
    }
  });

  it('with resolveNames, refuses a public-looking name that resolves to a forbidden address', async () => {
    const w = await world({ resolveNames: true });
    for (const host of ['rebind.attacker.com', 'inside.attacker.com']) {
      const hook = await w.post('/payment/webhooks', {
        url: `https://${host}/hook`,
        events: ['acquiring.*'],
      });
      expect(refusal(hook)).toEqual(invalidWebhookUrl);
      const payout = await w.post('/payment/quickpayout', w.payout(`https://${host}/n`));
      expect(refusal(payout)).toEqual(invalidNotifyUrl);
    }
  });

  it('guards PATCH of a webhook url and of a draft payout notify_url', async () => {
    const w = await world({ resolveNames: true });
    const created = await w.post('/payment/webhooks', {
      url: 'https://hooks.merchant.com/a',
      events: ['acquiring.*'],
    });
    const webhookId = created.body.data.webhook.webhook_id as string;
    const patched = await w.patch(`/payment/webhooks/${webhookId}`, {
      url: 'https://169.254.169.254/latest/meta-data/',
    });
    expect(refusal(patched)).toEqual(invalidWebhookUrl);
    expect((await w.get(`/payment/webhooks/${webhookId}`)).body.data.webhook.url).toBe(
      'https://hooks.merchant.com/a',
    );

    const draft = await w.post(
      '/payment/quickpayout',
      w.payout('https://hooks.merchant.com/n', { submit: false }),
    );
    const payoutId = draft.body.data.payout.payout_id as string;
    const edited = await w.patch(`/payment/payouts/${payoutId}`, {
      notify_url: 'https://rebind.attacker.com/n',
    });
    expect(refusal(edited)).toEqual(invalidNotifyUrl);
    const moved = await w.patch(`/payment/payouts/${payoutId}`, {
      notify_url: 'https://hooks.merchant.com/other',
    });
    expect(moved.body).toMatchObject({ code: 0 });
  });

  it('guards the notify_url of a crypto batch', async () => {
    const w = await world();
    const batch = (notify_url: string) => ({
      currency: 'USDT',
      method_id: 2,
      notify_url,
      items: [
        {
          order_no: 'B1',
          amount: '5',
          beneficiary_account: { address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' },
        },
      ],
      submit: false,
    });
    const refused = await w.post('/payment/crypto-payouts/batches', batch('https://[::1]/n'));
    expect(refusal(refused)).toEqual(invalidNotifyUrl);
    const accepted = await w.post(
      '/payment/crypto-payouts/batches',
      batch('https://hooks.merchant.com/n'),
    );
    expect(accepted.body).toMatchObject({ code: 0 });
  });

  it("keeps the codec's order of errors: a missing field answers before the url", async () => {
    const w = await world();
    const hook = await w.post('/payment/webhooks', { url: 'https://127.0.0.1/' });
    expect(refusal(hook)).toEqual({ status: 400, code: 51, message: 'events required' });
    const { currency: _currency, ...noCurrency } = w.payout('https://127.0.0.1/');
    const payout = await w.post('/payment/quickpayout', noCurrency);
    expect(refusal(payout)).toEqual({ status: 400, code: 51, message: 'currency required' });
  });

  it('lets http and loopback through in the sandbox with insecure webhooks, and nothing else', async () => {
    const w = await world({ allowInsecure: true });
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://localhost:3000/hook',
      'https://[::1]:8443/',
    ]) {
      const answer = await w.post('/payment/webhooks', { url, events: ['acquiring.*'] });
      expect(answer.body, url).toMatchObject({ code: 0 });
    }
    for (const url of [
      'http://10.0.0.5:8080/',
      'http://169.254.169.254/',
      'http://0.0.0.0:8080/',
    ]) {
      const answer = await w.post('/payment/webhooks', { url, events: ['acquiring.*'] });
      expect(refusal(answer), url).toEqual(invalidWebhookUrl);
    }
  });
});
