/** Decoding the two busiest create requests: a quick payout with an inline beneficiary, an order. */
import * as E from 'fp-ts/lib/Either.js';
import { bench, describe } from 'vitest';
import { decodeAcquiringOrderCreate } from './acquiring.codecs.js';
import { networkLookupOf, sandboxNetworkSchemas } from './beneficiary-account.codecs.js';
import { decodePayoutCreate } from './payout.codecs.js';

const lookupNetwork = networkLookupOf(sandboxNetworkSchemas);

const quickPayout = {
  client_request_id: 'req-1',
  currency: 'USD',
  amount: '10.50',
  method_id: 1,
  reference: 'ORDER-2',
  notify_url: 'https://merchant.example.com/payouts/callback',
  beneficiary: { name: 'Ann Lee', fields: { payee_id: 'ann001', country: 'US', zip: '94105' } },
  beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'ann@example.com' } },
};

const order = {
  out_trade_no: 'ORD-1001',
  order_currency: 'USD',
  order_amount: '25.5',
  allowed_pay_currencies: ['TRON_USDT', 'ETH_USDC'],
  expire_seconds: 1800,
  underpay_tolerance: '0.1',
  notify_webhook_id: 'wh_123',
};

const decodePayout = () => decodePayoutCreate(quickPayout, { lookupNetwork });
if (E.isLeft(decodePayout())) throw new Error('the quick payout does not decode');
if (E.isLeft(decodeAcquiringOrderCreate(order))) throw new Error('the order does not decode');

describe('request codecs', () => {
  bench('decodePayoutCreate: inline beneficiary and account', () => {
    decodePayout();
  });

  bench('decodeAcquiringOrderCreate', () => {
    decodeAcquiringOrderCreate(order);
  });
});
