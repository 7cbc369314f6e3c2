import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { readJsonBody } from './request-body.js';

/** What `readJsonBody` hands the engine for `text`, and what an assigning copy of it reads. */
const read = async (text: string) => {
  let body: unknown;
  const app = new Hono().post('/', async (c) => {
    body = await readJsonBody(c);
    return c.body(null, 204);
  });
  await app.request('/', { method: 'POST', body: text });
  return body as Record<string, unknown> | undefined;
};

describe('the JSON request body', () => {
  it('is undefined when empty or unparsable', async () => {
    expect(await read('')).toBeUndefined();
    expect(await read('  \n')).toBeUndefined();
    expect(await read('{"a":1,}')).toBeUndefined();
  });

  it('issue 19, L2: has no "__proto__" member that a copy could make its prototype, however deep', async () => {
    const body = await read(
      '{"url":"https://a.example","__proto__":{"status":"inactive"},' +
        '"nested":{"__proto__":null,"list":[{"__proto__":[1]},{"k":{"\\u005f_proto__":{"x":1}}}]}}',
    );
    expect(body).toEqual({ url: 'https://a.example', nested: { list: [{}, { k: {} }] } });
    // What io-ts's copy of a decoded object does: assign its members to a fresh object.
    expect(Object.assign({}, body)).not.toHaveProperty('status');
    expect(JSON.stringify(body)).not.toContain('__proto__');
  });

  it('keeps a "__proto__" that cannot become a prototype, and "constructor" and "prototype", as members', async () => {
    const text =
      '{"fields":{"__proto__":"x"},"constructor":{"prototype":{"status":"inactive"}},' +
      '"prototype":{"status":"inactive"}}';
    const body = await read(text);
    expect(JSON.stringify(body)).toBe(text);
    expect(Object.assign({}, body)).not.toHaveProperty('status');
  });

  it('is walked without the call stack: a body nested 100,000 deep is read', async () => {
    const depth = 100_000;
    const body = await read(`${'{"a":'.repeat(depth)}{"__proto__":{"b":1}}${'}'.repeat(depth)}`);
    let inner: unknown = body;
    for (let i = 0; i < depth; i += 1) inner = (inner as { a: unknown }).a;
    expect(inner).toEqual({});
  });
});
