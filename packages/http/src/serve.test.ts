import { request } from 'node:http';
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
});
