import { errorCatalogue } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import { createApp } from '../create-app.js';
import { fakeEngine } from '../fake-engine.test-support.js';
import { answersText } from '../routes/route.js';
import { routes } from '../routes/route-table.js';
import type { OpenApiDocument } from './openapi.document.js';

type Operation = {
  parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
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

type JsonSchema = Readonly<Record<string, unknown>>;

const isSchema = (u: unknown): u is JsonSchema =>
  typeof u === 'object' && u !== null && !Array.isArray(u);

/**
 * Every object schema under `schema` that lets an undeclared field through: an object without
 * `additionalProperties: false`. A map (`additionalProperties` a schema) is closed to what its
 * values may be, so it counts as closed; its values are walked like the rest.
 */
const openObjectsIn = (schema: unknown, at: string, found: string[]): void => {
  if (Array.isArray(schema)) {
    schema.forEach((inner, i) => {
      openObjectsIn(inner, `${at}[${i}]`, found);
    });
    return;
  }
  if (!isSchema(schema)) return;
  const isObject =
    schema.type === 'object' ||
    (Array.isArray(schema.type) && schema.type.includes('object')) ||
    schema.properties !== undefined;
  if (isObject && schema.additionalProperties !== false && !isSchema(schema.additionalProperties)) {
    found.push(at);
  }
  for (const [key, inner] of Object.entries(schema)) {
    if (key === 'properties' && isSchema(inner)) {
      for (const [name, property] of Object.entries(inner)) {
        openObjectsIn(property, `${at}.${name}`, found);
      }
    } else if (key !== 'enum' && key !== 'const' && key !== 'examples') {
      openObjectsIn(inner, `${at}/${key}`, found);
    }
  }
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
    // A database that cannot be reached (a failover): 503 with Retry-After (ADR 0051).
    expect(examples(create, '503')).toEqual(['service unavailable']);
    expect(create.responses['503']?.headers).toHaveProperty('Retry-After');
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
      required: expect.arrayContaining(['out_trade_no', 'notify_webhook_id']),
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

  it('closes every object of every success answer: an undeclared field is refused', async () => {
    const { document } = await served();
    const open: string[] = [];
    for (const route of routes.filter((r) => !answersText(r))) {
      const schema = operation(document, route.path, route.method).responses['200']?.content[
        'application/json'
      ].schema;
      openObjectsIn(schema, `${route.method} ${route.path}`, open);
    }
    expect(open).toEqual([]);
    const payout = operation(document, '/payment/payouts/{payout_id}', 'get').responses['200']
      ?.content['application/json'].schema as JsonSchema;
    expect(payout).toMatchObject({
      additionalProperties: false,
      properties: {
        data: {
          additionalProperties: false,
          properties: {
            payout: {
              additionalProperties: false,
              required: expect.arrayContaining(['payout_id', 'status', 'beneficiary_id']),
              properties: { execution_fail_reason: { type: 'string' } },
            },
          },
        },
      },
    });
  });

  it('describes a streamed text answer (a CSV statement) and its required parameters', async () => {
    const { document } = await served();
    const csv = operation(document, '/payment/statements.csv', 'get');
    const content: Readonly<Record<string, unknown>> = csv.responses['200']?.content ?? {};
    expect(Object.keys(content)).toEqual(['text/csv']);
    expect(content['text/csv']).toMatchObject({
      schema: { type: 'string' },
      example: expect.stringMatching(/^line,created_at,created_utc,currency,bucket,/),
    });
    // Refusals are the envelope, as everywhere.
    expect(Object.keys(csv.responses['400']?.content ?? {})).toEqual(['application/json']);
    const required = (path: string) =>
      operation(document, path, 'get')
        .parameters.filter((p) => p.required)
        .map((p) => p.name);
    expect(required('/payment/statements.csv')).toEqual(['currency', 'start_at', 'end_at']);
    expect(required('/payment/statements')).toEqual(['currency', 'start_at', 'end_at']);
    expect(required('/admin/reports/settlement')).toEqual(['date']);
    expect(required('/payment/ledger')).toEqual([]);
  });

  it('leaves request bodies open: unknown request keys are ignored by design', async () => {
    const { document } = await served();
    for (const route of routes.filter((r) => r.body !== undefined)) {
      const body = operation(document, route.path, route.method).requestBody?.content[
        'application/json'
      ].schema;
      // A closed set inside a body (the beneficiary's profile fields) is its own rule, written
      // by hand; the body itself never refuses a key it does not know.
      expect(body, `${route.method} ${route.path}`).not.toHaveProperty('additionalProperties');
    }
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
    // 14 merchant (the batch approval's version among them, ADR 0057), 20 admin, 1 checkout: the
    // routes marked `withBody` in create-app.routing.test.ts.
    expect(withBody).toHaveLength(35);
  });
});
