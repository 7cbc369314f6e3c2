/**
 * Sandbox money never becomes live money (issue 12, finding 3; ADR 0035): a store records the
 * environment it was first used for, and payrail of the other environment refuses to start on
 * it, before writing anything, with the setting that starts a fresh one. The memory store
 * through `createPayrail`, the embedded store's data directory through the server;
 * store-environment.int.test.ts does the same on a PostgreSQL schema.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Environment } from '@payrail/core';
import { createMemoryStore } from '@payrail/store-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EnvRecord, parseConfig } from './config.js';
import { createPayrail, StoreEnvironmentError } from './create-payrail.js';
import { orThrow } from './facade.js';
import { startPayrail } from './payrail-server.js';
import { call } from './server-process.test-support.js';

const keySecret = 'a secret of thirty-two bytes, ok';
const adminToken = 'operator-token-0123456789';

const refusal = (recorded: Environment, wanted: Environment, remedy: string): string =>
  `this store was created for ${recorded}; payrail ${wanted} will not use it. ${remedy}`;

describe('sandbox money becomes live money: createPayrail on a store of the other environment', () => {
  const embed = (store: ReturnType<typeof createMemoryStore>, environment: Environment) =>
    createPayrail({ store, environment, keySecret, log: () => undefined });

  it('live refuses a sandbox store that holds test-credited money', async () => {
    const store = createMemoryStore();
    const sandbox = await embed(store, 'sandbox');
    const { merchant } = orThrow(await sandbox.admin.createMerchant({ name: 'Acme' }));
    orThrow(
      await sandbox.admin.credit(merchant.account_id, {
        currency: 'USDC',
        amount: '999999999999999999999999',
      }),
    );

    const live = embed(store, 'live');
    await expect(live).rejects.toBeInstanceOf(StoreEnvironmentError);
    await expect(live).rejects.toThrow(
      refusal(
        'sandbox',
        'live',
        'Open live on a new store (another data directory, database or schema)',
      ),
    );
    expect(await store.claimEnvironment('live')).toBe('sandbox');
    // The sandbox still starts on its own store.
    expect((await embed(store, 'sandbox')).environment).toBe('sandbox');
  });

  it('sandbox refuses a live store; live starts on it again', async () => {
    const store = createMemoryStore();
    await embed(store, 'live');
    await expect(embed(store, 'sandbox')).rejects.toThrow(
      refusal(
        'live',
        'sandbox',
        'Open sandbox on a new store (another data directory, database or schema)',
      ),
    );
    expect((await embed(store, 'live')).environment).toBe('live');
  });
});

describe('sandbox money becomes live money: the server on an embedded data directory', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'payrail-store-env-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const start = (env: EnvRecord) => {
    const parsed = parseConfig({ PORT: '0', PAYRAIL_DATA_DIR: dir, ...env }, dir);
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    return startPayrail({
      config: parsed.config,
      adminToken,
      keySecret: new TextEncoder().encode(keySecret),
      log: () => undefined,
    });
  };

  it('PAYRAIL_ENV=live refuses a sandbox data directory; sandbox starts on it again', async () => {
    const sandbox = await start({});
    const created = await call(sandbox.url, 'POST', '/admin/merchants', adminToken, {
      name: 'Acme',
    });
    const accountId = created.data.merchant.account_id as string;
    const credited = await call(
      sandbox.url,
      'POST',
      `/admin/accounts/${accountId}/credit`,
      adminToken,
      {
        currency: 'USD',
        amount: '100.00',
      },
    );
    expect(credited).toMatchObject({ status: 200, code: 0 });
    await sandbox.stop();

    await expect(start({ PAYRAIL_ENV: 'live' })).rejects.toThrow(
      refusal('sandbox', 'live', `Start live on a new PAYRAIL_DATA_DIR (this one is ${dir})`),
    );
    const again = await start({});
    // The sandbox data is all there for the sandbox.
    const keys = await call(again.url, 'GET', `/admin/accounts/${accountId}/api-keys`, adminToken);
    expect(keys).toMatchObject({ status: 200, code: 0 });
    await again.stop();
  });

  it('a sandbox server refuses a live data directory', async () => {
    await (await start({ PAYRAIL_ENV: 'live' })).stop();
    await expect(start({})).rejects.toThrow(
      refusal('live', 'sandbox', `Start sandbox on a new PAYRAIL_DATA_DIR (this one is ${dir})`),
    );
    await (await start({ PAYRAIL_ENV: 'live' })).stop();
  });
});
