/**
 * PAYRAIL_INSPECT: a running server's decisions reach the XState inspector. The relay is
 * `@statelyai/inspect/server`'s (what a developer runs beside the inspector UI; in its own
 * process where the test restarts it), and the test reads it as the UI does, through
 * `createWebSocketReceiver`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryStore } from '@payrail/store-memory';
import { freePort } from '@payrail/store-postgres/testing';
import { createWebSocketReceiver, type StatelyInspectionEvent } from '@statelyai/inspect';
import { createInspectorServer } from '@statelyai/inspect/server';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';
import { type PayrailServer, startPayrail } from './payrail-server.js';
import { ok, walkthrough } from './server-process.test-support.js';

const adminToken = 'operator-token-0123456789';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A server with memory store whose decisions go to the relay at `relayPort`; `logs` its lines. */
const startWatched = async (relayPort: number) => {
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
  const logs: string[] = [];
  const server: PayrailServer = await startPayrail({
    config: parsed.config,
    adminToken,
    keySecret: new Uint8Array(32).fill(7),
    store: createMemoryStore(),
    log: (line) => logs.push(line),
  });
  cleanup.push(() => server.stop());
  return { server, logs };
};

/** What the inspector page is told, read through the relay, with when each event came. */
const receive = (relayPort: number) => {
  const received: { event: StatelyInspectionEvent; at: number }[] = [];
  createWebSocketReceiver({ server: `ws://127.0.0.1:${relayPort}` }).subscribe((event) => {
    received.push({ event, at: performance.now() });
  });
  const of = (sessionId: string) =>
    received.map((r) => r.event).filter((event) => event.sessionId === sessionId);
  return { received, of };
};

/** `[type, event type or machine name, snapshot value and status]` of a session's events. */
const story = (events: readonly StatelyInspectionEvent[]) =>
  events.map((event) => {
    if (event.type === '@xstate.actor') {
      return [event.type, event.name, event.snapshot.value, event.snapshot.status];
    }
    return event.type === '@xstate.event'
      ? [event.type, event.event.type]
      : [
          event.type,
          event.event.type,
          'value' in event.snapshot ? event.snapshot.value : null,
          event.snapshot.status,
        ];
  });

/** A payout of the walkthrough's merchant, approved and executed; answers its id. */
let payouts = 0;
const payoutThroughExecution = async (url: string, key: string): Promise<string> => {
  payouts += 1;
  const { payout } = await ok(url, 'POST', '/payment/quickpayout', key, {
    client_request_id: `inspect-${payouts}`,
    currency: 'USD',
    amount: '5.00',
    method_id: 1,
    reference: `INV-${2000 + payouts}`,
    notify_url: 'http://127.0.0.1:9/payrail-payouts',
    beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
    beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'jane@example.com' } },
  });
  const payoutId: string = payout.payout_id;
  await ok(url, 'POST', `/admin/payouts/${payoutId}/review`, adminToken, { action: 'approve' });
  await ok(url, 'POST', `/admin/sandbox/payouts/${payoutId}/execution`, adminToken, {
    outcome: 'completed',
  });
  return payoutId;
};

const serverPackage = fileURLToPath(new URL('..', import.meta.url));

/**
 * `createInspectorServer()` in a process of its own, as a developer runs it, listening on `port`;
 * `kill` ends it as Ctrl-C or a crash would, taking its connections with it.
 */
const startRelayProcess = async (port: number) => {
  const script = `import { createInspectorServer } from '@statelyai/inspect/server';
createInspectorServer({ port: ${port}, autoOpen: false });`;
  const child: ChildProcess = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: serverPackage,
    stdio: 'ignore',
  });
  const exited = once(child, 'exit');
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  cleanup.push(kill);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const probe = connect(port, '127.0.0.1');
      probe.once('connect', () => {
        probe.destroy();
        resolve(true);
      });
      probe.once('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) throw new Error(`the relay did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { listeningAt: performance.now(), kill };
};

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

  it("shows the server's payouts and orders, by their ids, in the inspector, done once final", async () => {
    const relayPort = await freePort();
    const relay = createInspectorServer({ port: relayPort, autoOpen: false });
    cleanup.push(() => relay.stop());
    const { of } = receive(relayPort);
    const { server } = await startWatched(relayPort);

    const { payoutId, orderId } = await walkthrough(server.url, adminToken);

    await expect
      .poll(() => story(of(payoutId)))
      .toEqual([
        ['@xstate.actor', 'payout', { pendingReview: 'awaitingReview' }, 'active'],
        ['@xstate.event', 'xstate.init'],
        ['@xstate.snapshot', 'xstate.init', { pendingReview: 'awaitingReview' }, 'active'],
        ['@xstate.event', 'payout.review.approve'],
        ['@xstate.snapshot', 'payout.review.approve', { approved: 'init' }, 'active'],
        ['@xstate.event', 'payout.execution.completed'],
        // Completed: done for the inspector, as the interface has it final.
        ['@xstate.snapshot', 'payout.execution.completed', { approved: 'completed' }, 'done'],
      ]);
    expect(of(payoutId)[0]).toMatchObject({ sessionId: payoutId });
    expect(of(payoutId).at(-1)).toMatchObject({ snapshot: { context: { payout_id: payoutId } } });
    await expect
      .poll(() => story(of(orderId)))
      .toEqual([
        ['@xstate.actor', 'acquiringOrder', 'pending', 'active'],
        ['@xstate.event', 'xstate.init'],
        ['@xstate.snapshot', 'xstate.init', 'pending', 'active'],
        ['@xstate.event', 'acquiring.payment.observed'],
        ['@xstate.snapshot', 'acquiring.payment.observed', 'completed', 'done'],
      ]);
  });

  it('keeps telling the inspector across a relay restart: what waited, then what follows', async () => {
    const relayPort = await freePort();
    const firstRelay = await startRelayProcess(relayPort);
    const before = receive(relayPort);
    const { server, logs } = await startWatched(relayPort);
    const { key, payoutId } = await walkthrough(server.url, adminToken);
    await expect.poll(() => before.of(payoutId).length).toBe(7);

    // The relay dies; the server notices (it says so) and keeps what happens meanwhile.
    await firstRelay.kill();
    const relayName = `inspector relay ws://127.0.0.1:${relayPort}`;
    await expect
      .poll(() => logs)
      .toContain(`${relayName} is away; keeping the last 200 events until it is back`);
    const second = await payoutThroughExecution(server.url, key);
    await ok(server.url, 'POST', `/admin/sandbox/payouts/${payoutId}/execution`, adminToken, {
      outcome: 'returned',
      reason: 'bounced',
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    // A relay again on the same port, and a page on it.
    const secondRelay = await startRelayProcess(relayPort);
    const after = receive(relayPort);
    await expect.poll(() => after.of(second).length, { timeout: 10_000 }).toBe(7);
    await expect.poll(() => after.of(payoutId).length).toBe(3);
    const reconnectMs = Math.min(...after.received.map((r) => r.at)) - secondRelay.listeningAt;
    console.info(
      `inspector: the restarted relay had the first waiting event ${reconnectMs.toFixed(0)} ms ` +
        `after it listened; ${after.received.length} events reached the page`,
    );
    expect(reconnectMs).toBeLessThan(5_000);
    expect(logs).toContain(`${relayName} is back: sent the 9 events that waited`);

    // The new relay never saw the first payout announced: it is told it, as it last stood.
    expect(story(after.of(payoutId))).toEqual([
      ['@xstate.actor', 'payout', { approved: 'completed' }, 'done'],
      ['@xstate.event', 'payout.execution.returned'],
      ['@xstate.snapshot', 'payout.execution.returned', { approved: 'returned' }, 'done'],
    ]);
    expect(story(after.of(second))).toEqual([
      ['@xstate.actor', 'payout', { pendingReview: 'awaitingReview' }, 'active'],
      ['@xstate.event', 'xstate.init'],
      ['@xstate.snapshot', 'xstate.init', { pendingReview: 'awaitingReview' }, 'active'],
      ['@xstate.event', 'payout.review.approve'],
      ['@xstate.snapshot', 'payout.review.approve', { approved: 'init' }, 'active'],
      ['@xstate.event', 'payout.execution.completed'],
      ['@xstate.snapshot', 'payout.execution.completed', { approved: 'completed' }, 'done'],
    ]);

    // And what happens from then on goes straight through.
    const third = await payoutThroughExecution(server.url, key);
    await expect.poll(() => after.of(third).length).toBe(7);
  });
});
