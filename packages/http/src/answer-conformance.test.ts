import { describe, expect, it } from 'vitest';
import { checkAnswer } from './answer-conformance.test-support.js';
import { openApiDocument } from './openapi/openapi.document.js';
import { routes } from './routes/route-table.js';

const document = JSON.stringify(openApiDocument(routes));

const webhook = {
  webhook_id: 'wh_1',
  url: 'https://merchant.example/hooks',
  events: ['payout.*'],
  status: 'active',
  created_at: 1_800_000_000,
  updated_at: 1_800_000_000,
};
const success = (data: unknown) => ({ status: 200, body: { code: 0, message: 'success', data } });

describe('the suites’ answer check (ADR 0023)', () => {
  it('passes an answer exactly as documented', () => {
    expect(() =>
      checkAnswer(document, 'GET', '/payment/webhooks/wh_1?x=1', success({ webhook })),
    ).not.toThrow();
  });

  it('refuses an undeclared field, naming the operation, the status and the path', () => {
    expect(() =>
      checkAnswer(
        document,
        'GET',
        '/payment/webhooks/wh_1',
        success({ webhook: { ...webhook, secret: 'whsec_leak' } }),
      ),
    ).toThrow(/getWebhook answered 200[\s\S]*\/data\/webhook must NOT have additional properties/);
  });

  it('refuses a wrong type and a missing field', () => {
    expect(() =>
      checkAnswer(
        document,
        'GET',
        '/payment/webhooks/wh_1',
        success({ webhook: { ...webhook, created_at: '1800000000' } }),
      ),
    ).toThrow(/\/data\/webhook\/created_at must be integer/);
    const { url: _url, ...withoutUrl } = webhook;
    expect(() =>
      checkAnswer(document, 'GET', '/payment/webhooks/wh_1', success({ webhook: withoutUrl })),
    ).toThrow(/must have required property 'url'/);
  });

  it('holds an error answer to the error envelope', () => {
    const notFound = { status: 404, body: { code: 51, message: 'webhook not found', data: null } };
    expect(() => checkAnswer(document, 'GET', '/payment/webhooks/wh_9', notFound)).not.toThrow();
    expect(() =>
      checkAnswer(document, 'GET', '/payment/webhooks/wh_9', {
        status: 404,
        body: { code: 51, message: 'webhook not found', data: { id: 'wh_9' } },
      }),
    ).toThrow(/getWebhook answered 404/);
  });

  // Issue 22: an operation listed 400 for other messages, so `payout method not found` passed
  // unseen; the check now holds each message (and `Payrail-*` header) to the operation's list.
  it('reports a message the operation does not list under a status it does document', () => {
    const seen: string[] = [];
    const refusal = (message: string) => ({
      status: 400,
      body: { code: 53, message, data: null },
    });
    checkAnswer(document, 'PATCH', '/payment/webhooks/wh_1', refusal('no changes'), (line) =>
      seen.push(line),
    );
    checkAnswer(document, 'PATCH', '/payment/webhooks/wh_1', refusal('invalid limit'), (line) =>
      seen.push(line),
    );
    checkAnswer(document, 'GET', '/payment/webhooks?limit=0', refusal('invalid limit'), (line) =>
      seen.push(line),
    );
    expect(seen).toEqual(['PATCH /payment/webhooks/{webhook_id}: 400 invalid limit']);
  });

  it('reports a `Payrail-*` header the response does not document', () => {
    const seen: string[] = [];
    const forbidden = (header: string) => ({
      status: 403,
      body: { code: 61, message: 'forbidden', data: null },
      headers: new Headers({ [header]: 'x', 'Cache-Control': 'no-store' }),
    });
    const check = (method: string, url: string, header: string) =>
      checkAnswer(document, method, url, forbidden(header), (line) => seen.push(line));
    check('GET', '/payment/webhooks', 'Payrail-Missing-Permission');
    check('GET', '/payment/webhooks', 'Payrail-Product-Not-Enabled');
    check('GET', '/admin/routes', 'Payrail-Missing-Permission');
    check('GET', '/admin/routes', 'Payrail-Product-Not-Enabled');
    check('GET', '/admin/routes', 'Payrail-Whatever');
    expect(seen).toEqual([
      'GET /admin/routes: 403 header payrail-product-not-enabled',
      'GET /admin/routes: 403 header payrail-whatever',
    ]);
  });
});
