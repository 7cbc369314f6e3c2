/**
 * The error part of `/openapi.json`: every status an operation can answer is listed, with the
 * catalogue messages behind it, and the document says where the API is (`servers`).
 */
import { errorCatalogue } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import { createApp } from '../create-app.js';
import { fakeEngine } from '../fake-engine.test-support.js';
import { pathParameters } from '../routes/route.js';
import { routes } from '../routes/route-table.js';
import { errorKeysOf, openApiDocument } from './openapi.document.js';

type Responses = Readonly<
  Record<
    string,
    { readonly content: { readonly 'application/json': { readonly examples?: object } } }
  >
>;

const document = openApiDocument(routes);

const responsesOf = (path: string, method: string): Responses => {
  const methods = document.paths[path] as
    | Readonly<Record<string, { readonly responses: Responses }>>
    | undefined;
  const operation = methods?.[method];
  if (operation === undefined) throw new Error(`${method} ${path} is not documented`);
  return operation.responses;
};

const messagesUnder = (responses: Responses, status: string): string[] =>
  Object.keys(responses[status]?.content['application/json'].examples ?? {}).map(
    (key) => errorCatalogue[key as keyof typeof errorCatalogue].message,
  );

describe('error responses of each operation', () => {
  it('a route with a path id documents a 404 of kind not_found', () => {
    const missing = routes
      .filter((route) => pathParameters(route.path).length > 0)
      .filter(
        (route) =>
          !errorKeysOf(route).some(
            (key) => errorCatalogue[key].kind === 'not_found' && key !== 'route_not_found',
          ),
      )
      .map((route) => route.operationId);
    expect(missing).toEqual([]);
  });

  it('merchant operations document 401, 403 and 429; admin ones 401 and 403; all of them 500', () => {
    for (const route of routes) {
      const statuses = Object.keys(responsesOf(route.path, route.method));
      const expected =
        route.scope === 'merchant'
          ? ['401', '403', '429', '500']
          : route.scope === 'admin'
            ? ['401', '403', '500']
            : ['500'];
      expect(statuses, route.operationId).toEqual(expect.arrayContaining(expected));
    }
  });

  it('every method that carries a body documents `Validation Failed` (the 1 MiB limit)', () => {
    for (const route of routes.filter((r) => r.method !== 'get')) {
      expect(
        messagesUnder(responsesOf(route.path, route.method), '400'),
        route.operationId,
      ).toContain('Validation Failed');
    }
  });

  it('every list documents `invalid <param>` (e.g. `invalid limit`), admin lists included', () => {
    for (const operationId of ['listPayouts', 'adminListPayoutMethods', 'adminListRoutes']) {
      const route = routes.find((r) => r.operationId === operationId);
      expect(route?.query, operationId).toBeDefined();
      expect(messagesUnder(responsesOf(route?.path ?? '', 'get'), '400')).toContain(
        'invalid <param>',
      );
    }
  });

  it('the path ids of the admin API are 404, not a credential’s 401', () => {
    expect(messagesUnder(responsesOf('/admin/api-keys/{key_id}/rotate', 'post'), '404')).toEqual([
      'key_id not found',
    ]);
    // 403 is the operator's role only (ADR 0039), never an id.
    expect(messagesUnder(responsesOf('/admin/api-keys/{key_id}/rotate', 'post'), '403')).toEqual([
      'forbidden',
    ]);
    expect(
      messagesUnder(responsesOf('/admin/operators/{operator_id}/rotate', 'post'), '404'),
    ).toEqual(['operator_id not found']);
    expect(messagesUnder(responsesOf('/admin/accounts/{account_id}', 'patch'), '404')).toEqual([
      'account_id not found',
    ]);
  });
});

describe('servers', () => {
  it('is the public URL the app is told, else the document’s own origin', async () => {
    const told = createApp({
      engine: fakeEngine().engine,
      adminToken: 'op',
      publicUrl: 'https://api.payrail.example',
    });
    const servedOf = async (app: typeof told) =>
      ((await (await app.request('/openapi.json')).json()) as { servers: unknown }).servers;
    expect(await servedOf(told)).toEqual([{ url: 'https://api.payrail.example' }]);
    const untold = createApp({ engine: fakeEngine().engine, adminToken: 'op' });
    expect(await servedOf(untold)).toEqual([{ url: '/' }]);
  });
});

describe('request examples', () => {
  it('each create operation shows an example of its body', () => {
    const createQuickPayout = (
      document.paths['/payment/quickpayout'] as Readonly<
        Record<string, { requestBody: { content: { 'application/json': { examples?: object } } } }>
      >
    ).post;
    expect(createQuickPayout?.requestBody.content['application/json'].examples).toEqual({
      createQuickPayout: {
        value: routes.find((r) => r.operationId === 'createQuickPayout')?.example,
      },
    });
  });
});
