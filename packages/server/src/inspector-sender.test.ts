/**
 * The inspector sender against a real WebSocket relay (a `ws` server that records what it
 * receives, stopped and started again on the same port as a relay process would be): what waits
 * while the relay is away, what a restarted relay is told, and that nothing it cannot send
 * reaches the caller.
 */
import { freePort } from '@payrail/store-postgres/testing';
import type { StatelyInspectionEvent } from '@statelyai/inspect';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { createInspectorSender, type InspectorSender } from './inspector-sender.js';

/** A relay that keeps what it receives, with the time each message came. */
const startRelay = async (port: number) => {
  const server = new WebSocketServer({ port, host: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const startedAt = performance.now();
  const received: { event: StatelyInspectionEvent; at: number }[] = [];
  let connections = 0;
  server.on('connection', (client) => {
    connections += 1;
    client.on('message', (data) => {
      received.push({ event: JSON.parse(data.toString()), at: performance.now() });
    });
  });
  return {
    startedAt,
    received,
    events: () => received.map((message) => message.event),
    connections: () => connections,
    /** As a relay process that exits: every connection cut, the port free. */
    stop: async () => {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/** `[type, sessionId, what]`: the event's type, the snapshot's value, or the actor's parent. */
const summary = (events: readonly StatelyInspectionEvent[]) =>
  events.map((event) => {
    if (event.type === '@xstate.actor') {
      return [event.type, event.sessionId, event.parentId ?? null, event.snapshot.value];
    }
    return event.type === '@xstate.event'
      ? [event.type, event.sessionId, event.event.type]
      : [event.type, event.sessionId, 'value' in event.snapshot ? event.snapshot.value : null];
  });

interface TestActorRef {
  readonly sessionId: string;
  send(): void;
  getSnapshot(): unknown;
  readonly _parent?: TestActorRef;
}

const actorRef = (sessionId: string, parent?: TestActorRef): TestActorRef => ({
  sessionId,
  send: () => {},
  getSnapshot: () => ({}),
  ...(parent === undefined ? {} : { _parent: parent }),
});

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const sender = (port: number, extra: { keep?: number; log?: (line: string) => void } = {}) => {
  const inspector: InspectorSender = createInspectorSender({
    url: `ws://127.0.0.1:${port}`,
    ...extra,
  });
  cleanup.push(() => inspector.stop());
  return inspector;
};

describe('the inspector sender', () => {
  it('keeps the last events while the relay is away and sends them in order once it starts', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const inspector = sender(port, { keep: 200, log: (line) => lines.push(line) });
    inspector.actor('po_1', { status: 'active', value: 'draft' });
    for (let n = 1; n <= 250; n += 1) inspector.event('po_1', { type: `e${n}` });
    // Long enough for the backoff to reach its longest wait (100, 200, 400, 800, 1,600 ms).
    await new Promise((resolve) => setTimeout(resolve, 2_500));

    const relay = await startRelay(port);
    cleanup.push(() => relay.stop());
    await expect.poll(() => relay.received.length, { timeout: 5_000 }).toBe(201);
    const reconnectMs = (relay.received[0]?.at ?? 0) - relay.startedAt;
    console.info(
      `inspector sender: reconnected ${reconnectMs.toFixed(0)} ms after the relay started`,
    );
    expect(reconnectMs).toBeLessThan(2_500);

    // The actor's announcement was among the 51 oldest, dropped: it is told again, then the
    // last 200 events in the order they were told.
    expect(summary(relay.events())).toEqual([
      ['@xstate.actor', 'po_1', null, 'draft'],
      ...Array.from({ length: 200 }, (_, i) => ['@xstate.event', 'po_1', `e${i + 51}`]),
    ]);
    expect(relay.connections()).toBe(1);
    expect(lines).toEqual([
      `inspector relay ws://127.0.0.1:${port} is away; keeping the last 200 events until it is back`,
      `inspector relay ws://127.0.0.1:${port} is back: sent the 200 events that waited (51 older ones were dropped)`,
    ]);
  });

  it('tells a restarted relay each actor, parent first and as last sent, before its next event', async () => {
    const port = await freePort();
    const first = await startRelay(port);
    const lines: string[] = [];
    const inspector = sender(port, { log: (line) => lines.push(line) });
    const batch = actorRef('bat_1');
    inspector.actor(batch, { status: 'active', value: 'draft' });
    inspector.actor(actorRef('po_1', batch), { status: 'active', value: 'pending' });
    inspector.snapshot('po_1', { status: 'done', value: 'completed' });
    await expect.poll(() => first.received.length).toBe(3);
    expect(summary(first.events())).toEqual([
      ['@xstate.actor', 'bat_1', null, 'draft'],
      ['@xstate.actor', 'po_1', 'bat_1', 'pending'],
      ['@xstate.snapshot', 'po_1', 'completed'],
    ]);

    await first.stop();
    // What is told once the sender saw the relay go waits for the next one. (What is sent in
    // the instant before, into a connection whose end has not reached this process yet, is lost
    // with the relay: no relay acknowledges.)
    await expect.poll(() => lines.length).toBe(1);
    inspector.event('po_1', { type: 'payout.execution.returned' });
    inspector.snapshot('po_1', { status: 'done', value: 'returned' });
    const second = await startRelay(port);
    cleanup.push(() => second.stop());
    await expect.poll(() => second.received.length, { timeout: 5_000 }).toBe(4);
    expect(summary(second.events())).toEqual([
      ['@xstate.actor', 'bat_1', null, 'draft'],
      ['@xstate.actor', 'po_1', 'bat_1', 'completed'],
      ['@xstate.event', 'po_1', 'payout.execution.returned'],
      ['@xstate.snapshot', 'po_1', 'returned'],
    ]);
    // The snapshot it is told with is the last one sent, done included.
    expect(second.events()[1]).toMatchObject({ snapshot: { status: 'done' } });

    // Later events of a known actor go on without announcing it again.
    inspector.event('po_1', { type: 'later' });
    await expect.poll(() => second.received.length).toBe(5);
    expect(summary(second.events().slice(4))).toEqual([['@xstate.event', 'po_1', 'later']]);
  });

  it('drops what it cannot send, throws nothing, and stops connecting once stopped', async () => {
    const port = await freePort();
    const relay = await startRelay(port);
    cleanup.push(() => relay.stop());
    const inspector = sender(port);
    // JSON has no BigInt: this event cannot be sent, the next one is.
    expect(() => inspector.event('po_1', { type: 'unsendable', amount: 10n })).not.toThrow();
    inspector.event('po_1', { type: 'sendable' });
    await expect.poll(() => relay.received.length).toBe(1);
    expect(summary(relay.events())).toEqual([['@xstate.event', 'po_1', 'sendable']]);

    inspector.stop();
    await relay.stop();
    const again = await startRelay(port);
    cleanup.push(() => again.stop());
    inspector.event('po_1', { type: 'after stop' });
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(again.connections()).toBe(0);
  });
});
