/**
 * OpenTelemetry spans, once a host registers a tracer provider and a context manager: one span
 * per HTTP request named after its route template, and inside it one span per unit of work
 * named after its use case, with its outcome; no path, no body, no secret in them.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { permissions } from '@payrail/engine';
import { createMemoryStore } from '@payrail/store-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPayrail } from './create-payrail.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await provider.shutdown();
});

const adminToken = 'operator-token-for-the-span-test';

describe('spans of a request and of its units of work', () => {
  it('names the request after its route, and its units of work after their use cases', async () => {
    const payrail = await createPayrail({
      store: createMemoryStore(),
      environment: 'sandbox',
      keySecret: 'a secret of thirty-two bytes, ok',
      adminToken,
      log: () => undefined,
    });
    const post = (path: string, token: string, body: unknown) =>
      payrail.app.request(path, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const created = (await (
      await post('/admin/merchants', adminToken, { name: 'Acme' })
    ).json()) as {
      data: { merchant: { account_id: string } };
    };
    const accountId = created.data.merchant.account_id;
    const issued = (await (
      await post(`/admin/accounts/${accountId}/api-keys`, adminToken, { permissions })
    ).json()) as { data: { api_key: { token: string } } };
    const key = issued.data.api_key.token;
    exporter.reset();

    const answer = await post('/payment/quickpayout', key, {
      client_request_id: 'span-1',
      reference: 'INV-1',
      currency: 'USD',
      amount: '25.00',
      method_id: 1,
      beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01' } },
      beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'j@example.com' } },
    });
    // No balance: the payout is refused, and its unit of work says so.
    expect(answer.status).toBe(400);

    const spans = exporter.getFinishedSpans();
    const request = spans.find((span) => span.name === 'POST /payment/quickpayout');
    expect(request?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/payment/quickpayout',
      'http.response.status_code': 400,
    });
    const children = spans.filter(
      (span: ReadableSpan) => span.parentSpanContext?.spanId === request?.spanContext().spanId,
    );
    expect(children.map((span) => [span.name, span.attributes])).toContainEqual([
      'payout.create',
      { 'payrail.use_case': 'payout.create', 'payrail.unit_of_work.outcome': 'refused' },
    ]);
    for (const child of children)
      expect(child.spanContext().traceId).toBe(request?.spanContext().traceId);
    const everything = JSON.stringify(spans.map((span) => [span.name, span.attributes]));
    expect(everything).not.toContain(key);
    expect(everything).not.toContain('Jane');
    await payrail.stop();
  });
});
