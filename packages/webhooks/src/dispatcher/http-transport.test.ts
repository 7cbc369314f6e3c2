import { afterEach, describe, expect, it } from 'vitest';
import { forbiddenUrls } from '../ssrf/forbidden-urls.test-support.js';
import {
  closedPort,
  type Receiver,
  type Responder,
  startReceiver,
} from './dispatcher.test-support.js';
import {
  type HttpTransportOptions,
  httpTransport,
  type OutboundRequest,
} from './http-transport.js';

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const receiverOf = async (responder?: Responder): Promise<Receiver> => {
  const receiver = await startReceiver(responder);
  receivers.push(receiver);
  return receiver;
};

const insecure = httpTransport({ allowInsecure: true });

const post = (url: string, overrides: Partial<OutboundRequest> = {}): OutboundRequest => ({
  url,
  headers: { 'webhook-id': 'evt_1' },
  body: '{"hello":"world"}',
  timeoutMs: 2000,
  ...overrides,
});

describe('the HTTP transport', () => {
  it('POSTs the JSON body with its headers and answers the status, body and latency', async () => {
    const receiver = await receiverOf(() => ({ status: 202, body: '{"ok":true}' }));
    const response = await insecure(post(receiver.url('/hook?x=1')));
    expect(response).toEqual({
      statusCode: 202,
      body: '{"ok":true}',
      error: null,
      latencyMs: expect.any(Number),
    });
    const [request] = receiver.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/hook?x=1', body: '{"hello":"world"}' });
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': '17',
      'webhook-id': 'evt_1',
      'user-agent': 'payrail-webhooks/1',
    });
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const receiver = await receiverOf((request) =>
      request.path === '/moved' ? { status: 307, body: 'see /elsewhere' } : { status: 200 },
    );
    const response = await insecure(post(receiver.url('/moved')));
    expect(response).toMatchObject({ statusCode: 307, error: null });
    expect(receiver.requests.map((r) => r.path)).toEqual(['/moved']);
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const receiver = await receiverOf(() => 'hang');
    const response = await insecure(post(receiver.url('/slow'), { timeoutMs: 150 }));
    expect(response).toMatchObject({
      statusCode: null,
      body: '',
      error: 'timeout: no complete answer within 150 ms',
    });
    expect(response.latencyMs).toBeGreaterThanOrEqual(140);
    expect(response.latencyMs).toBeLessThan(1500);
  });

  it('reports a refused connection and a dropped one', async () => {
    const port = await closedPort();
    expect(await insecure(post(`http://127.0.0.1:${port}/`))).toMatchObject({
      statusCode: null,
      error: 'connection failed: ECONNREFUSED',
    });
    const receiver = await receiverOf(() => 'drop');
    const dropped = await insecure(post(receiver.url('/')));
    expect(dropped.statusCode).toBeNull();
    expect(dropped.error).toMatch(/^connection failed: /);
  });

  it('keeps at most maxResponseBytes of the answer', async () => {
    const receiver = await receiverOf(() => ({ status: 200, body: 'x'.repeat(100_000) }));
    const transport = httpTransport({ allowInsecure: true, maxResponseBytes: 1000 });
    const response = await transport(post(receiver.url('/')));
    expect(response).toMatchObject({ statusCode: 200, error: null });
    expect(response.body).toBe('x'.repeat(1000));
  });

  it('stops when its signal aborts', async () => {
    const receiver = await receiverOf(() => 'hang');
    const aborter = new AbortController();
    setTimeout(() => aborter.abort(), 50);
    const response = await insecure(
      post(receiver.url('/'), { timeoutMs: 5000, signal: aborter.signal }),
    );
    expect(response).toMatchObject({ statusCode: null, error: 'aborted: the dispatcher stopped' });
    expect(response.latencyMs).toBeLessThan(2000);
    expect(await insecure(post(receiver.url('/'), { signal: aborter.signal }))).toMatchObject({
      error: 'aborted: the dispatcher stopped',
    });
  });
});

describe('the SSRF guard at delivery time', () => {
  const secure = (options: Partial<HttpTransportOptions> = {}) =>
    httpTransport({ allowInsecure: false, ...options });

  it('refuses http and literal internal addresses before connecting', async () => {
    const receiver = await receiverOf();
    const refusals = await Promise.all(
      [
        receiver.url('/'),
        `https://127.0.0.1:${receiver.port}/`,
        'https://169.254.169.254/latest/meta-data',
        'https://[::ffff:127.0.0.1]/',
        'https://0x7f000001/',
        'https://10.1.2.3/',
        'https://localhost/',
      ].map((url) => secure()(post(url))),
    );
    for (const response of refusals) {
      expect(response).toMatchObject({ statusCode: null, latencyMs: 0 });
      expect(response.error).toMatch(/^target refused: /);
    }
    expect(refusals[0]?.error).toBe('target refused: scheme http not allowed');
    expect(receiver.requests).toEqual([]);
  });

  it.each(forbiddenUrls)('refuses to deliver to %s (%s) without connecting', async (url) => {
    const response = await secure()(post(url));
    expect(response).toMatchObject({ statusCode: null, latencyMs: 0 });
    expect(response.error).toMatch(/^target refused: /);
  });

  it('refuses a name that resolves to a forbidden address, judged on the address connected to', async () => {
    const transport = secure({ resolver: async () => [{ address: '10.0.0.5', family: 4 }] });
    expect(await transport(post('https://hooks.example.com/in'))).toMatchObject({
      statusCode: null,
      error: 'target refused: hooks.example.com resolves to 10.0.0.5 (private address)',
    });
    const rebinding = secure({
      resolver: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ],
    });
    const response = await rebinding(post('https://hooks.example.com/in'));
    expect(response.error).toMatch(/^target refused: hooks\.example\.com resolves to 169\.254/);
  });

  it('connects to the address the guard resolved (sandbox: loopback allowed)', async () => {
    const receiver = await receiverOf();
    const transport = httpTransport({
      allowInsecure: true,
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const response = await transport(post(`http://receiver.example.com:${receiver.port}/x`));
    expect(response).toMatchObject({ statusCode: 200, error: null });
    expect(receiver.requests[0]?.headers.host).toBe(`receiver.example.com:${receiver.port}`);
  });
});
