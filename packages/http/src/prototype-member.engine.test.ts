/**
 * Issue 19, finding L2: `JSON.parse` reads a `"__proto__"` member as a member like any other, but
 * a codec that copies the decoded body by assignment (io-ts's `Object.assign`) makes its value
 * the copy's prototype, and its fields were then read as the body's own: after the checks that
 * look at the body's own members (the create-time URL guard) and past the codec's defaults. A
 * hidden `status` made a webhook inactive, a hidden `url` skipped the guard, a hidden
 * `display_name` in a payout's beneficiary account was stored. On every store of the list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EngineApp, engineApp, quickPayout, refusalOf } from './engine-app.test-support.js';
import { hidden, internalHostGuard } from './prototype-member.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

describe.each(storesUnderTest)('L2: a "__proto__" member carries no field ($name)', (under) => {
  let h: EngineApp;
  let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;
  let merchants = 0;

  beforeAll(async () => {
    store = await under.open();
    h = engineApp({ store, outboundUrlGuard: internalHostGuard });
    await h.seedCatalogue();
  });

  afterAll(async () => {
    await store.close?.();
  });

  const merchant = async () => {
    merchants += 1;
    const m = await h.merchant(`Merchant ${merchants}`);
    return { ...m, as: h.as(m.token) };
  };

  it('a hidden status on webhook create does not make the webhook inactive', async () => {
    const m = await merchant();
    const created = await m.as.post('/payment/webhooks', {
      url: 'https://merchant.example/hooks',
      events: ['acquiring.*'],
      ...hidden({ status: 'inactive' }),
    });
    expect(refusalOf(created)).toMatchObject({ status: 200, message: 'success' });
    expect(created.body.data.webhook.status).toBe('active');
    const read = await m.as.get(`/payment/webhooks/${created.body.data.webhook.webhook_id}`);
    expect(read.body.data.webhook).toMatchObject({
      url: 'https://merchant.example/hooks',
      events: ['acquiring.*'],
      status: 'active',
    });
  });

  it('a hidden url or status on webhook update is not applied, so the url guard is not skipped', async () => {
    const m = await merchant();
    const { webhook } = (
      await m.as.post('/payment/webhooks', {
        url: 'https://merchant.example/hooks',
        events: ['acquiring.*'],
      })
    ).body.data;
    // The guard refuses the url when it is sent as a member of the body ...
    expect(
      refusalOf(
        await m.as.patch(`/payment/webhooks/${webhook.webhook_id}`, {
          url: 'https://internal.example/hooks',
        }),
      ),
    ).toEqual({ status: 400, code: 51, message: 'invalid webhook url', data: null });
    // ... and hidden in a `__proto__` member it is not read at all: only the events change.
    const updated = await m.as.patch(`/payment/webhooks/${webhook.webhook_id}`, {
      events: ['payout.*'],
      ...hidden({ url: 'https://internal.example/hooks', status: 'inactive' }),
    });
    expect(refusalOf(updated)).toMatchObject({ status: 200, message: 'success' });
    const read = await m.as.get(`/payment/webhooks/${webhook.webhook_id}`);
    expect(read.body.data.webhook).toMatchObject({
      url: 'https://merchant.example/hooks',
      events: ['payout.*'],
      status: 'active',
    });
    // A body with nothing but hidden members changes nothing.
    expect(
      refusalOf(
        await m.as.patch(`/payment/webhooks/${webhook.webhook_id}`, hidden({ status: 'inactive' })),
      ),
    ).toEqual({ status: 400, code: 53, message: 'no changes', data: null });
  });

  it('a hidden url on webhook create is not read in place of the missing one', async () => {
    const m = await merchant();
    const answer = await m.as.post('/payment/webhooks', {
      events: ['acquiring.*'],
      ...hidden({ url: 'https://internal.example/hooks' }),
    });
    expect(refusalOf(answer)).toEqual({
      status: 400,
      code: 51,
      message: 'url required',
      data: null,
    });
    expect((await m.as.get('/payment/webhooks')).body.data.total).toBe(0);
  });

  it('a hidden member deeper in the body (a payout’s beneficiary account) is not read either', async () => {
    const m = await merchant();
    await h.admin('POST', `/admin/accounts/${m.accountId}/credit`, {
      currency: 'USD',
      amount: '100.00',
    });
    const body = quickPayout('PROTO1');
    const answer = await m.as.post('/payment/quickpayout', {
      ...body,
      beneficiary_account: {
        ...body.beneficiary_account,
        ...hidden({ display_name: 'Injected', account_type: 'injected' }),
      },
    });
    expect(refusalOf(answer)).toMatchObject({ status: 200, message: 'success' });
    const { beneficiary_account_id } = answer.body.data.payout;
    const read = await m.as.get(`/payment/beneficiary-accounts/${beneficiary_account_id}`);
    expect(read.body.data.beneficiary_account).toMatchObject({
      network_code: 'WALLETA',
      display_name: null,
      account_type: null,
    });
  });
});
