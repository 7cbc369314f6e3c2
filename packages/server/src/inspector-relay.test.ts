/**
 * `payrail inspect-relay`: the relay between payrail's inspector sender and the inspector page,
 * read as the Stately inspector reads it (`@statelyai/inspect`'s `createWebSocketReceiver`).
 */
import { request } from 'node:http';
import { createServer } from 'node:net';
import { createWebSocketReceiver, type StatelyInspectionEvent } from '@statelyai/inspect';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type CliIo, runCli } from './cli-commands.js';
import { startInspectorRelay } from './inspector-relay.js';
import { createInspectorSender } from './inspector-sender.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const receive = (url: string) => {
  const received: StatelyInspectionEvent[] = [];
  createWebSocketReceiver({ server: url }).subscribe((event) => {
    received.push(event);
  });
  return received;
};

const send = (url: string) => {
  const inspector = createInspectorSender({ url });
  cleanup.push(() => inspector.stop());
  return inspector;
};

/** How a WebSocket opened with these headers fares: `open`, the HTTP status, or `refused`. */
const handshake = (url: string, headers: Record<string, string>): Promise<string> =>
  new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.close();
      resolve('open');
    });
    ws.once('unexpected-response', (_request, response) => resolve(String(response.statusCode)));
    ws.once('error', () => resolve('refused'));
  });

/** The status of a GET of `page` sent with the given `Host` header (fetch would not send it). */
const statusOf = (page: string, host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const sent = request(page, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    sent.once('error', reject);
    sent.end();
  });

describe('the inspector relay', () => {
  it('passes events from payrail to the inspector, and replays them to a page opened later', async () => {
    const relay = await startInspectorRelay({ port: 0 });
    cleanup.push(() => relay.stop());
    expect(relay.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const early = receive(relay.url);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const inspector = send(relay.url);
    inspector.actor('po_1', { status: 'active', value: 'draft' });
    inspector.snapshot('po_1', { status: 'done', value: 'completed' });
    await expect
      .poll(() => early.map((event) => event.type))
      .toEqual(['@xstate.actor', '@xstate.snapshot']);
    const late = receive(relay.url);
    await expect.poll(() => late).toEqual(early);
  });

  it('serves the page that frames the Stately inspector, and refuses a page of another origin', async () => {
    const relay = await startInspectorRelay({ port: 0 });
    cleanup.push(() => relay.stop());
    const page = await fetch(relay.page);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<iframe id="inspector" src="https://stately.ai/inspect">');
    expect(html).toContain("new WebSocket('ws://' + location.host)");
    expect((await fetch(new URL('/other', relay.page))).status).toBe(404);

    const host = new URL(relay.page).host;
    expect(await handshake(relay.url, {})).toBe('open');
    expect(await handshake(relay.url, { Origin: `http://${host}` })).toBe('open');
    expect(await handshake(relay.url, { Origin: 'https://evil.example' })).toBe('403');
    // DNS rebinding: a page of evil.example whose name now points here names itself in both.
    const port = new URL(relay.page).port;
    const rebound = { Host: `evil.example:${port}`, Origin: `http://evil.example:${port}` };
    expect(await handshake(relay.url, rebound)).toBe('403');
    expect(await handshake(relay.url, { Host: `evil.example:${port}` })).toBe('403');
    expect(await statusOf(relay.page, `evil.example:${port}`)).toBe(403);
    expect(await statusOf(relay.page, `localhost:${port}`)).toBe(200);
  });
});

const io = (until: Promise<void>) => {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIo = {
    env: {},
    cwd: '/srv/payrail',
    fetch: globalThis.fetch,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    untilStopped: () => until,
  };
  return { cli, out, err };
};

const busyPort = async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
};

describe('payrail inspect-relay', () => {
  it('runs the relay until stopped, and says what to set and what to open', async () => {
    let stop = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const run = io(stopped);
    const exit = runCli(['inspect-relay', '--port', '0'], run.cli);
    await expect.poll(() => run.out.length).toBe(3);
    const url = /listening on (ws:\/\/\S+)/.exec(run.out[0] ?? '')?.[1] ?? '';
    expect(run.out).toEqual([
      `payrail: inspector relay listening on ${url} (Ctrl-C stops it)`,
      `  start payrail with PAYRAIL_INSPECT=${url}`,
      `  open ${url.replace('ws://', 'http://')}/ in a browser for the Stately inspector`,
    ]);
    const received = receive(url);
    await new Promise((resolve) => setTimeout(resolve, 100));
    send(url).event('po_1', { type: 'payout.review.approve' });
    await expect.poll(() => received.length).toBe(1);

    stop();
    expect(await exit).toBe(0);
    expect(await handshake(url, {})).toBe('refused');
  });

  it('exits 1 with a hint when the port is taken, 2 on a wrong port', async () => {
    const port = await busyPort();
    const taken = io(Promise.resolve());
    expect(await runCli(['inspect-relay', '--port', String(port)], taken.cli)).toBe(1);
    expect(taken.err[0]).toMatch(/^payrail: the inspector relay cannot listen: .*EADDRINUSE/);
    expect(taken.err[1]).toBe('Give it another port with --port.');

    const wrong = io(Promise.resolve());
    expect(await runCli(['inspect-relay', '--port', '80800'], wrong.cli)).toBe(2);
    expect(wrong.err[0]).toBe(
      'payrail: inspect-relay: --port must be a port number (0 picks a free one), not "80800"',
    );
  });
});
