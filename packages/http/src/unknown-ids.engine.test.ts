/**
 * docs/spec/decisions.md §1: an object in the path that is unknown (or another merchant's) answers 404/65 with
 * its catalogue message, on every route that has a path id, admin routes included. Each route is
 * called with a well-formed unknown id and with a malformed one, with a body the route would
 * otherwise accept, so the answer can only be about the id.
 */
import { type ErrorKey, errorCatalogue } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import { engineApp, operatorToken } from './engine-app.test-support.js';
import { errorKeysOf } from './openapi/openapi.document.js';
import { pathParameters } from './routes/route.js';
import { routes } from './routes/route-table.js';

interface UnknownIdCase {
  /** The catalogue message of the 404. */
  readonly notFound: ErrorKey;
  /** A well-formed id nobody has. */
  readonly unknown: string;
  /** A body the route accepts when the id is known. */
  readonly body?: unknown;
}

const malformed = 'not%20an%20id!';

/** One row per route with a `{...}` parameter, by operationId. */
const cases: Readonly<Record<string, UnknownIdCase>> = {
  // Merchant API
  getPayoutNetworkSchema: { notFound: 'network_code_not_found', unknown: 'NOPE' },
  getPayout: { notFound: 'payout_not_found', unknown: 'po_999' },
  updatePayout: { notFound: 'payout_not_found', unknown: 'po_999', body: { amount: '30.00' } },
  submitPayout: { notFound: 'payout_not_found', unknown: 'po_999' },
  cancelPayout: { notFound: 'payout_not_found', unknown: 'po_999' },
  listPayoutDeliveries: { notFound: 'payout_not_found', unknown: 'po_999' },
  getBeneficiary: { notFound: 'beneficiary_id_not_found', unknown: 'ben_999' },
  updateBeneficiary: {
    notFound: 'beneficiary_id_not_found',
    unknown: 'ben_999',
    body: { status: 'disabled' },
  },
  getBeneficiaryAccount: { notFound: 'beneficiary_account_id_not_found', unknown: 'bacc_999' },
  updateBeneficiaryAccount: {
    notFound: 'beneficiary_account_id_not_found',
    unknown: 'bacc_999',
    body: { status: 'disabled' },
  },
  getOrder: { notFound: 'order_not_found', unknown: 'ord_999' },
  listOrderPayments: { notFound: 'order_not_found', unknown: 'ord_999' },
  closeOrder: { notFound: 'order_not_found', unknown: 'ord_999', body: { reason: 'test' } },
  refundOrder: {
    notFound: 'order_not_found',
    unknown: 'ord_999',
    body: { refund_type: 'full', address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' },
  },
  listOrderRefunds: { notFound: 'order_not_found', unknown: 'ord_999' },
  getRefund: { notFound: 'refund_not_found', unknown: 'rfd_999' },
  getBatch: { notFound: 'batch_not_found', unknown: 'bat_999' },
  addBatchItems: {
    notFound: 'batch_not_found',
    unknown: 'bat_999',
    body: {
      items: [
        {
          order_no: 'item-1',
          amount: '5.000000',
          beneficiary_account: {
            network_code: 'TRON',
            address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
          },
        },
      ],
    },
  },
  listBatchItems: { notFound: 'batch_not_found', unknown: 'bat_999' },
  approveBatch: { notFound: 'batch_not_found', unknown: 'bat_999', body: { version: 0 } },
  submitBatch: { notFound: 'batch_not_found', unknown: 'bat_999' },
  getWebhook: { notFound: 'webhook_not_found', unknown: 'wh_999' },
  updateWebhook: { notFound: 'webhook_not_found', unknown: 'wh_999', body: { status: 'inactive' } },
  deleteWebhook: { notFound: 'webhook_not_found', unknown: 'wh_999' },
  rotateWebhookSecret: { notFound: 'webhook_not_found', unknown: 'wh_999' },
  listWebhookDeliveries: { notFound: 'webhook_not_found', unknown: 'wh_999' },
  redeliverWebhookDelivery: { notFound: 'webhook_not_found', unknown: 'dlv_999' },
  // Admin API
  adminGetOrder: { notFound: 'order_not_found', unknown: 'ord_999' },
  adminResolveOrder: {
    notFound: 'order_not_found',
    unknown: 'ord_999',
    body: { action: 'accept', reason: 'paid late' },
  },
  adminReviewRefund: {
    notFound: 'refund_not_found',
    unknown: 'rfd_999',
    body: { action: 'approve' },
  },
  sandboxRefundExecution: {
    notFound: 'refund_not_found',
    unknown: 'rfd_999',
    body: { outcome: 'completed' },
  },
  adminUpdateOperator: {
    notFound: 'operator_id_not_found',
    unknown: 'opr_999',
    body: { role: 'viewer' },
  },
  adminRotateOperator: { notFound: 'operator_id_not_found', unknown: 'opr_999' },
  adminUpdateAccount: {
    notFound: 'account_id_not_found',
    unknown: 'acc_999',
    body: { auto_approve: true },
  },
  adminIssueApiKey: {
    notFound: 'account_id_not_found',
    unknown: 'acc_999',
    body: { permissions: ['payment.account.read'] },
  },
  adminListApiKeys: { notFound: 'account_id_not_found', unknown: 'acc_999' },
  adminRotateApiKey: { notFound: 'key_id_not_found', unknown: 'key_999' },
  adminUpdateApiKey: {
    notFound: 'key_id_not_found',
    unknown: 'key_999',
    body: { status: 'disabled' },
  },
  adminDeleteApiKey: { notFound: 'key_id_not_found', unknown: 'key_999' },
  adminRotateNotifySecret: { notFound: 'account_id_not_found', unknown: 'acc_999' },
  adminReviewPayout: {
    notFound: 'payout_not_found',
    unknown: 'po_999',
    body: { action: 'approve' },
  },
  adminUpdatePayoutMethod: {
    notFound: 'method_id_not_found',
    unknown: '999',
    body: { name: 'Renamed' },
  },
  adminUpdatePayoutNetwork: {
    notFound: 'network_code_not_found',
    unknown: 'NOPE',
    body: { fields: [] },
  },
  adminUpdateRoute: {
    notFound: 'route_id_not_found',
    unknown: 'rt_999',
    body: { fixed_fee: '1.00' },
  },
  adminCreditAccount: {
    notFound: 'account_id_not_found',
    unknown: 'acc_999',
    body: { currency: 'USD', amount: '10.00' },
  },
  sandboxPayoutExecution: {
    notFound: 'payout_not_found',
    unknown: 'po_999',
    body: { outcome: 'completed' },
  },
  sandboxOrderPayment: {
    notFound: 'order_not_found',
    unknown: 'ord_999',
    body: { token_id: 'TRON_USDT', amount: '1.000000', status: 'confirmed' },
  },
  // Checkout
  checkoutGetOrder: { notFound: 'order_not_found', unknown: 'ord_999' },
  checkoutSelectToken: {
    notFound: 'order_not_found',
    unknown: 'ord_999',
    body: { network: 'TRON', currency: 'USDT' },
  },
};

const routesWithIds = routes.filter((route) => pathParameters(route.path).length > 0);

/** The expected refusal: 404 and the catalogue's envelope, exactly (none has placeholders). */
const notFoundAnswer = (key: ErrorKey) => ({
  status: 404,
  body: { code: 65, message: errorCatalogue[key].message, data: null },
});

describe('unknown path ids', () => {
  it('has a case for every route with a path parameter, and no other', () => {
    const upstream = routesWithIds.filter((route) => route.scope === 'upstream');
    expect(Object.keys(cases).sort()).toEqual(
      routesWithIds
        .filter((route) => route.scope !== 'upstream')
        .map((route) => route.operationId)
        .sort(),
    );
    // The upstream route's id is a provider name: covered below with its own message.
    expect(upstream.map((route) => route.operationId)).toEqual(['receiveUpstreamAcquiringEvents']);
  });

  it('answers 404 with the catalogue message for a well-formed unknown id and a malformed one', async () => {
    const h = engineApp();
    await h.seedCatalogue();
    const merchant = await h.merchant('Acme');
    const answers: Record<string, unknown> = {};
    const expected: Record<string, unknown> = {};
    for (const route of routesWithIds) {
      const row = cases[route.operationId];
      if (row === undefined) continue;
      const headers: Record<string, string> =
        route.scope === 'merchant'
          ? { Authorization: `Bearer ${merchant.token}` }
          : route.scope === 'admin'
            ? { Authorization: `Bearer ${operatorToken}` }
            : {};
      for (const id of [row.unknown, malformed]) {
        const path = route.path.replace(/\{[a-z_]+\}/, id);
        const answer = await h.call(route.method.toUpperCase(), path, headers, row.body);
        const label = `${route.method.toUpperCase()} ${path}`;
        answers[label] = { status: answer.status, body: answer.body };
        expected[label] = notFoundAnswer(row.notFound);
      }
    }
    expect(answers).toEqual(expected);
  });

  it('each route documents the 404 it answers', () => {
    const undocumented = routesWithIds.flatMap((route) => {
      const row = cases[route.operationId];
      return row === undefined || errorKeysOf(route).includes(row.notFound)
        ? []
        : [`${route.operationId}: ${row.notFound}`];
    });
    expect(undocumented).toEqual([]);
  });

  it('answers 404 for an unknown upstream provider', async () => {
    const h = engineApp();
    const answer = await h.call('POST', '/upstream/acquiring/nope', {}, { events: [] });
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 404,
      body: {
        code: 65,
        message: 'unsupported acquiring webhook provider: nope',
        data: null,
      },
    });
  });
});
