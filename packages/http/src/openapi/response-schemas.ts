/**
 * The envelope's `data` of each success, for the document. The interface names the fields of
 * the payout and the order; decisions.md those of the batch, the webhook, the payment record and
 * the admin answers. Objects keep `additionalProperties` open: the engine may answer more.
 */
import {
  executionStatuses,
  merchantBuckets,
  orderStatusFilterValues,
  payoutStatusFilterValues,
  recordTypes,
  reviewStatuses,
} from '@payrail/core';
import type { ResponseDoc } from '../routes/route.js';
import {
  arraySchema,
  decimalSchema,
  enumSchema,
  integerSchema,
  type JsonSchema,
  objectSchema,
  stringSchema,
  unixSecondsSchema,
} from './json-schema.js';

const open = (
  properties: Readonly<Record<string, JsonSchema>>,
  required: readonly string[] = [],
): JsonSchema => objectSchema(properties, required, { additionalProperties: true });

export const payoutSchema = open(
  {
    payout_id: stringSchema(),
    client_request_id: stringSchema(),
    reference: stringSchema(),
    currency: stringSchema(),
    amount: decimalSchema(),
    status: enumSchema(payoutStatusFilterValues),
    review_status: enumSchema(reviewStatuses),
    execution_status: enumSchema(executionStatuses),
    risk_status: stringSchema(),
    beneficiary_id: stringSchema(),
    beneficiary_account_id: stringSchema(),
    execution_fail_reason: stringSchema(),
  },
  ['payout_id', 'reference', 'currency', 'amount', 'status', 'review_status', 'execution_status'],
);

export const orderSchema = open(
  {
    order_id: stringSchema(),
    platform_order_no: stringSchema(),
    out_trade_no: stringSchema(),
    status: enumSchema(orderStatusFilterValues),
    checkout_type: stringSchema(),
    order_currency: stringSchema(),
    order_amount: decimalSchema(),
    allowed_pay_currencies: arraySchema(stringSchema()),
    pay_amount: decimalSchema(),
    paid_amount_total: decimalSchema(),
    remaining_amount: decimalSchema(),
    overpaid_amount: decimalSchema(),
    underpay_tolerance: decimalSchema(),
    checkout_url: stringSchema(),
    notify_webhook_id: stringSchema(),
    redirect_automatically: {
      type: 'boolean',
      description: 'the hosted page goes to redirect_url by itself once the order completes',
    },
    expire_time: unixSecondsSchema,
    created_at: unixSecondsSchema,
    updated_at: unixSecondsSchema,
  },
  ['order_id', 'out_trade_no', 'status', 'pay_amount', 'checkout_url', 'expire_time'],
);

/** `data.order` of the checkout calls: what the payer's page may know, no merchant secret. */
export const checkoutOrderSchema = open(
  {
    order_id: stringSchema(),
    out_trade_no: stringSchema(),
    status: enumSchema(orderStatusFilterValues),
    order_currency: stringSchema(),
    order_amount: decimalSchema(),
    pay_amount: decimalSchema(),
    paid_amount_total: decimalSchema(),
    remaining_amount: decimalSchema(),
    overpaid_amount: decimalSchema(),
    expire_time: unixSecondsSchema,
    pay_tokens: arraySchema(
      objectSchema(
        { token_id: stringSchema(), network: stringSchema(), currency: stringSchema() },
        ['token_id', 'network', 'currency'],
      ),
    ),
    selected_token: {
      type: ['object', 'null'],
      properties: {
        token_id: stringSchema(),
        network: stringSchema(),
        currency: stringSchema(),
        address: stringSchema(),
      },
      description: "null until the payer chose a token; then the token and the payer's address",
    },
    redirect_url: stringSchema(),
    redirect_automatically: {
      type: 'boolean',
      description: 'once completed, the page goes to redirect_url by itself',
    },
    logo_url: stringSchema(),
  },
  ['order_id', 'status', 'pay_amount', 'expire_time', 'pay_tokens', 'selected_token'],
);

export const paymentSchema = open({
  payment_id: stringSchema(),
  order_id: stringSchema(),
  network: stringSchema(),
  currency: stringSchema(),
  token_id: stringSchema(),
  address: stringSchema(),
  amount: decimalSchema(),
  confirmations: integerSchema(),
  required_confirmations: integerSchema(),
  tx_hash: stringSchema(),
  status: stringSchema(),
  detected_at: unixSecondsSchema,
  confirmed_at: unixSecondsSchema,
  created_at: unixSecondsSchema,
  updated_at: unixSecondsSchema,
});

export const batchSchema = open(
  {
    batch_id: stringSchema(),
    status: stringSchema(),
    currency: stringSchema(),
    method_id: integerSchema(),
    item_count: integerSchema(),
    total_amount: decimalSchema(),
  },
  ['batch_id', 'status', 'currency', 'method_id', 'item_count', 'total_amount'],
);

export const webhookSchema = open(
  {
    webhook_id: stringSchema(),
    url: stringSchema(),
    events: arraySchema(stringSchema()),
    status: stringSchema(),
    secret: stringSchema('whsec_...; shown on create and rotate'),
  },
  ['webhook_id', 'url', 'events', 'status'],
);

/**
 * A ledger record (ADR 0020, docs/ledger.md): one posting of a movement to one of the account's
 * buckets, signed, with the bucket's balance right after it.
 */
export const ledgerRecordSchema = open(
  {
    transaction_id: stringSchema(
      'the movement (journal) id; a hold or a release is two records with this id, one per bucket',
    ),
    record_type: enumSchema(recordTypes),
    currency: stringSchema(),
    bucket: enumSchema(merchantBuckets),
    amount: decimalSchema('signed decimal string: into the bucket positive, out of it negative'),
    balance_after: decimalSchema("the bucket's balance in the currency right after this record"),
    business_type: enumSchema(['deposit', 'payout', 'acquiring']),
    business_id: stringSchema(),
    reference: { type: ['string', 'null'] },
    created_at: unixSecondsSchema,
  },
  [
    'transaction_id',
    'record_type',
    'currency',
    'bucket',
    'amount',
    'balance_after',
    'business_type',
    'business_id',
    'reference',
    'created_at',
  ],
);

const anything = (description: string): JsonSchema => ({
  type: 'object',
  description,
  additionalProperties: true,
});

/** `data: { <key>: <object> }`. */
export const objectUnder = (key: string, schema: JsonSchema, description = key): ResponseDoc => ({
  description: `data.${description}`,
  schema: objectSchema({ [key]: schema }, [key]),
});

/** `data: { <key>: {...} }` for an object whose fields the interface does not show. */
export const someObjectUnder = (key: string): ResponseDoc => objectUnder(key, anything(key));

/** `data: { items, total, limit, offset }` (decisions §9). */
export const listOf = (items: JsonSchema, description: string): ResponseDoc => ({
  description: `a page of ${description}`,
  schema: objectSchema(
    {
      items: arraySchema(items),
      total: integerSchema(),
      limit: integerSchema(),
      offset: integerSchema(),
    },
    ['items', 'total', 'limit', 'offset'],
  ),
});

export const listOfSome = (description: string): ResponseDoc =>
  listOf(anything(description), description);

/** Any JSON object answer (lookups and admin configuration). */
export const someData = (description: string): ResponseDoc => ({
  description,
  schema: anything(description),
});
