/**
 * Sandbox money never becomes live money (issue 12, finding 3; ADR 0035) on a PostgreSQL
 * server: a schema records the environment it was first used for, and the server of the other
 * environment refuses it. Runs wherever a server answers (CI always); skipped with a message
 * elsewhere.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EnvRecord, parseConfig } from './config.js';
import { startPayrail } from './payrail-server.js';
import { call } from './server-process.test-support.js';

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const inCI = process.env.CI === 'true';
const adminToken = 'operator-token-0123456789';

const unavailable = await (async (): Promise<string | undefined> => {
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
})();
if (unavailable !== undefined && !inCI) {
  console.warn(
    `PostgreSQL does not answer at ${databaseUrl} (${unavailable}): the store environment ` +
      'test on PostgreSQL is skipped. Start PostgreSQL or set DATABASE_URL to run it.',
  );
}

describe.skipIf(unavailable !== undefined && !inCI)(
  'sandbox money becomes live money: the server on a PostgreSQL schema',
  () => {
    const schemas: string[] = [];
    let dataDir = '';
    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'payrail-store-env-pg-'));
    });
    afterAll(async () => {
      await rm(dataDir, { recursive: true, force: true });
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    });

    const freshSchema = (): string => {
      const schema = `payrail_env_${randomBytes(6).toString('hex')}`;
      schemas.push(schema);
      return schema;
    };

    const start = (schema: string, env: EnvRecord = {}) => {
      const parsed = parseConfig(
        {
          PORT: '0',
          PAYRAIL_DATA_DIR: dataDir,
          DATABASE_URL: databaseUrl,
          PAYRAIL_DATABASE_SCHEMA: schema,
          ...env,
        },
        dataDir,
      );
      if (!parsed.ok) throw new Error(parsed.errors.join('; '));
      return startPayrail({
        config: parsed.config,
        adminToken,
        keySecret: new Uint8Array(32).fill(7),
        log: () => undefined,
      });
    };

    it('PAYRAIL_ENV=live refuses a sandbox schema; sandbox starts on it again', async () => {
      const schema = freshSchema();
      const sandbox = await start(schema);
      const created = await call(sandbox.url, 'POST', '/admin/merchants', adminToken, {
        name: 'Acme',
      });
      expect(created).toMatchObject({ status: 200, code: 0 });
      await sandbox.stop();

      await expect(start(schema, { PAYRAIL_ENV: 'live' })).rejects.toThrow(
        'this store was created for sandbox; payrail live will not use it. Start live on ' +
          'another DATABASE_URL database or a new PAYRAIL_DATABASE_SCHEMA ' +
          `(this one is schema ${schema})`,
      );
      await (await start(schema)).stop();
    });

    it('a sandbox server refuses a live schema; live starts on it again', async () => {
      const schema = freshSchema();
      await (await start(schema, { PAYRAIL_ENV: 'live' })).stop();
      await expect(start(schema)).rejects.toThrow(
        'this store was created for live; payrail sandbox will not use it. Start sandbox on ' +
          'another DATABASE_URL database or a new PAYRAIL_DATABASE_SCHEMA ' +
          `(this one is schema ${schema})`,
      );
      await (await start(schema, { PAYRAIL_ENV: 'live' })).stop();
    });
  },
);
