/**
 * The client against payrail's app (engine on the memory store, in process): typed answers,
 * refusals as `PayrailError` with the catalogue's key and code, the id a create gets when the
 * caller sends none, every item of a list page by page, and a text answer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { merchantApp, quickPayout } from './merchant-app.test-support.js';
import { createPayrailClient, type PayrailClient } from './payrail-client.js';
import {
  hasErrorCode,
  isPayrailError,
  PayrailError,
  type PayrailErrorKey,
  PayrailResponseError,
} from './payrail-error.js';

type App = Awaited<ReturnType<typeof merchantApp>>;

/** What `run` threw; fails the test when it did not throw. */
const refusal = async (run: () => Promise<unknown>): Promise<unknown> => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('the call was not refused');
};

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('createPayrailClient against the app', () => {
  let app: App;
  let client: PayrailClient;

  beforeAll(async () => {
    app = await merchantApp();
    const { token } = await app.merchant();
    client = createPayrailClient({ baseUrl: app.baseUrl, apiKey: token, fetch: app.fetch });
  });

  it('answers the envelope’s data, typed: a payout created and read back', async () => {
    const created = await client.POST('/payment/quickpayout', {
      body: { ...quickPayout(1), client_request_id: 'typed-1' },
    });
    const status: string = created.payout.status;
    expect(status).toBe('pending_review');
    expect(created.payout.client_request_id).toBe('typed-1');
    const read = await client.GET('/payment/payouts/{payout_id}', {
      params: { path: { payout_id: created.payout.payout_id } },
    });
    expect(read.payout).toMatchObject({ payout_id: created.payout.payout_id, amount: '10.00' });
    const { items } = await client.GET('/payment/balances', {
      params: { query: { currency: 'USD' } },
    });
    expect(items.map((balance) => balance.available)).toEqual(['1000.00']);
  });

  it('names the create itself when the caller sends no client_request_id', async () => {
    const first = await client.POST('/payment/quickpayout', { body: quickPayout(2) });
    const second = await client.POST('/payment/quickpayout', { body: quickPayout(3) });
    expect(first.payout.client_request_id).toMatch(uuid);
    expect(second.payout.client_request_id).toMatch(uuid);
    expect(second.payout.client_request_id).not.toBe(first.payout.client_request_id);
  });

  it('throws a PayrailError with the status, code and message sent, and the catalogue key', async () => {
    const error = await refusal(() =>
      client.GET('/payment/payouts/{payout_id}', { params: { path: { payout_id: 'po_none' } } }),
    );
    expect(error).toBeInstanceOf(PayrailError);
    expect(error).toMatchObject({
      status: 404,
      code: 65,
      message: 'payout not found',
      key: 'payout_not_found',
      params: {},
      operation: 'GET /payment/payouts/{payout_id}',
    });
    expect(isPayrailError(error, 'payout_not_found')).toBe(true);
    expect(isPayrailError(error, 'webhook_not_found')).toBe(false);
    expect(hasErrorCode(error, 65)).toBe(true);
    expect(hasErrorCode(error, 53)).toBe(false);
  });

  it('reads a business refusal (53) and a templated message with its placeholders', async () => {
    await client.POST('/payment/quickpayout', { body: quickPayout(4) });
    const repeated = await refusal(() =>
      client.POST('/payment/quickpayout', { body: quickPayout(4) }),
    );
    expect(repeated).toMatchObject({
      status: 400,
      code: 53,
      message: 'reference already exists',
      key: 'reference_already_exists',
    });
    const badPage = await refusal(() =>
      client.GET('/payment/payouts', { params: { query: { limit: 1000 } } }),
    );
    expect(badPage).toMatchObject({
      status: 400,
      code: 51,
      message: 'invalid limit',
      key: 'invalid_query_param',
      params: { param: 'limit' },
    });
    if (!isPayrailError(badPage, 'invalid_query_param')) throw new Error('not narrowed');
    const param: string = badPage.params.param;
    expect(param).toBe('limit');
  });

  it('refuses a wrong key with 401/61', async () => {
    const stranger = createPayrailClient({
      baseUrl: app.baseUrl,
      apiKey: 'not-a-key',
      fetch: app.fetch,
    });
    const error = await refusal(() => stranger.GET('/payment/account'));
    expect(error).toMatchObject({ status: 401, code: 61 });
    expect(isPayrailError(error)).toBe(true);
    const key: PayrailErrorKey | undefined = isPayrailError(error) ? error.key : undefined;
    expect(key).toBe('unauthorized');
  });

  it('names what a forbidden call lacks: the key’s missing permission', async () => {
    const { accountId } = await app.merchant('Reader');
    const { api_key } = await app.admin('POST', `/admin/accounts/${accountId}/api-keys`, {
      permissions: ['payment.payout.read'],
    });
    const reader = createPayrailClient({
      baseUrl: app.baseUrl,
      apiKey: api_key.token,
      fetch: app.fetch,
    });
    const error = await refusal(() =>
      reader.POST('/payment/quickpayout', { body: quickPayout(90) }),
    );
    expect(error).toMatchObject({
      status: 403,
      code: 61,
      message: 'forbidden',
      key: 'forbidden',
      missingPermissions: ['payment.payout.create', 'payment.payout.submit'],
      productNotEnabled: undefined,
    });
  });

  it('throws a PayrailResponseError for an answer that is not the envelope', async () => {
    const behindProxy = createPayrailClient({
      baseUrl: app.baseUrl,
      apiKey: 'k',
      retry: false,
      fetch: async () => new Response('<h1>502 Bad Gateway</h1>', { status: 502 }),
    });
    const error = await refusal(() => behindProxy.GET('/payment/account'));
    expect(error).toBeInstanceOf(PayrailResponseError);
    expect(error).toMatchObject({ status: 502, body: '<h1>502 Bad Gateway</h1>' });
  });

  it('walks every item of a list page by page, filters and start included', async () => {
    const { token } = await app.merchant('Pager');
    const pager = createPayrailClient({ baseUrl: app.baseUrl, apiKey: token, fetch: app.fetch });
    for (let n = 10; n < 15; n += 1) {
      await pager.POST('/payment/quickpayout', { body: quickPayout(n) });
    }
    const listed = await pager.GET('/payment/payouts', { params: { query: { limit: 100 } } });
    const walked: string[] = [];
    for await (const payout of pager.paginate('/payment/payouts', {
      params: { query: { limit: 2 } },
    })) {
      walked.push(payout.payout_id);
    }
    expect(walked).toEqual(listed.items.map((payout) => payout.payout_id));
    expect(walked).toHaveLength(5);

    const fromThird: string[] = [];
    for await (const payout of pager.paginate('/payment/payouts', {
      params: { query: { limit: 2, offset: 2 } },
    })) {
      fromThird.push(payout.payout_id);
    }
    expect(fromThird).toEqual(walked.slice(2));

    const filtered: string[] = [];
    for await (const payout of pager.paginate('/payment/payouts', {
      params: { query: { reference: 'INV-12' } },
    })) {
      filtered.push(payout.reference);
    }
    expect(filtered).toEqual(['INV-12']);

    const ledger: string[] = [];
    for await (const record of pager.paginate('/payment/ledger', {
      params: { query: { limit: 1, sort_order: 'asc' } },
    })) {
      ledger.push(record.record_type);
    }
    expect(ledger).toEqual(['deposit']);
  });

  it('reads a text answer with parseAs: text', async () => {
    const csv = await client.GET('/payment/statements.csv', {
      params: { query: { currency: 'USD', start_at: 0, end_at: 4_000_000_000 } },
      parseAs: 'text',
    });
    const text: string = csv;
    expect(text.split('\n')[0]).toMatch(/^line,created_at,/);
    expect(text).toContain(',deposit,1000.00,');
  });
});
