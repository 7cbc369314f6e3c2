/**
 * The real server process on a PostgreSQL server (`DATABASE_URL`), in a schema of its own: the
 * walkthrough, a clean SIGTERM, and a restart that finds everything. Runs wherever a server
 * answers (CI always: a missing server fails there); skipped with a message elsewhere.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminToken,
  expectDurable,
  type ServerProcess,
  startServerProcess,
  walkthrough,
} from './server-process.test-support.js';

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const inCI = process.env.CI === 'true';

const probe = async (): Promise<string | undefined> => {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
};

const unavailable = await probe();
if (unavailable !== undefined && !inCI) {
  console.warn(
    `PostgreSQL does not answer at ${databaseUrl} (${unavailable}): the server-process test on ` +
      'PostgreSQL is skipped. Start PostgreSQL or set DATABASE_URL to run it.',
  );
}

describe.skipIf(unavailable !== undefined && !inCI)('the server process on PostgreSQL', () => {
  const schema = `payrail_srv_${randomBytes(6).toString('hex')}`;
  const keySecret = randomBytes(32).toString('base64url');
  let dataDir = '';
  const running: ServerProcess[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payrail-process-pg-'));
  });
  afterAll(async () => {
    await Promise.all(running.map((server) => server.stop('SIGKILL')));
    await rm(dataDir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await client.end();
    }
  });

  const start = async () => {
    const server = await startServerProcess({
      PORT: '0',
      DATABASE_URL: databaseUrl,
      PAYRAIL_DATABASE_SCHEMA: schema,
      PAYRAIL_KEY_SECRET: keySecret,
      PAYRAIL_DATA_DIR: dataDir,
      PAYRAIL_ADMIN_TOKEN: adminToken,
      PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1',
    });
    running.push(server);
    return server;
  };

  it('serves the walkthrough, stops on SIGTERM, and carries on after a restart', async () => {
    const first = await start();
    expect(first.output()).toMatch(
      new RegExp(
        `payrail listening on ${first.url} \\(sandbox, PostgreSQL at .+, schema ${schema}\\)`,
      ),
    );
    const ids = await walkthrough(first.url, adminToken);
    const exit = await first.stop('SIGTERM');
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(5000);

    const second = await start();
    await expectDurable(second.url, ids);
    expect(await second.stop('SIGTERM')).toMatchObject({ code: 0 });
    for (const server of [first, second]) {
      expect(server.output()).not.toContain(adminToken);
      expect(server.output()).not.toContain(keySecret);
      expect(server.output()).not.toContain(ids.key);
    }
  });
});
