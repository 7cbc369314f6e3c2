/**
 * `/readyz` follows the database: the server process (`node dist/main.js`) on a PostgreSQL
 * cluster this test owns (Debian's PostgreSQL binaries, private-cluster.test-support.ts) answers
 * ready; once the cluster stops it answers 503 with `store` failing within seconds, never a 500;
 * once the cluster is back (started again after a fast stop, and after a SIGKILL) it answers
 * ready again, and the API works. In CI the PostgreSQL binaries must be there; elsewhere the
 * test is skipped without them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPrivateCluster,
  type PrivateCluster,
  privateClusterMissing,
} from './private-cluster.test-support.js';
import {
  adminToken,
  type ServerProcess,
  startServerProcess,
} from './server-process.test-support.js';

const missing = privateClusterMissing();
const inCI = process.env.CI === 'true';
if (missing !== undefined && !inCI) {
  console.warn(`${missing}: the readiness test on a private PostgreSQL cluster is skipped.`);
}

interface Probe {
  readonly status: number;
  readonly body: { readonly status?: string; readonly checks?: Record<string, string> };
}

describe.skipIf(missing !== undefined && !inCI)('/readyz follows the database', () => {
  let cluster: PrivateCluster | undefined;
  let server: ServerProcess | undefined;
  let dataDir = '';
  /** Every status /readyz answered in this file. */
  const seen = new Set<number>();

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payrail-readyz-'));
    cluster = await createPrivateCluster();
    await cluster.start();
    server = await startServerProcess({
      PORT: '0',
      PAYRAIL_DATA_DIR: dataDir,
      DATABASE_URL: cluster.url(),
      PAYRAIL_ADMIN_TOKEN: adminToken,
      PAYRAIL_KEY_SECRET: 'a secret of thirty-two bytes, ok',
      PAYRAIL_SHUTDOWN_DRAIN_MS: '0',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await cluster?.remove();
    await rm(dataDir, { recursive: true, force: true });
  });

  const probe = async (): Promise<Probe> => {
    const answer = await fetch(`${server?.url}/readyz`);
    seen.add(answer.status);
    return { status: answer.status, body: (await answer.json()) as Probe['body'] };
  };

  /** Probes every 100 ms until `status`; answers the milliseconds it took. */
  const probeUntil = async (status: number, withinMs: number): Promise<number> => {
    const started = Date.now();
    for (;;) {
      const answer = await probe();
      if (answer.status === status) return Date.now() - started;
      if (Date.now() - started > withinMs) {
        throw new Error(
          `/readyz still answered ${JSON.stringify(answer)} after ${withinMs} ms:\n` +
            `${server?.output()}\n${await cluster?.log()}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  const createMerchant = async (): Promise<number> => {
    const answer = await fetch(`${server?.url}/admin/merchants`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Acme' }),
    });
    return answer.status;
  };

  it('is ready on a running cluster', async () => {
    expect(await probe()).toEqual({
      status: 200,
      body: {
        status: 'ready',
        checks: {
          store: 'ok',
          migrations: 'ok',
          timer_loop: 'ok',
          webhook_dispatcher: 'ok',
          outbox_backlog: 'ok',
          serving: 'ok',
        },
      },
    });
  });

  it('goes unready when the cluster stops, and ready again when it starts', async () => {
    await cluster?.stop('fast');
    const unreadyMs = await probeUntil(503, 5000);
    const down = await probe();
    expect(down.body.checks).toMatchObject({ store: 'failing', serving: 'ok', timer_loop: 'ok' });
    // No host, no error text: named checks only.
    expect(JSON.stringify(down.body)).not.toContain(String(cluster?.port));
    // The API answers 503 with Retry-After meanwhile, never 500 (ADR 0051).
    expect(await createMerchant()).toBe(503);

    await cluster?.start();
    const readyMs = await probeUntil(200, 10_000);
    expect(await createMerchant()).toBe(200);
    console.info(`[readyz] fast stop: 503 after ${unreadyMs} ms; start: 200 after ${readyMs} ms`);
  });

  it('goes unready when the cluster is killed, and ready again when it is back', async () => {
    await cluster?.kill();
    const unreadyMs = await probeUntil(503, 5000);
    await cluster?.start();
    const readyMs = await probeUntil(200, 10_000);
    expect(await createMerchant()).toBe(200);
    console.info(`[readyz] SIGKILL: 503 after ${unreadyMs} ms; start: 200 after ${readyMs} ms`);
    // Never an answer other than ready or unready, outage included.
    expect([...seen].sort()).toEqual([200, 503]);
  });
});
