/**
 * Issue 12, finding 5 (ADR 0034): a NUL character or an unpaired surrogate in a text field
 * answered 500 `internal error`, since PostgreSQL refuses both, also without authentication
 * (`GET /checkout/api/orders/ord_%00`). Now such a string never reaches a store: in a body or a
 * list query it answers 400 with the field's message, in a path it names nothing (the route's
 * 404). On merchant, admin, checkout and upstream routes, on every store of the http package's
 * list (the memory store never refused them; the PostgreSQL ones did).
 */
import {
  emailAddress,
  merchantLabel,
  notifyUrl,
  personName,
  withNonText,
} from '@payrail/core/testing';
import {
  generateSandboxUpstreamSecret,
  sandboxAcquiringProvider,
  signSandboxUpstream,
} from '@payrail/sandbox';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  directTronOrder,
  type EngineApp,
  engineApp,
  quickPayout,
  refusalOf,
} from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

const refusal = (status: number, code: number, message: string) => ({
  status,
  code,
  message,
  data: null,
});

const validationFailed = refusal(400, 51, 'Validation Failed');

describe.each(storesUnderTest)('finding 5: strings that are not text ($name)', (under) => {
  let h: EngineApp;
  let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;
  let token = '';
  let accountId = '';
  let orderId = '';
  let address = '';
  const secret = generateSandboxUpstreamSecret();

  beforeAll(async () => {
    store = await under.open();
    h = engineApp({
      store,
      acquiringProviders: [sandboxAcquiringProvider({ allowedSources: ['127.0.0.1/32'], secret })],
    });
    await h.seedCatalogue();
    const m = await h.merchant('Acme');
    token = m.token;
    accountId = m.accountId;
    const as = h.as(token);
    const { webhook } = (
      await as.post('/payment/webhooks', {
        url: 'https://merchant.example/hooks',
        events: ['acquiring.*'],
      })
    ).body.data;
    const { data } = (
      await as.post('/payment/acquiring/orders', directTronOrder('NT-1', webhook.webhook_id))
    ).body;
    orderId = data.order.order_id;
    address = data.payment_address.address;
  });

  afterAll(async () => {
    await store.close?.();
  });

  /** What the merchant's lists hold: nothing a refused request stored shows up. */
  const totals = async () => {
    const as = h.as(token);
    const payouts = await as.get('/payment/payouts');
    const beneficiaries = await as.get('/payment/beneficiaries');
    const orders = await as.get('/payment/acquiring/orders');
    return [payouts, beneficiaries, orders].map((answer) => answer.body.data.total as number);
  };

  describe('in a body: 400 with the field message', () => {
    it('merchant routes: a quick payout, an acquiring order, a webhook', async () => {
      const as = h.as(token);
      const before = await totals();
      const payout = quickPayout('nt1');
      expect(
        refusalOf(await as.post('/payment/quickpayout', { ...payout, reference: 'nt\u0000' })),
      ).toEqual(validationFailed);
      expect(
        refusalOf(
          await as.post('/payment/quickpayout', {
            ...payout,
            beneficiary: { ...payout.beneficiary, name: 'Jane \ud800Doe' },
          }),
        ),
      ).toEqual(validationFailed);
      expect(
        refusalOf(
          await as.post('/payment/quickpayout', {
            ...payout,
            beneficiary: { name: 'Jane Doe', fields: { payee_id: 'pay\u0000ee' } },
          }),
        ),
      ).toEqual(refusal(400, 51, 'fields.payee_id invalid: expect ^[a-zA-Z0-9]{3,60}$'));
      expect(
        refusalOf(
          await as.post('/payment/acquiring/orders', {
            out_trade_no: 'NT-\udfff',
            order_currency: 'USD',
            order_amount: '30.00',
            expire_seconds: 600,
            underpay_tolerance: '0',
            notify_webhook_id: 'wh_1',
          }),
        ),
      ).toEqual(validationFailed);
      expect(
        refusalOf(
          await as.post('/payment/webhooks', {
            url: 'https://merchant.example/\u0000',
            events: ['acquiring.*'],
          }),
        ),
      ).toMatchObject({ status: 400, code: 51 });
      // A member no codec reads is refused too: it would reach nothing, but nor does it pass.
      expect(
        refusalOf(
          await as.post('/payment/quickpayout', {
            ...payout,
            'note\u0000': 'x',
            extra: { a: '\ud800' },
          }),
        ),
      ).toEqual(validationFailed);
      expect(await totals()).toEqual(before);
    });

    it('admin routes: a merchant, an account, a credit', async () => {
      expect(
        refusalOf(await h.call('POST', '/admin/merchants', admin(), { name: 'Acme\u0000' })),
      ).toMatchObject({ status: 400, code: 51 });
      expect(
        refusalOf(
          await h.call('POST', `/admin/accounts/${accountId}/api-keys`, admin(), {
            permissions: ['payout.read'],
            name: 'key \ud800',
          }),
        ),
      ).toMatchObject({ status: 400, code: 51 });
      expect(
        refusalOf(
          await h.call('POST', `/admin/accounts/${accountId}/credit`, admin(), {
            currency: 'USD',
            amount: '10.00\u0000',
          }),
        ),
      ).toMatchObject({ status: 400, code: 51 });
    });

    it('checkout: the payer choosing a token', async () => {
      expect(
        refusalOf(
          await h.call(
            'POST',
            `/checkout/api/orders/${orderId}/select`,
            {},
            {
              network: 'TRON\u0000',
              currency: 'USDT',
            },
          ),
        ),
      ).toMatchObject({ status: 400 });
    });

    it('upstream: a signed provider event with a NUL or a lone surrogate leaves the order pending', async () => {
      for (const tx of ['tx\u0000nul', 'tx\ud800half']) {
        const body = {
          events: [
            {
              network: 'TRON',
              address,
              token_id: 'TRON_USDT',
              tx_hash: tx,
              amount: '30',
              status: 'confirmed',
            },
          ],
        };
        const answer = await h.call(
          'POST',
          '/upstream/acquiring/sandbox',
          signSandboxUpstream(secret, JSON.stringify(body)),
          body,
        );
        expect(refusalOf(answer)).toEqual(validationFailed);
      }
      const order = await h.as(token).get(`/payment/acquiring/orders/${orderId}`);
      expect(order.body.data.order.status).toBe('pending');
    });
  });

  describe('in a list query: 400 `invalid <param>`', () => {
    it('a free-text filter, an enum, a parameter the list does not define; admin lists too', async () => {
      const as = h.as(token);
      expect(refusalOf(await as.get('/payment/payouts?reference=r%00'))).toEqual(
        refusal(400, 51, 'invalid reference'),
      );
      expect(refusalOf(await as.get('/payment/acquiring/orders?out_trade_no=%00'))).toEqual(
        refusal(400, 51, 'invalid out_trade_no'),
      );
      expect(refusalOf(await as.get('/payment/payouts?status=draft%00'))).toEqual(
        refusal(400, 51, 'invalid status'),
      );
      expect(refusalOf(await as.get('/payment/payouts?note=%00'))).toEqual(
        refusal(400, 51, 'invalid note'),
      );
      expect(
        refusalOf(await h.call('GET', '/admin/payout-methods?currency=USD%00', admin())),
      ).toEqual(refusal(400, 51, 'invalid currency'));
    });
  });

  describe('in a path: the id names nothing (the route 404)', () => {
    it('checkout, upstream and a route nobody serves, without any credential', async () => {
      const provider = await h.call('POST', '/upstream/acquiring/sandbox%00', {}, { events: [] });
      expect(refusalOf(provider)).toMatchObject({ status: 404, code: 65 });
      expect(refusalOf(await h.call('GET', '/nope%00', {}))).toEqual(
        refusal(404, 65, 'route not found'),
      );
      expect(refusalOf(await h.as(token).get('/payment/nope%00'))).toEqual(
        refusal(404, 65, 'route not found'),
      );
      expect(refusalOf(await h.call('GET', '/checkout/api/orders/ord_%00', {}))).toEqual(
        refusal(404, 65, 'order not found'),
      );
      expect(
        refusalOf(
          await h.call(
            'POST',
            '/checkout/api/orders/ord_%00/select',
            {},
            { network: 'TRON', currency: 'USDT' },
          ),
        ),
      ).toEqual(refusal(404, 65, 'order not found'));
    });

    it('merchant and admin routes', async () => {
      const as = h.as(token);
      expect(refusalOf(await as.get('/payment/payouts/po_%00'))).toEqual(
        refusal(404, 65, 'payout not found'),
      );
      expect(refusalOf(await as.get('/payment/acquiring/orders/ord_1%00'))).toEqual(
        refusal(404, 65, 'order not found'),
      );
      expect(refusalOf(await as.get('/payment/payout-networks/TRON%00/schema'))).toMatchObject({
        status: 404,
      });
      expect(
        refusalOf(
          await h.call('PATCH', '/admin/accounts/acc_%00', admin(), { auto_approve: true }),
        ),
      ).toMatchObject({ status: 404, code: 65 });
    });
  });

  it('property: a quick payout the engine would accept, with a NUL or a lone surrogate anywhere (a value or a member name), answers 400 and stores nothing', async () => {
    const as = h.as(token);
    const before = await totals();
    const accepted = fc
      .record({
        reference: merchantLabel,
        notify: notifyUrl,
        name: personName,
        payee: fc.stringMatching(/^[a-zA-Z0-9]{3,60}$/),
        email: emailAddress,
      })
      .map(({ reference, notify, name, payee, email }) => ({
        ...quickPayout(payee),
        client_request_id: reference,
        reference,
        notify_url: notify,
        beneficiary: { name, fields: { payee_id: payee } },
        beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: email } },
      }));
    await fc.assert(
      fc.asyncProperty(withNonText(accepted, { names: true }), async (body) => {
        const answer: Answer = await as.post('/payment/quickpayout', body);
        expect(answer.status).toBe(400);
        expect(answer.body.data).toBeNull();
      }),
      { numRuns: 40 },
    );
    expect(await totals()).toEqual(before);
  });
});

const admin = () => ({ Authorization: 'Bearer operator-token-for-tests' });
