/**
 * `/metrics` of an embedded payrail, read as Prometheus reads it, after real requests through
 * its HTTP app: requests by route template, units of work by use case and outcome, committed
 * transitions, and (on a PostgreSQL store) the outbox backlog, deliveries and timer lag.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { adjustableClock, permissions } from '@payrail/engine';
import { createPGliteStore, type PostgresStore } from '@payrail/store-postgres';
import { afterAll, describe, expect, it } from 'vitest';
import type { Payrail } from './create-payrail.js';
import { embeddedPayrails } from './embedded-payrail.test-support.js';
import { sampleValue } from './metrics-text.test-support.js';

const adminToken = 'operator-token-for-the-metrics-test';

const embed = embeddedPayrails(adminToken);

const call = async (
  payrail: Payrail,
  method: string,
  path: string,
  token: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers by path, as a merchant reads JSON.
): Promise<any> => {
  const answer = await payrail.app.request(path, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await answer.json()) as { code: number; data: unknown };
  return { status: answer.status, ...json };
};

const scrape = async (payrail: Payrail, token?: string): Promise<string> => {
  const answer = await payrail.app.request('/metrics', {
    headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
  });
  expect(answer.status).toBe(200);
  return answer.text();
};

/** A merchant with a key and USD 100.00, and a payout to `notifyUrl` awaiting review. */
const payoutAwaitingReview = async (payrail: Payrail, notifyUrl: string) => {
  const { data } = await call(payrail, 'POST', '/admin/merchants', adminToken, { name: 'Acme' });
  const accountId: string = data.merchant.account_id;
  const issued = await call(payrail, 'POST', `/admin/accounts/${accountId}/api-keys`, adminToken, {
    permissions,
  });
  const key: string = issued.data.api_key.token;
  await call(payrail, 'POST', `/admin/accounts/${accountId}/credit`, adminToken, {
    currency: 'USD',
    amount: '100.00',
  });
  const created = await call(payrail, 'POST', '/payment/quickpayout', key, {
    client_request_id: 'metrics-1',
    reference: 'INV-1',
    currency: 'USD',
    amount: '25.00',
    method_id: 1,
    notify_url: notifyUrl,
    beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
    beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'jane@example.com' } },
  });
  expect(created).toMatchObject({ status: 200, code: 0 });
  return { key, payoutId: created.data.payout.payout_id as string };
};

const requests = (method: string, route: string, status: string) => ({
  name: 'payrail_http_request_duration_seconds_count',
  labels: { method, route, status },
});

const countOf = (text: string, sample: ReturnType<typeof requests>) =>
  sampleValue(text, sample.name, sample.labels);

describe('/metrics of an embedded payrail', () => {
  it('counts requests by route template, never by path, one more per request', async () => {
    const payrail = await embed();
    const { key, payoutId } = await payoutAwaitingReview(payrail, 'https://merchant.example/cb');
    const byTemplate = requests('GET', '/payment/payouts/:payout_id', '200');

    const before = await scrape(payrail);
    expect(countOf(before, requests('POST', '/admin/merchants', '200'))).toBe(1);
    expect(countOf(before, requests('POST', '/payment/quickpayout', '200'))).toBe(1);
    expect(countOf(before, byTemplate)).toBeUndefined();

    await call(payrail, 'GET', `/payment/payouts/${payoutId}`, key);
    await call(payrail, 'GET', `/payment/payouts/${payoutId}`, key);
    await call(payrail, 'GET', '/payment/payouts/po_unknown', 'not-a-key');
    await payrail.app.request('/nowhere/at/all');
    const after = await scrape(payrail);
    expect(countOf(after, byTemplate)).toBe(2);
    expect(countOf(after, requests('GET', '/payment/payouts/:payout_id', '401'))).toBe(1);
    expect(countOf(after, requests('GET', 'unmatched', '404'))).toBe(1);
    // The first scrape is counted by the second.
    expect(countOf(after, requests('GET', '/metrics', '200'))).toBe(1);
    expect(after).not.toContain(payoutId);
    expect(after).not.toContain('po_unknown');
    expect(after).not.toContain('nowhere');
    const seconds = sampleValue(after, 'payrail_http_request_duration_seconds_sum', {
      method: 'GET',
      route: '/payment/payouts/:payout_id',
      status: '200',
    });
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(10);
  });

  it('counts units of work by use case and outcome, and the transitions they committed', async () => {
    const payrail = await embed();
    const { payoutId } = await payoutAwaitingReview(payrail, 'https://merchant.example/cb');
    const review = `/admin/payouts/${payoutId}/review`;
    expect(await call(payrail, 'POST', review, adminToken, { action: 'approve' })).toMatchObject({
      code: 0,
    });
    expect(await call(payrail, 'POST', review, adminToken, { action: 'approve' })).toMatchObject({
      status: 400,
    });
    const text = await scrape(payrail);
    const units = (useCase: string, outcome: string) =>
      sampleValue(text, 'payrail_unit_of_work_duration_seconds_count', {
        use_case: useCase,
        outcome,
      });
    expect(units('merchant.create', 'committed')).toBe(1);
    expect(units('payout.create', 'committed')).toBe(1);
    expect(units('payout.review', 'committed')).toBe(1);
    expect(units('payout.review', 'refused')).toBe(1);
    expect(units('other', 'committed')).toBeGreaterThan(0);
    const transition = (from: string, to: string) =>
      sampleValue(text, 'payrail_transitions_total', { machine: 'payout', from, to });
    expect(transition('none', 'pendingReview.awaitingReview')).toBe(1);
    expect(transition('pendingReview.awaitingReview', 'approved.init')).toBe(1);
    // A memory store cannot tell its outbox: the gauges are left out rather than shown as 0.
    expect(text).not.toContain('payrail_outbox_pending_messages');
    expect(text).not.toContain('payrail_db_pool');
  });

  it('keeps each payrail’s metrics its own, and hides them behind the token when one is set', async () => {
    const token = 'metrics-token-of-the-test-0001';
    const first = await embed({ metricsToken: token });
    const second = await embed();
    await payoutAwaitingReview(first, 'https://merchant.example/cb');
    expect((await first.app.request('/metrics')).status).toBe(401);
    expect(countOf(await scrape(first, token), requests('POST', '/admin/merchants', '200'))).toBe(
      1,
    );
    expect(
      countOf(await scrape(second), requests('POST', '/admin/merchants', '200')),
    ).toBeUndefined();
    expect(await first.metrics.getSingleMetricAsString('payrail_transitions_total')).toContain(
      'to="pendingReview.awaitingReview"} 1',
    );
  });
});

describe('/metrics of a payrail on PostgreSQL (PGlite)', () => {
  const stores: PostgresStore[] = [];
  const receivers: Server[] = [];
  afterAll(async () => {
    for (const receiver of receivers) receiver.close();
    for (const store of stores) await store.close();
  });

  const receiver = async (): Promise<string> => {
    const server = createServer((_request, response) => {
      response.writeHead(200).end('ok');
    });
    receivers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/payouts`;
  };

  const until = async (check: () => Promise<boolean>, ms = 20_000): Promise<void> => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error('timed out waiting');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('shows the outbox backlog and its age, then the deliveries that drain it, and timer lag', async () => {
    const store = await createPGliteStore();
    stores.push(store);
    const clock = adjustableClock();
    const payrail = await embed({ store, clock, allowInsecureWebhooks: true });
    const { payoutId } = await payoutAwaitingReview(payrail, await receiver());
    expect(
      await call(payrail, 'POST', `/admin/payouts/${payoutId}/review`, adminToken, {
        action: 'approve',
      }),
    ).toMatchObject({ code: 0 });
    // Nothing runs yet: the approval's event waits in the outbox, and ages with the clock.
    clock.advance(42);
    const waiting = await scrape(payrail);
    const pending = sampleValue(waiting, 'payrail_outbox_pending_messages') ?? 0;
    expect(pending).toBeGreaterThanOrEqual(1);
    expect(
      sampleValue(waiting, 'payrail_outbox_oldest_pending_age_seconds'),
    ).toBeGreaterThanOrEqual(42);
    expect(waiting).not.toContain('payrail_db_pool');

    payrail.start();
    const delivered = () =>
      sampleValue(text, 'payrail_webhook_deliveries_total', {
        destination: 'notify_url',
        outcome: 'delivered',
      }) ?? 0;
    let text = '';
    await until(async () => {
      text = await scrape(payrail);
      return delivered() >= pending && sampleValue(text, 'payrail_outbox_pending_messages') === 0;
    });
    expect(sampleValue(text, 'payrail_outbox_oldest_pending_age_seconds')).toBe(0);
    expect(
      sampleValue(text, 'payrail_webhook_delivery_duration_seconds_count', {
        destination: 'notify_url',
      }),
    ).toBe(delivered());
    // The approval's `payout.execute` timer was due 42 s before the loop fired it.
    expect(sampleValue(text, 'payrail_timer_lag_seconds_count', { timer: 'payout.execute' })).toBe(
      1,
    );
    expect(
      sampleValue(text, 'payrail_timer_lag_seconds_sum', { timer: 'payout.execute' }),
    ).toBeGreaterThanOrEqual(42);
    expect(
      sampleValue(text, 'payrail_unit_of_work_duration_seconds_count', {
        use_case: 'timer.payout.execute',
        outcome: 'committed',
      }),
    ).toBe(1);
  });
});
