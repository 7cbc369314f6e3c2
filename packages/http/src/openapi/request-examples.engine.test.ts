/**
 * The request examples of `/openapi.json` are bodies the service accepts: each one is sent, as the
 * document shows it, to the real engine on the memory store, after the sandbox catalogue is seeded.
 * Only the ids an example names (a webhook, a beneficiary) are replaced by ones created before it.
 */
import { describe, expect, it } from 'vitest';
import { engineApp, operatorToken } from '../engine-app.test-support.js';
import type { Route } from '../routes/route.js';
import { routes } from '../routes/route-table.js';

/** Create operations, in an order where each finds what its example refers to. */
const creates = [
  'adminCreateOperator',
  'adminCreateMerchant',
  'adminIssueApiKey',
  'adminCreatePayoutNetwork',
  'adminCreatePayoutMethod',
  'adminCreateRoute',
  'createWebhook',
  'createOrder',
  'createBeneficiary',
  'createBeneficiaryAccount',
  'createQuickPayout',
  'createBatch',
];

const routeOf = (operationId: string): Route => {
  const route = routes.find((r) => r.operationId === operationId);
  if (route === undefined) throw new Error(`no route ${operationId}`);
  return route;
};

describe('request examples of the document', () => {
  it('every route with an example is a create operation listed here', () => {
    expect(
      routes
        .filter((route) => route.example !== undefined)
        .map((route) => route.operationId)
        .sort(),
    ).toEqual([...creates].sort());
  });

  it('are accepted as they are shown', async () => {
    const h = engineApp();
    await h.seedCatalogue();
    const acme = await h.merchant('Acme');
    // Ids made by earlier examples, by the body or path field that refers to them.
    const made: Record<string, string> = {};
    const answers: Record<string, unknown> = {};
    for (const operationId of creates) {
      const route = routeOf(operationId);
      const example = route.example as Record<string, unknown>;
      const body = Object.fromEntries(
        Object.entries(example).map(([key, value]) => [key, made[key] ?? value]),
      );
      const path = route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => made[name] ?? '');
      const token = route.scope === 'admin' ? operatorToken : acme.token;
      const answer = await h.call(
        route.method.toUpperCase(),
        path,
        { Authorization: `Bearer ${token}` },
        body,
      );
      answers[operationId] = { code: answer.body.code, message: answer.body.message };
      const data = (answer.body.data ?? {}) as Record<string, Record<string, unknown>>;
      for (const object of Object.values(data)) {
        for (const key of ['account_id', 'webhook_id', 'beneficiary_id']) {
          const id = object?.[key];
          if (typeof id === 'string' && made[key] === undefined) made[key] = id;
        }
      }
      if (operationId === 'createWebhook') made.notify_webhook_id = made.webhook_id ?? '';
    }
    expect(answers).toEqual(
      Object.fromEntries(creates.map((id) => [id, { code: 0, message: 'success' }])),
    );
  });
});
