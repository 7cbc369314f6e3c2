import { Agent, request, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createApp } from './create-app.js';
import { fakeEngine } from './fake-engine.test-support.js';
import { serve } from './serve.js';

/** A GET over a real socket from a chosen local address (the whole 127/8 is loopback). */
const get = (url: string, path: string, headers: Record<string, string>, localAddress: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = request({ hostname, port, path, headers, localAddress }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });

interface Posted {
  readonly status: number;
  readonly connection: string | undefined;
  readonly body: string;
  readonly socket: Socket;
}

/** A POST through a keep-alive agent, answering the socket it travelled on. */
const post = (url: string, agent: Agent, body: string, headers: Record<string, string> = {}) =>
  new Promise<Posted>((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const req = request(
      {
        hostname,
        port,
        path: '/payment/quickpayout',
        method: 'POST',
        agent,
        headers: { 'X-API-Key': 'alice-token', 'Content-Type': 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        const socket = res.socket as Socket;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            connection: res.headers.connection,
            body: text,
            socket,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });

/** Whether the server ends the socket within a second. */
const closesSoon = (socket: Socket) =>
  new Promise<boolean>((resolve) => {
    if (socket.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), 1000);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });

describe('serve', () => {
  it('serves the app on a Node socket, hands authentication the socket address, and closes', async () => {
    const fake = fakeEngine();
    const running = await serve(createApp({ engine: fake.engine, adminToken: 'op' }), {
      port: 0,
      hostname: '127.0.0.1',
    });
    try {
      expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const doc = await get(running.url, '/openapi.json', {}, '127.0.0.1');
      expect(doc.status).toBe(200);
      expect(JSON.parse(doc.body)).toMatchObject({ openapi: '3.1.0' });
      const me = await get(
        running.url,
        '/payment/account',
        { 'X-API-Key': 'alice-token' },
        '127.0.0.3',
      );
      expect(JSON.parse(me.body)).toEqual({
        code: 0,
        message: 'success',
        data: { use_case: 'accounts.current' },
      });
      expect(fake.authentications).toEqual([{ token: 'alice-token', ip: '127.0.0.3' }]);
    } finally {
      await running.close();
    }
    await expect(get(running.url, '/openapi.json', {}, '127.0.0.1')).rejects.toThrow();
  });

  it('rejects when the port is taken', async () => {
    const app = createApp({ engine: fakeEngine().engine, adminToken: 'op' });
    const first = await serve(app, { port: 0, hostname: '127.0.0.1' });
    try {
      const port = Number(new URL(first.url).port);
      await expect(serve(app, { port, hostname: '127.0.0.1' })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });

  it('a body over 1 MiB is refused with `Connection: close`, and the connection does close', async () => {
    const running = await serve(createApp({ engine: fakeEngine().engine, adminToken: 'op' }), {
      port: 0,
      hostname: '127.0.0.1',
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const small = await post(running.url, agent, '{}');
      // A normal answer says keep-alive, and the next request does travel on the same socket.
      expect([small.status, small.connection]).toEqual([200, 'keep-alive']);
      expect((await post(running.url, agent, '{}')).socket).toBe(small.socket);

      const over = JSON.stringify({ remark: 'x'.repeat(1024 * 1024) });
      for (const headers of [{}, { 'Transfer-Encoding': 'chunked' }]) {
        const refused = await post(running.url, agent, over, headers);
        expect(
          {
            status: refused.status,
            connection: refused.connection,
            body: JSON.parse(refused.body),
          },
          JSON.stringify(headers),
        ).toEqual({
          status: 400,
          connection: 'close',
          body: { code: 51, message: 'Validation Failed', data: null },
        });
        expect(await closesSoon(refused.socket)).toBe(true);
        // The client, told the truth, opens a new connection and is answered.
        const next = await post(running.url, agent, '{}');
        expect([next.status, next.socket === refused.socket]).toEqual([200, false]);
      }
    } finally {
      agent.destroy();
      await running.close();
    }
  });

  describe('finding 6: header, body and idle timeouts', () => {
    /**
     * A raw client that sends `head` and then one byte of body every 50 ms, for ever: answers
     * after how many ms the server ended the connection and what it said, or `undefined` after
     * `patienceMs`.
     */
    const dribble = (url: string, head: string, patienceMs: number) =>
      new Promise<{ ms: number; said: string } | undefined>((resolve) => {
        const { hostname, port } = new URL(url);
        const socket = connect(Number(port), hostname);
        const started = Date.now();
        let said = '';
        const tick = setInterval(() => socket.writable && socket.write('{'), 50);
        const done = (result: { ms: number; said: string } | undefined) => {
          clearInterval(tick);
          clearTimeout(patience);
          socket.destroy();
          resolve(result);
        };
        const patience = setTimeout(() => done(undefined), patienceMs);
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => {
          said += chunk;
        });
        socket.on('error', () => undefined);
        socket.on('close', () => done({ ms: Date.now() - started, said }));
        socket.write(head);
      });

    const slowBodyHead =
      'POST /payment/quickpayout HTTP/1.1\r\nHost: x\r\nX-API-Key: alice-token\r\n' +
      'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n';

    it('a slow body is cut off (408) once the request timeout has passed', async () => {
      const fake = fakeEngine();
      const logged: unknown[] = [];
      const app = createApp({
        engine: fake.engine,
        adminToken: 'op',
        logInternalError: (entry) => logged.push(entry),
      });
      const running = await serve(app, {
        port: 0,
        hostname: '127.0.0.1',
        requestTimeoutMs: 300,
        headersTimeoutMs: 200,
      });
      try {
        const cut = await dribble(running.url, slowBodyHead, 5_000);
        expect(cut, 'the connection is still open after 5 s').toBeDefined();
        expect(cut?.ms).toBeLessThan(2_000);
        expect(cut?.said).toMatch(/^HTTP\/1\.1 408 /);
        // A body the client never finished is the client's failure, not ours: a flood of slow
        // clients writes no internal-error line.
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(logged).toEqual([]);
      } finally {
        (running.server as Server).closeAllConnections();
        await running.close();
      }
    });

    it('headers that never end are cut off once the headers timeout has passed', async () => {
      const fake = fakeEngine();
      const running = await serve(createApp({ engine: fake.engine, adminToken: 'op' }), {
        port: 0,
        hostname: '127.0.0.1',
        requestTimeoutMs: 1_000,
        headersTimeoutMs: 200,
      });
      try {
        const cut = await dribble(running.url, 'GET /openapi.json HTTP/1.1\r\nX-Slow: ', 5_000);
        expect(cut, 'the connection is still open after 5 s').toBeDefined();
        expect(cut?.ms).toBeLessThan(1_000);
      } finally {
        (running.server as Server).closeAllConnections();
        await running.close();
      }
    });

    it('defaults: 30 s for a request, 20 s for its headers, 5 s idle', async () => {
      const running = await serve(createApp({ engine: fakeEngine().engine, adminToken: 'op' }), {
        port: 0,
        hostname: '127.0.0.1',
      });
      try {
        const server = running.server as Server;
        expect([server.requestTimeout, server.headersTimeout, server.keepAliveTimeout]).toEqual([
          30_000, 20_000, 5_000,
        ]);
      } finally {
        await running.close();
      }
    });
  });
});
