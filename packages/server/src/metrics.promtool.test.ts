/**
 * `/metrics` of a running server, after the README's walkthrough, is valid Prometheus text as
 * `promtool check metrics` (Debian's `prometheus` package) reads it, lint included, and carries
 * every metric docs/observability.md lists. On a PostgreSQL server (the pool's gauges), where
 * one answers (CI always).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { type PayrailServer, startPayrail } from './payrail-server.js';
import { dropSchema, freshSchema, postgresSkipped } from './process-load.test-support.js';
import { binaryRuns, promtoolCheck } from './prometheus.test-support.js';
import { adminToken, walkthrough } from './server-process.test-support.js';

const metricsToken = 'promtool-metrics-token-0123';

/** Every metric of docs/observability.md, by the name its `# TYPE` line gives. */
const documentedMetrics = [
  'payrail_http_request_duration_seconds',
  'payrail_unit_of_work_duration_seconds',
  'payrail_unit_of_work_conflicts_total',
  'payrail_transitions_total',
  'payrail_timer_lag_seconds',
  'payrail_webhook_deliveries_total',
  'payrail_webhook_delivery_duration_seconds',
  'payrail_outbox_pending_messages',
  'payrail_outbox_oldest_pending_age_seconds',
  'payrail_db_pool_connections',
  'payrail_db_pool_idle_connections',
  'payrail_db_pool_waiting_requests',
  'payrail_db_pool_max_connections',
  'payrail_process_cpu_seconds_total',
  'payrail_process_resident_memory_bytes',
  'payrail_nodejs_eventloop_lag_seconds',
  'payrail_nodejs_heap_size_used_bytes',
];

const skipped =
  !binaryRuns('promtool', 'the promtool check of /metrics') ||
  (await postgresSkipped('the promtool check of /metrics'));

describe.skipIf(skipped)('/metrics as promtool reads it', () => {
  const schema = freshSchema('payrail_promtool');
  let dataDir = '';
  let server: PayrailServer | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payrail-promtool-'));
    const parsed = parseConfig(
      {
        PORT: '0',
        PAYRAIL_DATA_DIR: dataDir,
        DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
        PAYRAIL_DATABASE_SCHEMA: schema,
        PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1',
        PAYRAIL_METRICS_TOKEN: metricsToken,
      },
      '/',
    );
    if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
    server = await startPayrail({
      config: parsed.config,
      adminToken,
      keySecret: new TextEncoder().encode('a secret of thirty-two bytes, ok'),
      log: () => undefined,
      processMetrics: true,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
    await dropSchema(schema);
  });

  it('passes `promtool check metrics` and names every documented metric', async () => {
    const url = server?.url ?? '';
    await walkthrough(url, adminToken);
    const answer = await fetch(`${url}/metrics`, {
      headers: { Authorization: `Bearer ${metricsToken}` },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const exposition = await answer.text();
    expect(await promtoolCheck(exposition)).toEqual({ code: 0, output: '' });
    const families = [...exposition.matchAll(/^# TYPE (\S+) /gm)].map(([, name]) => name);
    for (const name of documentedMetrics) expect(families, name).toContain(name);
    // The walkthrough's ids never became labels.
    expect(exposition).not.toMatch(/(po|ord|acc|key)_[0-9a-f]{24}/);
  });

  it('fails promtool on a broken exposition (the check can fail)', async () => {
    const broken = '# TYPE payrail_thing_total gauge\npayrail_thing_total{a="1"} one\n';
    expect((await promtoolCheck(broken)).code).not.toBe(0);
  });
});
