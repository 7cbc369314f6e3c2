/**
 * The operator's routes (`/healthz`, `/readyz`, `/metrics`) and what the app measures of each
 * request: answers as a probe or a scraper reads them, never rate limited per key, never in the
 * OpenAPI document; requests measured by route template, not by path.
 */
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppDeps, createApp } from '../create-app.js';
import { fakeEngine } from '../fake-engine.test-support.js';
import type { ObservedRequest } from '../middleware/request-metrics.middleware.js';
import type { Readiness } from './health.routes.js';

const metricsToken = 'a-metrics-token-of-32-characters';

const appWith = (
  readiness: () => Promise<Readiness>,
  overrides: Partial<AppDeps> = {},
  token: string | null = metricsToken,
) => {
  const observed: ObservedRequest[] = [];
  const app = createApp({
    engine: fakeEngine().engine,
    adminToken: 'operator-secret',
    observability: {
      readiness,
      metrics: {
        contentType: 'text/plain; version=0.0.4; charset=utf-8',
        render: async () => '# HELP up 1 when up\n# TYPE up gauge\nup 1\n',
        ...(token === null ? {} : { token }),
      },
      requestObserved: (request) => observed.push(request),
    },
    ...overrides,
  });
  return { app, observed };
};

const allOk: Readiness = { ready: true, checks: { store: 'ok', migrations: 'ok' } };

describe('/healthz and /readyz', () => {
  it('answers 200 live without credentials, and readiness with its named checks', async () => {
    const { app } = appWith(async () => allOk);
    const live = await app.request('/healthz');
    expect(live.status).toBe(200);
    expect(live.headers.get('cache-control')).toBe('no-store');
    expect(await live.json()).toEqual({ status: 'live' });
    const ready = await app.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { store: 'ok', migrations: 'ok' },
    });
    // A load balancer's HEAD probe gets the same status, without a body.
    for (const path of ['/healthz', '/readyz']) {
      const head = await app.request(path, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
    }
  });

  it('answers 503 with the failing check named, and 503 (never 500) when readiness throws', async () => {
    const failing = appWith(async () => ({
      ready: false,
      checks: { store: 'failing', migrations: 'ok' },
    }));
    const unready = await failing.app.request('/readyz');
    expect(unready.status).toBe(503);
    expect(await unready.json()).toEqual({
      status: 'unready',
      checks: { store: 'failing', migrations: 'ok' },
    });
    const throwing = appWith(async () => {
      throw new Error('connect ECONNREFUSED 10.0.0.5:5432 password=hunter2');
    });
    const answer = await throwing.app.request('/readyz');
    expect(answer.status).toBe(503);
    const text = await answer.text();
    expect(JSON.parse(text)).toEqual({ status: 'unready', checks: {} });
    expect(text).not.toContain('10.0.0.5');
  });

  it('is not limited per key: 30 probes in a row under a limit of 1 request per second', async () => {
    const { app } = appWith(async () => allOk, { rateLimit: { requestsPerSecond: 1 } });
    const statuses = new Set<number>();
    for (let i = 0; i < 30; i += 1) {
      statuses.add((await app.request('/readyz')).status);
      statuses.add((await app.request('/healthz')).status);
    }
    expect([...statuses]).toEqual([200]);
  });

  it('stays out of the merchant OpenAPI document', async () => {
    const { app } = appWith(async () => allOk);
    const document = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<string, unknown>;
    };
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      expect(Object.keys(document.paths)).not.toContain(path);
    }
  });
});

describe('/metrics', () => {
  it('answers the exposition only to the bearer of the token', async () => {
    const { app } = appWith(async () => allOk);
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${metricsToken}`]) {
      const refused = await app.request('/metrics', {
        headers: authorization === undefined ? {} : { Authorization: authorization },
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="payrail metrics"');
      expect(await refused.text()).toBe('unauthorized\n');
    }
    const scraped = await app.request('/metrics', {
      headers: { Authorization: `Bearer ${metricsToken}` },
    });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(await scraped.text()).toContain('\nup 1\n');
  });

  it('answers anyone without a token', async () => {
    const { app } = appWith(async () => allOk, {}, null);
    expect((await app.request('/metrics')).status).toBe(200);
  });

  it('spends the address’s failed-authentication budget on wrong tokens (429 past it)', async () => {
    const { app } = appWith(async () => allOk, { addressLimit: { failedAuthentications: 3 } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const answer = await app.request('/metrics', { headers: { Authorization: 'Bearer no' } });
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});

describe('each request measured', () => {
  it('by route template, method and status: ids never become labels', async () => {
    const { app, observed } = appWith(async () => allOk);
    await app.request('/payment/payouts/po_secret_1', {
      headers: { Authorization: 'Bearer alice-token' },
    });
    await app.request('/payment/payouts/po_secret_2');
    await app.request('/no/such/po_secret_3');
    await app.request('/readyz');
    expect(observed.map(({ method, route, status }) => [method, route, status])).toEqual([
      ['GET', '/payment/payouts/:payout_id', 200],
      ['GET', '/payment/payouts/:payout_id', 401],
      ['GET', 'unmatched', 404],
      ['GET', '/readyz', 200],
    ]);
    expect(JSON.stringify(observed)).not.toContain('po_secret');
    for (const { seconds } of observed) {
      expect(seconds).toBeGreaterThanOrEqual(0);
      expect(seconds).toBeLessThan(5);
    }
  });
});

describe('one OpenTelemetry span per request, once a host registered a provider', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    trace.disable();
    await provider.shutdown();
  });

  it('names it after the route template, with method, route and status, and no path', async () => {
    const { app } = appWith(async () => allOk);
    exporter.reset();
    await app.request('/payment/payouts/po_secret_1', {
      headers: { Authorization: 'Bearer alice-token', 'X-Request-Id': 'req-span-1' },
    });
    await app.request('/missing');
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => [span.name, span.attributes])).toEqual([
      [
        'GET /payment/payouts/:payout_id',
        {
          'http.request.method': 'GET',
          'payrail.request_id': 'req-span-1',
          'http.route': '/payment/payouts/:payout_id',
          'http.response.status_code': 200,
        },
      ],
      [
        'GET unmatched',
        expect.objectContaining({ 'http.route': 'unmatched', 'http.response.status_code': 404 }),
      ],
    ]);
    expect(JSON.stringify(spans.map((span) => span.attributes))).not.toContain('po_secret');
  });
});
