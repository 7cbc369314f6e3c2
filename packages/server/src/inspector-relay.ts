/**
 * `payrail inspect-relay`: the relay between payrail's inspector sender (PAYRAIL_INSPECT) and the
 * Stately inspector in a browser. It speaks what `@statelyai/inspect/server`'s
 * `createInspectorServer` speaks (every text message from one client goes to all the others, and
 * the last 200 are replayed to a client that connects; its page loads the inspector UI from
 * stately.ai in a frame and hands it the events), with three differences: it listens on
 * 127.0.0.1 unless told otherwise (the events carry every payout, order and batch decision), at
 * 8095 rather than 8080 (payrail's own port), and it refuses a WebSocket opened by a page of
 * another origin (a site in the same browser reading the events).
 */
import { createServer, type IncomingMessage } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';

/** Not 8080, payrail's port and `@statelyai/inspect`'s default; not 9090, Prometheus's. */
const defaultInspectorRelayPort = 8095;

/** What a client that connects is sent first, as `createInspectorServer` replays. */
const replayed = 200;

const inspectorUi = 'https://stately.ai/inspect';

/** The page that frames the Stately inspector and hands it what the relay receives. */
const bridgePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>payrail: XState inspector</title>
<style>html, body { height: 100%; margin: 0; } iframe { width: 100%; height: 100%; border: 0; }</style>
</head>
<body>
<iframe id="inspector" src="${inspectorUi}"></iframe>
<script>
  const inspector = document.getElementById('inspector');
  const inspectorOrigin = '${new URL(inspectorUi).origin}';
  const early = [];
  let ready = false;
  window.addEventListener('message', (message) => {
    if (message.origin !== inspectorOrigin) return;
    if (message.data === null || typeof message.data !== 'object') return;
    if (message.data.type !== '@statelyai.connected') return;
    ready = true;
    for (const event of early.splice(0)) inspector.contentWindow.postMessage(event, inspectorOrigin);
  });
  const relay = new WebSocket('ws://' + location.host);
  relay.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (ready) inspector.contentWindow.postMessage(event, inspectorOrigin);
    else early.push(event);
  };
  relay.onclose = () => {
    document.title = 'payrail: the relay is gone (reload this page once it runs again)';
  };
</script>
</body>
</html>
`;

export interface InspectorRelayOptions {
  /** Default 8095; 0 picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
}

export interface InspectorRelay {
  /** What PAYRAIL_INSPECT names, e.g. `ws://127.0.0.1:8095`. */
  readonly url: string;
  /** The page to open in a browser, e.g. `http://127.0.0.1:8095/`. */
  readonly page: string;
  /** Cuts every connection and stops listening. */
  stop(): Promise<void>;
}

/**
 * The names a request may give the relay in `Host`: its own address and the loopback names, with
 * its port. Anything else is a page of another site whose name was rebound to this machine (DNS
 * rebinding): it gets neither the page nor the events.
 */
const hostsOf = (host: string, port: number): ReadonlySet<string> =>
  new Set([host, '127.0.0.1', 'localhost', '::1'].map((name) => `${hostInUrl(name)}:${port}`));

/** A browser's WebSocket names the page that opened it: only the relay's own page may. */
const sameOrigin = (request: IncomingMessage, hosts: ReadonlySet<string>): boolean => {
  const named = request.headers.host ?? '';
  if (!hosts.has(named)) return false;
  const origin = request.headers.origin;
  return origin === undefined || origin === `http://${named}`;
};

const hostInUrl = (host: string): string => (host.includes(':') ? `[${host}]` : host);

export const startInspectorRelay = async (
  options: InspectorRelayOptions = {},
): Promise<InspectorRelay> => {
  const host = options.host ?? '127.0.0.1';
  let hosts: ReadonlySet<string> = new Set();
  const http = createServer((request, response) => {
    if (!hosts.has(request.headers.host ?? '')) {
      response.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('another host\n');
      return;
    }
    const found = request.method === 'GET' && (request.url === '/' || request.url === '');
    response.writeHead(found ? 200 : 404, {
      'content-type': found ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
    });
    response.end(found ? bridgePage : 'not found\n');
  });
  const relay = new WebSocketServer({
    server: http,
    verifyClient: ({ req }, done) => done(sameOrigin(req, hosts), 403, 'another origin'),
  });
  const recent: string[] = [];
  relay.on('connection', (client) => {
    client.on('error', () => {});
    for (const message of recent) client.send(message);
    client.on('message', (data, isBinary) => {
      if (isBinary) return;
      const message = data.toString();
      recent.push(message);
      if (recent.length > replayed) recent.shift();
      for (const other of relay.clients) {
        if (other !== client && other.readyState === WebSocket.OPEN) other.send(message);
      }
    });
  });
  // The HTTP server's errors reach the relay too; listening's are handled below.
  relay.on('error', () => {});

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? defaultInspectorRelayPort, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  hosts = hostsOf(host, port);
  const at = `${hostInUrl(host)}:${port}`;
  return {
    url: `ws://${at}`,
    page: `http://${at}/`,
    stop: async () => {
      for (const client of relay.clients) client.terminate();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
};
