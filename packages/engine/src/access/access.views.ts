/**
 * Wire shapes of the access part: accounts, API keys, webhooks, deliveries, funding records,
 * balances and ledger records, exactly as the `data` of an answer shows them (snake_case,
 * amounts at the currency's scale, Unix seconds). Secrets never appear here: the use cases that
 * may show one (decisions §5, §7, §8) add it themselves.
 */
import {
  type AccountRecord,
  type ApiKeyRecord,
  type Balance,
  type Currency,
  Decimal,
  type FundingRecord,
  formatAmount,
  type LedgerEntry,
  type WebhookDeliveryRecord,
  type WebhookRecord,
} from '@payrail/core';

export const accountView = (account: AccountRecord) => ({
  merchant_id: account.merchant_id,
  account_id: account.account_id,
  status: account.status,
  currencies: account.currencies,
  verification_enabled: account.verification_enabled,
  auto_approve: account.auto_approve,
  products: { payout: account.products.payout, acquiring: account.products.acquiring },
  enabled_pay_tokens: account.enabled_pay_tokens,
  default_pay_tokens: account.default_pay_tokens,
  created_at: account.created_at,
  updated_at: account.updated_at,
});

export const apiKeyView = (key: ApiKeyRecord) => ({
  key_id: key.key_id,
  merchant_id: key.merchant_id,
  account_id: key.account_id,
  name: key.name,
  env: key.env,
  permissions: key.permissions,
  version: key.key_version,
  status: key.status,
  ip_whitelist: key.ip_whitelist,
  expires_at: key.expires_at,
  created_at: key.created_at,
  updated_at: key.updated_at,
});

export const webhookView = (webhook: WebhookRecord) => ({
  webhook_id: webhook.webhook_id,
  url: webhook.url,
  events: webhook.events,
  status: webhook.status,
  created_at: webhook.created_at,
  updated_at: webhook.updated_at,
});

export const deliveryView = (delivery: WebhookDeliveryRecord) => ({
  delivery_id: delivery.delivery_id,
  webhook_id: delivery.webhook_id,
  event_id: delivery.event_id,
  event_type: delivery.event_type,
  url: delivery.url,
  status: delivery.status,
  attempts: delivery.attempts.map((attempt) => ({
    attempt: attempt.attempt,
    at: attempt.at,
    status_code: attempt.status_code,
    latency_ms: attempt.latency_ms,
    error: attempt.error,
    response_body: attempt.response_body,
  })),
  created_at: delivery.created_at,
  updated_at: delivery.updated_at,
});

/** A deposit or withdrawal; `record_id` is the ledger's `business_id` of its movement. */
export const fundingView = (record: FundingRecord) => ({
  record_id: record.record_id,
  currency: record.currency,
  network: record.network,
  amount: record.amount,
  status: record.status,
  tx_hash: record.tx_hash,
  created_at: record.created_at,
  updated_at: record.updated_at,
});

/** `total` is available plus held: what the account owns, spendable or not. */
export const balanceView = (balance: Balance) => ({
  currency: balance.currency,
  available: balance.available,
  held: balance.held,
  total: formatAmount({
    currency: balance.currency,
    value: new Decimal(balance.available).plus(balance.held),
  }),
});

export const zeroBalance = (currency: Currency): Balance => ({
  currency,
  available: formatAmount({ currency, value: new Decimal(0) }),
  held: formatAmount({ currency, value: new Decimal(0) }),
});

/**
 * One ledger record. `transaction_id` is the platform's id of the movement (the journal id);
 * `business_id` the platform id of the object that moved money (payout_id, a
 * deposit's record_id, a pay-in's payment_id); `reference` the merchant's own number of a
 * payout (its reference), `null` for other records.
 */
export const ledgerEntryView = (entry: LedgerEntry, reference: string | null) => ({
  transaction_id: entry.journal_id,
  record_type: entry.record_type,
  currency: entry.currency,
  amount: entry.amount,
  business_type: entry.business_type,
  business_id: entry.business_id,
  reference,
  created_at: entry.created_at,
});
