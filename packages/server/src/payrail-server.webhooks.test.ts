/**
 * The server runs the webhook dispatcher: events reach a receiver in the background, the
 * sandbox's clock advance makes a retry due and runs it at once, and `stop()` stops the loop.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { permissions } from '@payrail/engine';
import { createMemoryStore } from '@payrail/store-memory';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { type PayrailServer, startPayrail } from './payrail-server.js';
import { call } from './server-process.test-support.js';

const adminToken = 'operator-token-0123456789';

interface Received {
  readonly headers: Record<string, string>;
  readonly body: string;
}

let dir = '';
const cleanups: (() => Promise<void>)[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'payrail-dispatch-'));
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await rm(dir, { recursive: true, force: true });
});

/** Answers 500 to the first `failures` requests, 200 after. */
const receiverFailing = async (failures: number) => {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers[name] = value;
      }
      received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(received.length <= failures ? 500 : 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/payouts` };
};

const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const start = async (): Promise<PayrailServer> => {
  const parsed = parseConfig(
    { PORT: '0', PAYRAIL_DATA_DIR: dir, PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1' },
    dir,
  );
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  const server = await startPayrail({
    config: parsed.config,
    adminToken,
    keySecret: new Uint8Array(32).fill(7),
    store: createMemoryStore(),
    log: () => undefined,
    dispatchIntervalMs: 50,
  });
  cleanups.push(() => server.stop());
  return server;
};

describe('the server runs the webhook dispatcher', () => {
  it('delivers in the background; the clock advance makes the retry due and sends it', async () => {
    const receiver = await receiverFailing(1);
    const server = await start();
    const admin = (method: string, path: string, body?: unknown) =>
      call(server.url, method, path, adminToken, body);
    const { data } = await admin('POST', '/admin/merchants', { name: 'Acme' });
    const accountId = data.merchant.account_id as string;
    const notifySecret = data.merchant.notify_secret as string;
    const key = await admin('POST', `/admin/accounts/${accountId}/api-keys`, { permissions });
    const token = key.data.api_key.token as string;
    await admin('POST', `/admin/accounts/${accountId}/credit`, {
      currency: 'USD',
      amount: '50.00',
    });
    const created = await call(server.url, 'POST', '/payment/quickpayout', token, {
      client_request_id: 'bg-1',
      currency: 'USD',
      amount: '10.00',
      method_id: 1,
      reference: 'BG-1',
      notify_url: receiver.url,
      beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
      beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'j@example.com' } },
    });
    expect(created).toMatchObject({ status: 200, code: 0 });
    const payoutId = created.data.payout.payout_id as string;
    await admin('POST', `/admin/payouts/${payoutId}/review`, { action: 'approve' });

    // The loop sends it (the receiver answers 500); the retry is 5 s away on the engine's clock.
    await until(() => receiver.received.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(1);
    const advanced = await admin('POST', '/admin/sandbox/clock/advance', { seconds: 5 });
    expect(advanced).toMatchObject({ status: 200, code: 0 });
    // The advance ran the dispatcher before answering.
    expect(receiver.received).toHaveLength(2);
    const [first, second] = receiver.received;
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    const payload = new Webhook(notifySecret).verify(second?.body ?? '', second?.headers ?? {});
    expect(payload).toMatchObject({
      event_type: 'payout.review.approved',
      business_id: payoutId,
      version: 'v1',
    });
  });
});
