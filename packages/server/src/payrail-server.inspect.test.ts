/**
 * PAYRAIL_INSPECT: a running server's decisions reach the XState inspector. The relay is
 * `@statelyai/inspect/server`'s (what a developer runs beside the inspector UI), and the test
 * reads it as the UI does, through `createWebSocketReceiver`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryStore } from '@payrail/store-memory';
import { createWebSocketReceiver, type StatelyInspectionEvent } from '@statelyai/inspect';
import { createInspectorServer } from '@statelyai/inspect/server';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { type PayrailServer, startPayrail } from './payrail-server.js';
import { walkthrough } from './server-process.test-support.js';

const adminToken = 'operator-token-0123456789';

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

describe('PAYRAIL_INSPECT', () => {
  it('refuses an address that is not ws:// or wss://', () => {
    const parsed = parseConfig({ PAYRAIL_INSPECT: 'http://127.0.0.1:8080' }, '/tmp');
    expect(parsed).toEqual({
      ok: false,
      errors: [
        'PAYRAIL_INSPECT must be the ws:// or wss:// address of an inspector relay, not "http://127.0.0.1:8080"',
      ],
    });
  });

  it("shows the server's payouts and orders, by their ids, in the inspector", async () => {
    const relayPort = await freePort();
    const relay = createInspectorServer({ port: relayPort, autoOpen: false });
    cleanup.push(() => relay.stop());
    const received: StatelyInspectionEvent[] = [];
    const receiver = createWebSocketReceiver({ server: `ws://127.0.0.1:${relayPort}` });
    receiver.subscribe((event) => {
      received.push(event);
    });

    const dir = await mkdtemp(join(tmpdir(), 'payrail-inspect-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const parsed = parseConfig(
      {
        PORT: '0',
        PAYRAIL_DATA_DIR: dir,
        PAYRAIL_ALLOW_INSECURE_WEBHOOKS: '1',
        PAYRAIL_INSPECT: `ws://127.0.0.1:${relayPort}`,
      },
      dir,
    );
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const server: PayrailServer = await startPayrail({
      config: parsed.config,
      adminToken,
      keySecret: new Uint8Array(32).fill(7),
      store: createMemoryStore(),
      log: () => undefined,
    });
    cleanup.push(() => server.stop());

    const { payoutId, orderId } = await walkthrough(server.url, adminToken);

    const of = (sessionId: string) => received.filter((event) => event.sessionId === sessionId);
    await expect
      .poll(() =>
        of(payoutId)
          .filter((event) => event.type === '@xstate.event')
          .map((event) => event.type === '@xstate.event' && event.event.type),
      )
      .toEqual(['xstate.init', 'payout.review.approve', 'payout.execution.completed']);
    const actor = of(payoutId).find((event) => event.type === '@xstate.actor');
    expect(actor).toMatchObject({ name: 'payout', sessionId: payoutId });
    const last = of(payoutId).at(-1);
    expect(last?.type === '@xstate.snapshot' && last.snapshot).toMatchObject({
      context: { payout_id: payoutId },
    });
    await expect
      .poll(() => of(orderId).find((event) => event.type === '@xstate.actor'))
      .toMatchObject({ name: 'acquiringOrder', sessionId: orderId });
  });
});
