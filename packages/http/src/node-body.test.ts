/**
 * The body read off Node's request (node-body.ts, issue 24) is the text `Request.text()` gives:
 * UTF-8, a leading byte order mark dropped, a character split across chunks whole; and a body
 * that passes the limit stops being read. Served by `app.request` (no Node request), Hono reads.
 */
import { request } from 'node:http';
import { serve as honoServe } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyTextOf, nodeBodyOf, nodeRequestOf } from './node-body.js';

const app = new Hono();
app.post('/text', async (c) =>
  c.json({ text: await bodyTextOf(c), node: nodeRequestOf(c) !== undefined }),
);
app.post('/limited', async (c) => {
  const incoming = nodeRequestOf(c);
  if (incoming === undefined) return c.json({ body: 'no node request' });
  const body = await nodeBodyOf(incoming, 8);
  return c.json({ body: body === 'too large' ? body : body.bytes.length }, 200, {
    Connection: 'close',
  });
});

let port = 0;
let close: () => void = () => undefined;
beforeAll(async () => {
  await new Promise<void>((resolve) => {
    const server = honoServe({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      port = info.port;
      resolve();
    });
    close = () => server.close();
  });
});
afterAll(() => close());

/** POSTs `chunks` (chunked, each written on its own) and answers the JSON answer. */
const post = (path: string, chunks: readonly Buffer[]) =>
  new Promise<unknown>((resolve, reject) => {
    const req = request({ hostname: '127.0.0.1', port, path, method: 'POST' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });

describe('a body read off Node’s request', () => {
  it('is the text Request.text() gives: BOM dropped, a character split across chunks whole', async () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Zoë €"}')]);
    const at = bytes.indexOf(Buffer.from('€')) + 1;
    expect(await post('/text', [bytes.subarray(0, at), bytes.subarray(at)])).toEqual({
      text: '{"name":"Zoë €"}',
      node: true,
    });
    const viaHono = await app.request('/text', { method: 'POST', body: bytes });
    expect(await viaHono.json()).toEqual({ text: '{"name":"Zoë €"}', node: false });
  });

  it('stops being read once it passes the limit', async () => {
    expect(await post('/limited', [Buffer.from('12345'), Buffer.from('6789')])).toEqual({
      body: 'too large',
    });
    expect(await post('/limited', [Buffer.from('1234'), Buffer.from('5678')])).toEqual({ body: 8 });
  });
});
