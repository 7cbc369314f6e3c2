import { errorCatalogue } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import { createApp } from '../create-app.js';
import { fakeEngine } from '../fake-engine.test-support.js';
import { routes } from '../routes/route-table.js';
import type { OpenApiDocument } from './openapi.document.js';

type Operation = {
  parameters: { name: string; in: string; schema: Record<string, unknown> }[];
  requestBody?: { content: { 'application/json': { schema: Record<string, unknown> } } };
  responses: Record<
    string,
    {
      description: string;
      headers?: Record<string, unknown>;
      content: {
        'application/json': { schema: unknown; examples?: Record<string, { value: unknown }> };
      };
    }
  >;
  security: unknown[];
  'x-permissions'?: string[];
};

const served = async () => {
  const app = createApp({ engine: fakeEngine().engine, adminToken: 'op' });
  const res = await app.request('/openapi.json');
  expect(res.status).toBe(200);
  return { app, document: (await res.json()) as OpenApiDocument };
};

const operation = (document: OpenApiDocument, path: string, method: string): Operation => {
  const op = (document.paths[path] as Record<string, Operation> | undefined)?.[method];
  if (op === undefined) throw new Error(`${method} ${path} is not documented`);
  return op;
};

const examples = (op: Operation, status: string) =>
  Object.values(op.responses[status]?.content['application/json'].examples ?? {}).map(
    (example) => (example.value as { message: string }).message,
  );

describe('/openapi.json', () => {
  it('is OpenAPI 3.1 and needs no credential', async () => {
    const { document } = await served();
    expect(document.openapi).toBe('3.1.0');
  });

  it('documents every route the app serves (Hono’s own route list is the oracle)', async () => {
    const { app, document } = await served();
    const registered = app.routes.filter(
      (route) => route.method !== 'ALL' && route.path !== '/openapi.json',
    );
    expect(registered.length).toBeGreaterThanOrEqual(66);
    for (const route of registered) {
      const path = route.path.replace(/:([a-z_]+)/g, '{$1}');
      expect(
        () => operation(document, path, route.method.toLowerCase()),
        `${route.method} ${path}`,
      ).not.toThrow();
    }
    const documented = Object.values(document.paths).flatMap((methods) => Object.keys(methods));
    expect(documented).toHaveLength(registered.length);
  });

  it('declares each path parameter, and a unique operationId per operation', async () => {
    const { document } = await served();
    const ids = new Set<string>();
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const op of Object.values(methods) as (Operation & { operationId: string })[]) {
        const inPath = Array.from(path.matchAll(/\{([a-z_]+)\}/g), (m) => m[1]);
        expect(op.parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(inPath);
        expect(ids.has(op.operationId)).toBe(false);
        ids.add(op.operationId);
      }
    }
  });

  it('describes the success envelope and each error status with catalogue messages', async () => {
    const { document } = await served();
    const create = operation(document, '/payment/quickpayout', 'post');
    expect(create.responses['200']?.content['application/json'].schema).toMatchObject({
      properties: {
        code: { const: 0 },
        message: { const: 'success' },
        data: { required: ['payout'] },
      },
    });
    expect(examples(create, '400')).toEqual(
      expect.arrayContaining([
        'request required',
        'reference already exists',
        'beneficiary profile incomplete: missing <fields>',
      ]),
    );
    expect(examples(create, '401')).toEqual(
      expect.arrayContaining(['unauthorized', 'api key version mismatch']),
    );
    expect(examples(create, '403')).toEqual(
      expect.arrayContaining(['forbidden', 'ip not allowed: <ip>', 'account frozen']),
    );
    expect(examples(create, '429')).toEqual(['rate limit exceeded']);
    expect(create.responses['429']?.headers).toHaveProperty('Retry-After');
    expect(examples(create, '500')).toEqual(['internal error']);
    expect(create['x-permissions']).toEqual(['payment.payout.create', 'payment.payout.submit']);

    const get = operation(document, '/payment/payouts/{payout_id}', 'get');
    expect(examples(get, '404')).toEqual(['payout not found']);
    expect(get.requestBody).toBeUndefined();
  });

  it('files every example under the status its catalogue entry maps to', async () => {
    const { document } = await served();
    for (const methods of Object.values(document.paths)) {
      for (const op of Object.values(methods) as Operation[]) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (status === '200') continue;
          for (const [key, example] of Object.entries(
            response.content['application/json'].examples ?? {},
          )) {
            const entry = errorCatalogue[key as keyof typeof errorCatalogue];
            expect(entry, key).toBeDefined();
            expect(example.value).toMatchObject({ data: null });
          }
        }
      }
    }
  });

  it('describes request bodies from the codecs and list queries from theirs', async () => {
    const { document } = await served();
    const order = operation(document, '/payment/acquiring/orders', 'post');
    expect(order.requestBody?.content['application/json'].schema).toMatchObject({
      'x-payrail-codec': 'AcquiringOrderCreateRequest',
      properties: { mode: { enum: ['checkout', 'direct'], default: 'checkout' } },
    });
    const list = operation(document, '/payment/acquiring/orders', 'get');
    expect(list.parameters.map((p) => p.name)).toEqual([
      'out_trade_no',
      'status',
      'start_at',
      'end_at',
      'limit',
      'offset',
    ]);
    expect(examples(list, '400')).toEqual(
      expect.arrayContaining(['invalid status', 'invalid <param>']),
    );
    const admin = operation(document, '/admin/merchants', 'post');
    expect(admin.security).toEqual([{ operatorToken: [] }]);
    expect(examples(admin, '401')).toEqual(['unauthorized']);
    const checkout = operation(document, '/checkout/api/orders/{order_id}/select', 'post');
    expect(checkout.security).toEqual([]);
  });

  it('has a body schema for every route that reads a body, and none for the others', async () => {
    const { document } = await served();
    for (const route of routes) {
      const op = operation(document, route.path, route.method);
      expect(op.requestBody !== undefined, `${route.method} ${route.path}`).toBe(
        route.body !== undefined,
      );
    }
    const withBody = routes
      .filter((route) => route.body !== undefined)
      .map((r) => `${r.method} ${r.path}`);
    // 12 merchant, 15 admin, 1 checkout: the routes marked `withBody` in create-app.routing.test.ts.
    expect(withBody).toHaveLength(28);
  });
});
