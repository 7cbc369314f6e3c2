/**
 * The envelope's `data` of each success, for the document. The interface names the fields of
 * the payout and the order; decisions.md those of the batch, the webhook, the payment record and
 * the admin answers. Objects keep `additionalProperties` open: the engine may answer more.
 */
import {
  executionStatuses,
  orderStatusFilterValues,
  payoutStatusFilterValues,
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
    expire_time: unixSecondsSchema,
    created_at: unixSecondsSchema,
    updated_at: unixSecondsSchema,
  },
  ['order_id', 'out_trade_no', 'status', 'pay_amount', 'checkout_url', 'expire_time'],
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
