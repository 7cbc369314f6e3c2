import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type PayoutExecutionRequest, permissions } from '@payrail/engine';
import { generateSandboxUpstreamSecret, sandboxAcquiringProvider } from '@payrail/sandbox';
import { createMemoryStore } from '@payrail/store-memory';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createPayrail,
  type Payrail,
  type PayrailOptions,
  PayrailOptionsError,
} from './create-payrail.js';
import { orThrow, PayrailFailure } from './facade.js';

const keySecret = 'a secret of thirty-two bytes, ok';

const running: Payrail[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((payrail) => payrail.stop()));
});

const embed = async (options: Partial<PayrailOptions> = {}) => {
  const payrail = await createPayrail({
    store: createMemoryStore(),
    environment: 'sandbox',
    keySecret,
    log: () => undefined,
    ...options,
  });
  running.push(payrail);
  return payrail;
};

/** A merchant with a key holding `granted`, funded with USD 100.00, as its facade. */
const merchantOf = async (payrail: Payrail, granted: readonly string[] = permissions) => {
  const { merchant } = orThrow(await payrail.admin.createMerchant({ name: 'Acme' }));
  const { api_key } = orThrow(
    await payrail.admin.issueApiKey(merchant.account_id, {
      permissions: granted as typeof permissions,
    }),
  );
  orThrow(await payrail.admin.credit(merchant.account_id, { currency: 'USD', amount: '100.00' }));
  return payrail.merchant(orThrow(await payrail.authenticate(api_key.token)));
};

const walletaPayout = {
  client_request_id: 'facade-1',
  reference: 'INV-1',
  currency: 'USD',
  amount: '25.00',
  method_id: 1,
  notify_url: 'https://example.com/payouts',
  beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
  beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'jane@example.com' } },
} as const;

const problemsOf = async (options: Partial<PayrailOptions>): Promise<readonly string[]> => {
  const error = await embed(options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PayrailOptionsError);
  return (error as PayrailOptionsError).problems;
};

describe('createPayrail checks its options before anything runs', () => {
  it('refuses a key secret under 32 bytes at once, not at the first key issue', async () => {
    expect(await problemsOf({ keySecret: 'too short' })).toEqual([
      'keySecret has 9 bytes; at least 32 are needed',
    ]);
    expect(await problemsOf({ keySecret: new Uint8Array(31) })).toEqual([
      'keySecret has 31 bytes; at least 32 are needed',
    ]);
  });

  it('lists every problem together, sandbox-only options in live among them', async () => {
    expect(
      await problemsOf({
        environment: 'live',
        keySecret: '',
        publicUrl: 'example.com',
        seedSandboxCatalogue: true,
        allowInsecureWebhooks: true,
        acquiringProviders: [
          sandboxAcquiringProvider({
            allowedSources: ['127.0.0.1/32'],
            secret: generateSandboxUpstreamSecret(),
          }),
        ],
        upstreamSandboxSecret: generateSandboxUpstreamSecret(),
        timerIntervalMs: 0,
        keyCheckCacheMs: -1,
      }),
    ).toEqual([
      'keySecret has 0 bytes; at least 32 are needed',
      'publicUrl must be an absolute http(s) URL without a query',
      'seedSandboxCatalogue is for the sandbox only',
      'allowInsecureWebhooks is for the sandbox only',
      'upstreamSandboxSecret is for the sandbox only',
      'live acquiring needs depositAddresses (a custody port) when acquiringProviders are given',
      'keyCheckCacheMs must be a whole number of milliseconds, 0 or more',
      'timerIntervalMs must be a positive whole number of milliseconds',
    ]);
  });

  it('refuses a missing store and an unknown environment', async () => {
    const problems = await problemsOf({
      store: undefined as never,
      environment: 'staging' as never,
    });
    expect(problems).toEqual([
      'store is required: a payrail Store (memory, PGlite or PostgreSQL)',
      `environment must be 'sandbox' or 'live'`,
    ]);
  });
});

describe('the typed facade', () => {
  it('runs a payout from creation to completion through the executor door', async () => {
    const received: PayoutExecutionRequest[] = [];
    const payrail = await embed({
      executor: { execute: async (request) => void received.push(request) },
      timerIntervalMs: 20,
    });
    const acme = await merchantOf(payrail);
    const { payout } = orThrow(await acme.payouts.create(walletaPayout));
    expect(payout.status).toBe('pending_review');
    orThrow(await payrail.admin.reviewPayout(payout.payout_id, { action: 'approve' }));

    payrail.start();
    await expect.poll(() => received.length).toBe(1);
    expect(received[0]).toMatchObject({
      payout_id: payout.payout_id,
      send_amount: '25.00',
      beneficiary_account: { fields: { walleta_email: 'jane@example.com' } },
    });
    const completed = orThrow(
      await payrail.executions.report(payout.payout_id, { status: 'completed' }),
    );
    expect(completed.payout.status).toBe('completed');
    // A bank's callback delivered twice moves nothing again.
    orThrow(await payrail.executions.report(payout.payout_id, { status: 'completed' }));

    const { items } = orThrow(await acme.accounts.balances({ currency: 'USD' }));
    expect(items).toEqual([{ currency: 'USD', available: '74.25', held: '0.00', total: '74.25' }]);
  });

  it('seeds the sandbox catalogue unless told not to', async () => {
    const payrail = await embed();
    const seeded = await merchantOf(payrail);
    expect(orThrow(await seeded.payoutSetup.methods()).items.length).toBeGreaterThan(0);
    // The sandbox's three global routes (USD, USDT, USDC), a page at a time.
    const page = orThrow(await payrail.admin.listRoutes({ limit: 1 }));
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 0 });

    const bare = await merchantOf(await embed({ seedSandboxCatalogue: false }));
    const refused = await bare.payouts.create(walletaPayout);
    expect(refused._tag === 'Left' && refused.left.message).toBe('network not found');
  });

  it("answers a refusal as the catalogue's error; orThrow raises it as a PayrailFailure", async () => {
    const payrail = await embed();
    const reader = await merchantOf(payrail, ['payment.payout.read']);
    const refused = await reader.payouts.create(walletaPayout);
    expect(refused).toMatchObject({
      _tag: 'Left',
      left: { key: 'forbidden', httpStatus: 403 },
    });
    const failure = await reader.payouts
      .create(walletaPayout)
      .then(orThrow, String)
      .catch((e) => e);
    expect(failure).toBeInstanceOf(PayrailFailure);
    expect(failure).toMatchObject({ error: { key: 'forbidden' } });
  });

  it('decodes what JavaScript hosts send with the catalogue messages', async () => {
    const acme = await merchantOf(await embed());
    const { currency: _, ...withoutCurrency } = walletaPayout;
    const refused = await acme.payouts.create(withoutCurrency as never);
    expect(refused._tag === 'Left' && refused.left.message).toBe('currency required');
  });

  it('turns typed list parameters into the query the engine reads', async () => {
    const acme = await merchantOf(await embed());
    orThrow(await acme.payouts.create(walletaPayout));
    orThrow(
      await acme.payouts.create({
        ...walletaPayout,
        client_request_id: 'facade-2',
        reference: 'INV-2',
      }),
    );
    const page = orThrow(await acme.payouts.list({ limit: 1, offset: 1 }));
    expect(page).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page.items).toHaveLength(1);
  });

  it('reads statements, their CSV and the settlement report (ADR 0045)', async () => {
    const payrail = await embed();
    const acme = await merchantOf(payrail);
    const period = { currency: 'USD', start_at: 0, end_at: 4_000_000_000 } as const;
    const { statement } = orThrow(await acme.statements.statement(period));
    expect(statement.available).toMatchObject({ opening: '0.00', closing: '100.00' });
    const csv = orThrow(await acme.statements.statementCsv(period));
    let text = '';
    for await (const chunk of csv.chunks) text += chunk;
    expect(text).toMatch(/\r\nclosing,\d+,[^,]+,USD,available,,,100\.00,,,,\r\n/);
    const date = new Date((statement.end_at - 1) * 1000).toISOString().slice(0, 10);
    const { report } = orThrow(await payrail.admin.settlementReport({ date }));
    expect(report.platform_totals).toMatchObject([{ currency: 'USD', accounts: 1 }]);
  });

  it('serves the same engine over HTTP as payrail.app', async () => {
    const payrail = await embed();
    const response = await payrail.app.request('/admin/merchants', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${payrail.adminToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'Over HTTP' }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { code: number };
    expect(body.code).toBe(0);
  });

  it("names the publicUrl it was given as /openapi.json's server, else the document's origin", async () => {
    const serversOf = async (payrail: Payrail) =>
      ((await (await payrail.app.request('/openapi.json')).json()) as { servers: unknown }).servers;
    expect(await serversOf(await embed({ publicUrl: 'https://pay.example.com/' }))).toEqual([
      { url: 'https://pay.example.com' },
    ]);
    expect(await serversOf(await embed())).toEqual([{ url: '/' }]);
  });

  it('types inputs from the codecs: a wrong field or permission does not compile', async () => {
    const payrail = await embed();
    const acme = await merchantOf(payrail);
    const { merchant } = orThrow(await payrail.admin.createMerchant({ name: 'Types' }));
    // @ts-expect-error not a permission of the catalogue
    await payrail.admin.issueApiKey(merchant.account_id, { permissions: ['payment.steal'] });
    // @ts-expect-error amounts are decimal strings
    await acme.payouts.create({ ...walletaPayout, amount: 25 });
    // @ts-expect-error an order's currency is USD
    await acme.orders.create({ out_trade_no: 'x', order_currency: 'EUR' });
    const { payout } = orThrow(await acme.payouts.create(walletaPayout));
    // @ts-expect-error a payout has no such field
    expect(payout.amount_in_cents).toBeUndefined();
    const status: string = payout.status;
    expect(status).toBe('pending_review');
  });
});

describe('start and stop', () => {
  it('fires timers only while started, and stop lets the pass in progress finish', async () => {
    const received: string[] = [];
    const payrail = await embed({
      executor: { execute: async (request) => void received.push(request.payout_id) },
      timerIntervalMs: 20,
    });
    const acme = await merchantOf(payrail);
    const { payout } = orThrow(await acme.payouts.create(walletaPayout));
    orThrow(await payrail.admin.reviewPayout(payout.payout_id, { action: 'approve' }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toEqual([]);

    payrail.start();
    payrail.start();
    await expect.poll(() => received).toEqual([payout.payout_id]);
    await payrail.stop();
    await payrail.stop();
  });

  it('delivers webhooks again after a stop and a second start', async () => {
    const received: string[] = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += String(chunk);
      });
      request.on('end', () => {
        received.push((JSON.parse(body) as { event_type: string }).event_type);
        response.end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    try {
      const payrail = await embed({ allowInsecureWebhooks: true, dispatchIntervalMs: 20 });
      const acme = await merchantOf(payrail);
      payrail.start();
      await payrail.stop();
      payrail.start();
      const { payout } = orThrow(
        await acme.payouts.create({ ...walletaPayout, notify_url: `http://127.0.0.1:${port}/n` }),
      );
      orThrow(await payrail.admin.reviewPayout(payout.payout_id, { action: 'approve' }));
      await expect.poll(() => received).toContain('payout.review.approved');
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
