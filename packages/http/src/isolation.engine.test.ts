/**
 * One merchant's key against another merchant's ids: the same answer as for an id that does
 * not exist at all (docs/spec/decisions.md §1), with the object's message. That is a 404 everywhere except for
 * beneficiaries and beneficiary accounts: docs/spec/decisions.md §1 files `beneficiary account not found` (and
 * the catalogue `beneficiary not found` with it) under 400/53, as an id inside a body, and a
 * message has exactly one status; the path form shares it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineApp, engineApp, quickPayout, refusalOf } from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

describe.each(storesUnderTest)("another merchant's ids (real engine, $name)", (under) => {
  let h: EngineApp;
  let owned: Record<string, string>;
  let intruder: ReturnType<EngineApp['as']>;
  let intruderAccountId: string;

  let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;

  beforeAll(async () => {
    store = await under.open();
    h = engineApp({ store });
    await h.seedCatalogue();
    const a = await h.merchant('Acme');
    const b = await h.merchant('Bmart');
    const as = h.as(a.token);
    const { payout } = (await as.post('/payment/quickpayout', quickPayout('R1'))).body.data;
    const { webhook } = (
      await as.post('/payment/webhooks', {
        url: 'https://acme.example/wh',
        events: ['acquiring.*'],
      })
    ).body.data;
    const { order } = (
      await as.post('/payment/acquiring/orders', {
        out_trade_no: 'O1',
        order_currency: 'USD',
        order_amount: '10.00',
        expire_seconds: 600,
        underpay_tolerance: '0',
        notify_webhook_id: webhook.webhook_id,
      })
    ).body.data;
    const { batch } = (
      await as.post('/payment/crypto-payouts/batches', {
        currency: 'USDT',
        method_id: 2,
        items: [
          {
            order_no: 'B1',
            amount: '5',
            beneficiary_account: { address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' },
          },
        ],
      })
    ).body.data;
    owned = {
      payout: payout.payout_id,
      beneficiary: payout.beneficiary_id,
      beneficiaryAccount: payout.beneficiary_account_id,
      order: order.order_id,
      batch: batch.batch_id,
      webhook: webhook.webhook_id,
    };
    for (const id of Object.values(owned)) expect(id).toMatch(/^[a-z]+_\d+$/);
    intruder = h.as(b.token);
    intruderAccountId = b.accountId;
  });

  afterAll(async () => {
    await store.close?.();
  });

  type Probe = readonly [
    label: string,
    send: (id: string) => ReturnType<ReturnType<EngineApp['as']>['get']>,
    object: keyof typeof ownedKeys,
    message: string,
  ];
  const ownedKeys = {
    payout: 0,
    beneficiary: 0,
    beneficiaryAccount: 0,
    order: 0,
    batch: 0,
    webhook: 0,
  } as const;

  const probes: readonly Probe[] = [
    ['GET payout', (id) => intruder.get(`/payment/payouts/${id}`), 'payout', 'payout not found'],
    [
      'PATCH payout',
      (id) => intruder.patch(`/payment/payouts/${id}`, { amount: '30.00' }),
      'payout',
      'payout not found',
    ],
    [
      'submit payout',
      (id) => intruder.post(`/payment/payouts/${id}/submit`),
      'payout',
      'payout not found',
    ],
    [
      'cancel payout',
      (id) => intruder.post(`/payment/payouts/${id}/cancel`),
      'payout',
      'payout not found',
    ],
    [
      'GET order',
      (id) => intruder.get(`/payment/acquiring/orders/${id}`),
      'order',
      'order not found',
    ],
    [
      'GET order payments',
      (id) => intruder.get(`/payment/acquiring/orders/${id}/payments`),
      'order',
      'order not found',
    ],
    [
      'close order',
      (id) => intruder.post(`/payment/acquiring/orders/${id}/close`, { reason: 'x' }),
      'order',
      'order not found',
    ],
    [
      'GET batch',
      (id) => intruder.get(`/payment/crypto-payouts/batches/${id}`),
      'batch',
      'batch not found',
    ],
    [
      'GET batch items',
      (id) => intruder.get(`/payment/crypto-payouts/batches/${id}/items`),
      'batch',
      'batch not found',
    ],
    [
      'approve batch',
      (id) => intruder.post(`/payment/crypto-payouts/batches/${id}/approve`, { version: 0 }),
      'batch',
      'batch not found',
    ],
    [
      'submit batch',
      (id) => intruder.post(`/payment/crypto-payouts/batches/${id}/submit`),
      'batch',
      'batch not found',
    ],
    [
      'GET beneficiary',
      (id) => intruder.get(`/payment/beneficiaries/${id}`),
      'beneficiary',
      'beneficiary_id not found',
    ],
    [
      'PATCH beneficiary',
      (id) => intruder.patch(`/payment/beneficiaries/${id}`, { status: 'disabled' }),
      'beneficiary',
      'beneficiary_id not found',
    ],
    [
      'GET beneficiary account',
      (id) => intruder.get(`/payment/beneficiary-accounts/${id}`),
      'beneficiaryAccount',
      'beneficiary_account_id not found',
    ],
    [
      'PATCH beneficiary account',
      (id) => intruder.patch(`/payment/beneficiary-accounts/${id}`, { status: 'disabled' }),
      'beneficiaryAccount',
      'beneficiary_account_id not found',
    ],
    [
      'GET webhook',
      (id) => intruder.get(`/payment/webhooks/${id}`),
      'webhook',
      'webhook not found',
    ],
    [
      'PATCH webhook',
      (id) => intruder.patch(`/payment/webhooks/${id}`, { status: 'inactive' }),
      'webhook',
      'webhook not found',
    ],
    [
      'DELETE webhook',
      (id) => intruder.delete(`/payment/webhooks/${id}`),
      'webhook',
      'webhook not found',
    ],
    [
      'rotate webhook secret',
      (id) => intruder.post(`/payment/webhooks/${id}/rotate-secret`),
      'webhook',
      'webhook not found',
    ],
    [
      'GET webhook deliveries',
      (id) => intruder.get(`/payment/webhooks/${id}/deliveries`),
      'webhook',
      'webhook not found',
    ],
  ];

  it.each(probes)(
    '%s answers as for a missing id, with the object’s message',
    async (_, send, object, message) => {
      const theirs = refusalOf(await send(owned[object] ?? ''));
      const missing = refusalOf(await send(`${owned[object]}999`));
      expect(theirs).toEqual({ status: 404, code: 65, message, data: null });
      expect(missing).toEqual(theirs);
    },
  );

  it('lists none of them to the intruder', async () => {
    for (const path of [
      '/payment/payouts',
      '/payment/acquiring/orders',
      '/payment/beneficiaries',
      '/payment/beneficiary-accounts',
      '/payment/webhooks',
    ]) {
      expect((await intruder.get(path)).body.data, path).toMatchObject({ items: [], total: 0 });
    }
  });

  it('shows the intruder its own audit trail only, never the other merchant’s acts', async () => {
    const trail = (await intruder.get('/payment/audit?limit=100')).body.data;
    // The operator's acts on its account (its creation, its key) are the intruder's to read.
    expect(trail.total).toBeGreaterThan(0);
    const theirs = new Set(Object.values(owned));
    for (const record of trail.items) {
      expect(record.account_id).toBe(intruderAccountId);
      expect(theirs.has(record.object_id)).toBe(false);
    }
    expect(
      (await intruder.get(`/payment/audit?object_id=${owned.payout}`)).body.data,
    ).toMatchObject({ items: [], total: 0 });
  });
});
