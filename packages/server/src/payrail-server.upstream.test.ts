/**
 * The server registers the built-in `sandbox` acquiring provider in the sandbox, allowed from
 * PAYRAIL_UPSTREAM_SANDBOX_SOURCES (default loopback), and none in live. Through a real socket
 * on 127.0.0.1, so the source check sees the socket's address.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStore } from '@payrail/store-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EnvRecord, parseConfig } from './config.js';
import { type PayrailServer, startPayrail } from './payrail-server.js';
import { call } from './server-process.test-support.js';

let dir = '';
let servers: PayrailServer[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payrail-upstream-'));
  servers = [];
});
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await rm(dir, { recursive: true, force: true });
});

const start = async (env: EnvRecord = {}) => {
  const parsed = parseConfig({ PORT: '0', PAYRAIL_DATA_DIR: dir, ...env }, dir);
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  const server = await startPayrail({
    config: parsed.config,
    adminToken: 'operator-token-0123456789',
    keySecret: new Uint8Array(32).fill(7),
    store: createMemoryStore(),
    log: () => undefined,
    timerIntervalMs: 50,
  });
  servers.push(server);
  return server;
};

const report = (server: PayrailServer, body: unknown) =>
  call(server.url, 'POST', '/upstream/acquiring/sandbox', '', body);

describe('the sandbox upstream provider of the server', () => {
  it('answers from loopback by default', async () => {
    const server = await start();
    expect(await report(server, { events: [] })).toEqual({
      status: 400,
      code: 51,
      message: 'empty upstream webhook event',
      data: null,
    });
  });

  it('refuses loopback when the sources name other addresses', async () => {
    const server = await start({ PAYRAIL_UPSTREAM_SANDBOX_SOURCES: '192.0.2.0/24' });
    expect(await report(server, { events: [] })).toEqual({
      status: 403,
      code: 61,
      message: 'webhook ip not allowed',
      data: null,
    });
  });

  it('is not there in live', async () => {
    const server = await start({ PAYRAIL_ENV: 'live' });
    expect(await report(server, { events: [] })).toEqual({
      status: 404,
      code: 65,
      message: 'unsupported acquiring webhook provider: sandbox',
      data: null,
    });
  });
});
