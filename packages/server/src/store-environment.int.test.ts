/**
 * Sandbox money never becomes live money (issue 12, finding 3; ADR 0035) on a PostgreSQL
 * server: a schema records the environment it was first used for, and the server of the other
 * environment refuses it. Runs wherever a server answers (CI always); skipped with a message
 * elsewhere.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EnvRecord, parseConfig } from './config.js';
import { startPayrail } from './payrail-server.js';
import {
  databaseUrl,
  dropSchema,
  postgresSkipped,
  freshSchema as schemaNamed,
} from './process-load.test-support.js';
import { call } from './server-process.test-support.js';

const adminToken = 'operator-token-0123456789';
const skipped = await postgresSkipped('the store environment test on PostgreSQL');

describe.skipIf(skipped)(
  'sandbox money becomes live money: the server on a PostgreSQL schema',
  () => {
    const schemas: string[] = [];
    let dataDir = '';
    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'payrail-store-env-pg-'));
    });
    afterAll(async () => {
      await rm(dataDir, { recursive: true, force: true });
      for (const schema of schemas) await dropSchema(schema);
    });

    const freshSchema = (): string => {
      const schema = schemaNamed('payrail_env');
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
