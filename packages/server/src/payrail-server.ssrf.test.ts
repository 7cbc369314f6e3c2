/**
 * The server wires the SSRF guard into the engine (docs/spec/decisions.md §5): an https target on a forbidden
 * address, which the lexical codec alone would take, is refused at create time; the sandbox's
 * PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1 lets loopback through and still refuses the metadata service.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { permissions } from '@payrail/engine';
import { createMemoryStore } from '@payrail/store-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EnvRecord, parseConfig } from './config.js';
import { type PayrailServer, startPayrail } from './payrail-server.js';
import { call } from './server-process.test-support.js';

const adminToken = 'operator-token-0123456789';

let dir = '';
let servers: PayrailServer[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payrail-ssrf-'));
  servers = [];
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await rm(dir, { recursive: true, force: true });
});

const merchantOn = async (env: EnvRecord) => {
  const parsed = parseConfig({ PORT: '0', PAYRAIL_DATA_DIR: dir, ...env }, dir);
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  const server = await startPayrail({
    config: parsed.config,
    adminToken,
    keySecret: new Uint8Array(32).fill(7),
    store: createMemoryStore(),
    log: () => undefined,
  });
  servers.push(server);
  const { data } = await call(server.url, 'POST', '/admin/merchants', adminToken, { name: 'A' });
  const key = await call(
    server.url,
    'POST',
    `/admin/accounts/${data.merchant.account_id}/api-keys`,
    adminToken,
    { permissions },
  );
  const token = key.data.api_key.token as string;
  return (url: string) =>
    call(server.url, 'POST', '/payment/webhooks', token, { url, events: ['acquiring.*'] });
};

const refused = { status: 400, code: 51, message: 'invalid webhook url' };

describe('the server guards outbound urls at create time', () => {
  it('refuses https targets on forbidden addresses', async () => {
    const createWebhook = await merchantOn({});
    for (const url of [
      'https://127.0.0.1/hooks',
      'https://[::ffff:169.254.169.254]/',
      'https://0x0a000001/',
      'https://localhost:8443/',
    ]) {
      expect(await createWebhook(url), url).toMatchObject(refused);
    }
    expect(await createWebhook('https://8.8.8.8/hooks')).toMatchObject({ code: 0 });
  });

  it('lets loopback through with PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1, and nothing more', async () => {
    const createWebhook = await merchantOn({ PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1' });
    expect(await createWebhook('http://localhost:9/hooks')).toMatchObject({ code: 0 });
    expect(await createWebhook('https://127.0.0.1:9/hooks')).toMatchObject({ code: 0 });
    expect(await createWebhook('http://169.254.169.254/latest')).toMatchObject(refused);
    expect(await createWebhook('http://192.168.1.20/hooks')).toMatchObject(refused);
  });
});
