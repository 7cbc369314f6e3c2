/**
 * The real server process on a PostgreSQL server (`DATABASE_URL`), in a schema of its own: the
 * walkthrough, a clean SIGTERM, and a restart that finds everything. Runs wherever a server
 * answers (CI always: a missing server fails there); skipped with a message elsewhere.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  databaseUrl,
  dropSchema,
  freshSchema,
  postgresSkipped,
} from './process-load.test-support.js';
import {
  adminToken,
  expectDurable,
  type ServerProcess,
  startServerProcess,
  walkthrough,
} from './server-process.test-support.js';

const skipped = await postgresSkipped('the server-process test on PostgreSQL');

describe.skipIf(skipped)('the server process on PostgreSQL', () => {
  const schema = freshSchema('payrail_srv');
  const keySecret = randomBytes(32).toString('base64url');
  let dataDir = '';
  const running: ServerProcess[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'payrail-process-pg-'));
  });
  afterAll(async () => {
    await Promise.all(running.map((server) => server.stop('SIGKILL')));
    await rm(dataDir, { recursive: true, force: true });
    await dropSchema(schema);
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
