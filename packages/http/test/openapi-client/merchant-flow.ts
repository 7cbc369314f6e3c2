/**
 * A merchant flow written the way a client of payrail writes it: with the types openapi-typescript
 * generates from `/openapi.json` and openapi-fetch, no cast, no `any`, no non-null assertion.
 * openapi-client.test.ts generates `payrail-api.ts` beside a copy of this file, type-checks both
 * under `strict` (ADR 0024), then runs this flow against the app. This file is excluded from the
 * package's own tsconfig because the generated file exists only there.
 */
import createClient from 'openapi-fetch';
import type { paths } from './payrail-api.js';

export interface FlowOptions {
  readonly baseUrl: string;
  readonly fetch: (request: Request) => Promise<Response>;
  readonly operatorToken: string;
}

/** What the flow read back, for the test to check against what it did. */
export interface FlowResult {
  readonly accountId: string;
  readonly accountStatus: string;
  readonly usdAvailable: readonly string[];
  readonly payoutId: string;
  readonly payoutStatus: string;
  readonly listedPayoutIds: readonly string[];
  readonly orderId: string;
  readonly orderStatus: string;
  readonly orderPayAmount: string;
  readonly ledgerRecordTypes: readonly string[];
}

/** The answer's body, or the error a refused call answered (a client's usual first helper). */
const ok = <T>(answer: {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}): T => {
  if (answer.data === undefined) {
    throw new Error(`HTTP ${answer.response.status}: ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
};

/** @public openapi-client.test.ts imports it from a copy, by path. */
export const merchantFlow = async (options: FlowOptions): Promise<FlowResult> => {
  const operator = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    headers: { Authorization: `Bearer ${options.operatorToken}` },
  });

  // The operator creates a merchant, funds it and gives it a key.
  const created = ok(await operator.POST('/admin/merchants', { body: { name: 'Flow Ltd' } }));
  const accountId = created.data.merchant.account_id;
  ok(
    await operator.POST('/admin/accounts/{account_id}/credit', {
      params: { path: { account_id: accountId } },
      body: { currency: 'USD', amount: '1000.00' },
    }),
  );
  const issued = ok(
    await operator.POST('/admin/accounts/{account_id}/api-keys', {
      params: { path: { account_id: accountId } },
      body: {
        name: 'flow',
        permissions: [
          'payment.account.read',
          'payment.wallet.read',
          'payment.ledger.read',
          'payment.payout.create',
          'payment.payout.submit',
          'payment.payout.read',
          'payment.acquiring.create',
          'payment.acquiring.read',
          'payment.webhook.write',
        ],
      },
    }),
  );

  const merchant = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    headers: { Authorization: `Bearer ${issued.data.api_key.token}` },
  });

  // The merchant reads its account and balances.
  const account = ok(await merchant.GET('/payment/account')).data.account;
  const balances = ok(await merchant.GET('/payment/balances')).data.items;

  // A quick payout: created, read back, listed.
  const payout = ok(
    await merchant.POST('/payment/quickpayout', {
      body: {
        client_request_id: 'cr-FLOW-1',
        currency: 'USD',
        amount: '25.00',
        method_id: 1,
        reference: 'FLOW-1',
        notify_url: 'https://merchant.example/payouts/notify',
        beneficiary: { name: 'Jane Doe', fields: { payee_id: 'payeeflow1' } },
        beneficiary_account: {
          network_code: 'WALLETA',
          fields: { walleta_email: 'jane@example.com' },
        },
      },
    }),
  ).data.payout;
  const read = ok(
    await merchant.GET('/payment/payouts/{payout_id}', {
      params: { path: { payout_id: payout.payout_id } },
    }),
  ).data.payout;
  const listed = ok(await merchant.GET('/payment/payouts')).data.items;

  // An acquiring order, notified to a webhook of the merchant's, then read back.
  const webhook = ok(
    await merchant.POST('/payment/webhooks', {
      body: { url: 'https://merchant.example/webhooks', events: ['acquiring.*'] },
    }),
  ).data.webhook;
  const order = ok(
    await merchant.POST('/payment/acquiring/orders', {
      body: {
        out_trade_no: 'FLOW-ORDER-1',
        order_currency: 'USD',
        order_amount: '100.00',
        allowed_pay_currencies: ['TRON_USDT'],
        expire_seconds: 1800,
        underpay_tolerance: '0',
        notify_webhook_id: webhook.webhook_id,
      },
    }),
  ).data.order;
  const orderRead = ok(
    await merchant.GET('/payment/acquiring/orders/{order_id}', {
      params: { path: { order_id: order.order_id } },
    }),
  ).data.order;

  // The ledger: the reconciliation source.
  const ledger = ok(await merchant.GET('/payment/ledger')).data.items;

  return {
    accountId: account.account_id,
    accountStatus: account.status,
    usdAvailable: balances
      .filter((balance) => balance.currency === 'USD')
      .map((balance) => balance.available),
    payoutId: read.payout_id,
    payoutStatus: read.status,
    listedPayoutIds: listed.map((item) => item.payout_id),
    orderId: orderRead.order_id,
    orderStatus: orderRead.status,
    orderPayAmount: orderRead.pay_amount,
    ledgerRecordTypes: ledger.map((record) => record.record_type),
  };
};
