/**
 * Retries against payrail's app with a network in between that fails as planned: a read is
 * repeated after failures; a payout create whose answer was lost is repeated with its
 * client_request_id and answers the one payout the server made, also when the client named it;
 * a create without an idempotency id is never repeated after the server may have acted; a 429 is
 * repeated after its Retry-After; attempts are bounded.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { merchantApp, order, quickPayout } from './merchant-app.test-support.js';
import { createPayrailClient, type PayrailClientOptions } from './payrail-client.js';
import { PayrailError, PayrailResponseError } from './payrail-error.js';

type App = Awaited<ReturnType<typeof merchantApp>>;

/**
 * What the network does to one request: `pass` it; `lost`: deliver it, then fail before the
 * answer arrives; `down`: fail without delivering; or answer `status` itself.
 */
type Fault = 'pass' | 'lost' | 'down' | { readonly status: number; readonly retryAfter?: string };

interface Sent {
  readonly method: string;
  readonly path: string;
  readonly body: string;
  readonly delivered: boolean;
}

/** A fetch to the app through a network that fails as `plan` says, then passes everything. */
const network = (app: App, plan: Fault[]) => {
  const sent: Sent[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const fault = plan.shift() ?? 'pass';
    const body = request.method === 'GET' ? '' : await request.clone().text();
    const delivered = fault === 'pass' || fault === 'lost';
    sent.push({ method: request.method, path: new URL(request.url).pathname, body, delivered });
    if (fault === 'down') throw new TypeError('fetch failed: connection refused');
    if (typeof fault === 'object') {
      const headers = fault.retryAfter === undefined ? {} : { 'Retry-After': fault.retryAfter };
      return new Response('<h1>unavailable</h1>', { status: fault.status, headers });
    }
    const answer = await app.fetch(request);
    if (fault === 'lost') throw new TypeError('fetch failed: socket hang up');
    return answer;
  };
  return { fetch, sent };
};

const failure = async (run: () => Promise<unknown>): Promise<unknown> => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('the call did not fail');
};

describe('retries', () => {
  let app: App;
  let token = '';
  let webhookId = '';
  const client = (fetch: PayrailClientOptions['fetch'], retry?: PayrailClientOptions['retry']) =>
    createPayrailClient({
      baseUrl: app.baseUrl,
      apiKey: token,
      ...(fetch === undefined ? {} : { fetch }),
      retry: retry ?? { baseDelayMs: 1 },
    });

  beforeAll(async () => {
    app = await merchantApp();
    ({ token, webhookId } = await app.merchant());
  });

  it('repeats a read after network failures and a 503, and answers', async () => {
    const net = network(app, ['down', { status: 503 }]);
    const { account } = await client(net.fetch).GET('/payment/account');
    expect(account.account_id).toMatch(/^acc_/);
    expect(net.sent.map((request) => request.method)).toEqual(['GET', 'GET', 'GET']);
  });

  it('repeats a payout create whose answer was lost: one payout, the same id', async () => {
    const net = network(app, ['lost', 'lost']);
    const body = { ...quickPayout(1), client_request_id: 'lost-twice' };
    const { payout } = await client(net.fetch).POST('/payment/quickpayout', { body });
    expect(net.sent.map((request) => request.delivered)).toEqual([true, true, true]);
    expect(new Set(net.sent.map((request) => request.body)).size).toBe(1);
    const listed = await client(app.fetch).GET('/payment/payouts', {
      params: { query: { client_request_id: 'lost-twice' } },
    });
    expect(listed.total).toBe(1);
    expect(listed.items[0]?.payout_id).toBe(payout.payout_id);
  });

  it('repeats a create the client named with the same id', async () => {
    const net = network(app, ['lost']);
    const { payout } = await client(net.fetch).POST('/payment/quickpayout', {
      body: quickPayout(2),
    });
    const ids = net.sent.map((request) => JSON.parse(request.body).client_request_id);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
    expect(payout.client_request_id).toBe(ids[0]);
    const listed = await client(app.fetch).GET('/payment/payouts', {
      params: { query: { reference: 'INV-2' } },
    });
    expect(listed.total).toBe(1);
  });

  it('never repeats a create without an idempotency id once it may have reached the server', async () => {
    const lost = network(app, ['lost']);
    const error = await failure(() =>
      client(lost.fetch).POST('/payment/acquiring/orders', {
        body: order('ORDER-LOST', webhookId),
      }),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(lost.sent).toHaveLength(1);
    // Its answer was lost, but the order exists: the merchant looks it up (docs/api.md §4).
    const found = await client(app.fetch).GET('/payment/acquiring/orders', {
      params: { query: { out_trade_no: 'ORDER-LOST' } },
    });
    expect(found.total).toBe(1);

    const failing = network(app, [{ status: 503 }]);
    const unavailable = await failure(() =>
      client(failing.fetch).POST('/payment/acquiring/orders', {
        body: order('ORDER-503', webhookId),
      }),
    );
    expect(unavailable).toBeInstanceOf(PayrailResponseError);
    expect(failing.sent).toHaveLength(1);
  });

  it('stops after the attempts it was given and throws what the network threw', async () => {
    const net = network(app, ['down', 'down', 'down', 'down', 'down']);
    const error = await failure(() =>
      client(net.fetch, { attempts: 4, baseDelayMs: 1 }).GET('/payment/account'),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(net.sent).toHaveLength(4);

    const once = network(app, ['down', 'down']);
    await failure(() => client(once.fetch, false).GET('/payment/account'));
    expect(once.sent).toHaveLength(1);
  });

  it('repeats any call refused by the rate limit after its Retry-After', async () => {
    const limited = await merchantApp({ rateLimit: { requestsPerSecond: 1, burst: 1 } });
    const { token: limitedToken, webhookId: limitedWebhook } = await limited.merchant();
    const merchant = createPayrailClient({
      baseUrl: limited.baseUrl,
      apiKey: limitedToken,
      fetch: limited.fetch,
    });
    await merchant.GET('/payment/account');
    const started = Date.now();
    // An order create carries no idempotency id, yet a 429 means nothing was done: repeated.
    const { order: created } = await merchant.POST('/payment/acquiring/orders', {
      body: order('ORDER-429', limitedWebhook),
    });
    expect(created.out_trade_no).toBe('ORDER-429');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    const impatient = createPayrailClient({
      baseUrl: limited.baseUrl,
      apiKey: limitedToken,
      fetch: limited.fetch,
      retry: { maxDelayMs: 500 },
    });
    const error = await failure(() => impatient.GET('/payment/account'));
    expect(error).toBeInstanceOf(PayrailError);
    expect(error).toMatchObject({
      status: 429,
      code: 54,
      key: 'rate_limit_exceeded',
      retryAfterSeconds: 1,
    });
  });
});
