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
});
