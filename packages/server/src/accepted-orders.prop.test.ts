/**
 * `acceptedOrderCreateBody` (@payrail/core/testing) against the sandbox: every order body it
 * generates for a merchant's pay tokens and webhook is created by `POST /payment/acquiring/orders`.
 */
import { apiKeyPermissions } from '@payrail/core';
import { acceptedOrderCreateBody } from '@payrail/core/testing';
import { createMemoryStore } from '@payrail/store-memory';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPayrail } from './create-payrail.js';
import { orThrow } from './facade.js';

const numRuns = Number(process.env.FC_NUM_RUNS ?? 300);

describe('every generated order body is accepted', () => {
  it(`by the sandbox, for a merchant's pay tokens and webhook (${numRuns} of ${numRuns})`, async () => {
    const payrail = await createPayrail({
      store: createMemoryStore(),
      environment: 'sandbox',
      keySecret: 'a key secret of at least 32 bytes',
      log: () => undefined,
      rateLimit: { requestsPerSecond: 0 },
    });
    const { merchant } = orThrow(await payrail.admin.createMerchant({ name: 'Acme' }));
    const { api_key } = orThrow(
      await payrail.admin.issueApiKey(merchant.account_id, { permissions: [...apiKeyPermissions] }),
    );
    const acme = payrail.merchant(orThrow(await payrail.authenticate(api_key.token)));
    const { webhook } = orThrow(
      await acme.webhooks.create({ url: 'https://example.com/hooks', events: ['acquiring.*'] }),
    );
    const { account } = orThrow(await acme.accounts.current());
    let n = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(acceptedOrderCreateBody(account, webhook.webhook_id), async (body) => {
        // One merchant takes them all: each out_trade_no made new by the run's number.
        const outTradeNo = `${n++}.${String(body.out_trade_no)}`.slice(0, 64);
        const response = await payrail.app.request('/payment/acquiring/orders', {
          method: 'POST',
          headers: {
            authorization: `Bearer ${api_key.token}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ ...body, out_trade_no: outTradeNo }),
        });
        const answer: unknown = await response.json();
        expect([response.status, answer]).toMatchObject([200, { code: 0 }]);
        accepted += 1;
      }),
      { numRuns },
    );
    expect(accepted).toBe(numRuns);
  });
});
