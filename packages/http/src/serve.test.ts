import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
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
});
