/**
 * A real Prometheus (Debian's `prometheus`) scraping the real server process (`node
 * dist/main.js`) behind its metrics token: after the README's walkthrough, its HTTP API answers
 * the request metric by route template and the outbox backlog. And the server's SIGTERM turns
 * `/readyz` to 503 at once while it goes on serving for PAYRAIL_SHUTDOWN_DRAIN_MS, then exits 0.
 * On a PostgreSQL server, where one answers (CI always).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  databaseUrl,
  dropSchema,
  freshSchema,
  postgresSkipped,
  until,
} from './process-load.test-support.js';
import { binaryRuns, type RunningPrometheus, startPrometheus } from './prometheus.test-support.js';
import {
  adminToken,
  type ServerProcess,
  startServerProcess,
  walkthrough,
} from './server-process.test-support.js';

const metricsToken = 'prometheus-scrape-token-0123';

const skipped =
  !binaryRuns('prometheus', 'the Prometheus scrape test') ||
  (await postgresSkipped('the Prometheus scrape test'));

describe.skipIf(skipped)('the server under a real Prometheus', () => {
  const schemas: string[] = [];
  const cleanups: (() => Promise<unknown>)[] = [];
  let dataDir = '';
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payrail-prometheus-server-'));
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
    for (const schema of schemas) await dropSchema(schema);
  });

  const serverOn = async (env: Record<string, string>): Promise<ServerProcess> => {
    const schema = freshSchema('payrail_prom');
    schemas.push(schema);
    const server = await startServerProcess({
      PORT: '0',
      PAYRAIL_DATA_DIR: join(dataDir, schema),
      DATABASE_URL: databaseUrl,
      PAYRAIL_DATABASE_SCHEMA: schema,
      PAYRAIL_ADMIN_TOKEN: adminToken,
      PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1',
      PAYRAIL_KEY_SECRET: 'a secret of thirty-two bytes, ok',
      ...env,
    });
    cleanups.push(() => server.stop());
    return server;
  };

  it('sees the request metric by route template and the outbox backlog', async () => {
    const server = await serverOn({ PAYRAIL_METRICS_TOKEN: metricsToken });
    // Webhooks and notify_url point at 127.0.0.1:9 (nothing listens): deliveries wait.
    const ids = await walkthrough(server.url, adminToken);
    const prometheus: RunningPrometheus = await startPrometheus({
      target: new URL(server.url).host,
      bearerToken: metricsToken,
    });
    cleanups.push(() => prometheus.stop());
    const started = Date.now();
    const quickpayout =
      'payrail_http_request_duration_seconds_count{route="/payment/quickpayout",status="200"}';
    await until(
      'a scrape with the quickpayout request',
      async () => (await prometheus.query(quickpayout)).length > 0,
    );
    const scrapedAfterMs = Date.now() - started;
    const [requests] = await prometheus.query(quickpayout);
    expect(requests?.metric).toMatchObject({
      job: 'payrail',
      method: 'POST',
      route: '/payment/quickpayout',
    });
    expect(requests?.value).toBe(1);
    const [up] = await prometheus.query('up{job="payrail"}');
    expect(up?.value).toBe(1);

    const [pending] = await prometheus.query('payrail_outbox_pending_messages{job="payrail"}');
    expect(pending?.value).toBeGreaterThanOrEqual(1);
    const [oldest] = await prometheus.query('payrail_outbox_oldest_pending_age_seconds');
    expect(oldest?.value).toBeGreaterThanOrEqual(0);
    const [pool] = await prometheus.query('payrail_db_pool_max_connections');
    expect(pool?.value).toBe(10);
    const byId = await prometheus.query(`{payout_id="${ids.payoutId}"}`);
    expect(byId).toEqual([]);
    const routes = await prometheus.query(
      'count by (route) (payrail_http_request_duration_seconds_count)',
    );
    for (const { metric } of routes) expect(metric.route).not.toContain(ids.payoutId);
    console.info(
      `[prometheus] first scrape with the request seen ${scrapedAfterMs} ms after Prometheus ` +
        `was ready; quickpayout requests ${requests?.value}, outbox pending ${pending?.value}, ` +
        `oldest ${oldest?.value} s, ${routes.length} route templates`,
    );
  });

  it('turns /readyz to 503 on SIGTERM while still serving for the drain, then exits 0', async () => {
    const drainMs = 2000;
    const server = await serverOn({ PAYRAIL_SHUTDOWN_DRAIN_MS: String(drainMs) });
    const status = (path: string) =>
      fetch(`${server.url}${path}`).then(
        (answer) => answer.status,
        () => 0,
      );
    expect(await status('/readyz')).toBe(200);
    const exit = server.stop('SIGTERM');
    const signalled = Date.now();
    await until('/readyz to answer 503', async () => (await status('/readyz')) === 503, 5000);
    const unreadyAfterMs = Date.now() - signalled;
    // Draining: unready, yet the process lives and the API answers.
    expect(await status('/healthz')).toBe(200);
    expect(await status('/openapi.json')).toBe(200);
    const { code, ms } = await exit;
    expect(code).toBe(0);
    expect(ms).toBeGreaterThanOrEqual(drainMs);
    console.info(
      `[drain] /readyz 503 ${unreadyAfterMs} ms after SIGTERM; exit 0 after ${ms} ms ` +
        `(drain ${drainMs} ms)`,
    );
  });
});
