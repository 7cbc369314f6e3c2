/**
 * The builders of the access part's answers: accounts, API keys, webhooks, deliveries, funding
 * records, balances and ledger records, each typed with the core's answer codec of its shape
 * (`access-answers.codecs.ts`), so what the engine answers is what `/openapi.json` documents.
 * Secrets never appear here: the use cases that may show one (docs/spec/decisions.md §5, §7, §8) add them.
 */
import {
  type AccountRecord,
  type AccountView,
  type ApiKeyRecord,
  type ApiKeyView,
  type Balance,
  type BalanceView,
  type Currency,
  Decimal,
  type FundingRecord,
  type FundingView,
  formatAmount,
  type LedgerEntry,
  type LedgerEntryView,
  type MerchantRecord,
  type MerchantView,
  type WebhookDeliveryRecord,
  type WebhookDeliveryView,
  type WebhookRecord,
  type WebhookView,
} from '@payrail/core';

export const accountView = (account: AccountRecord): AccountView => ({
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

export const merchantView = (merchant: MerchantRecord, account: AccountRecord): MerchantView => ({
  merchant_id: merchant.merchant_id,
  account_id: account.account_id,
  name: merchant.name,
  status: merchant.status,
  currencies: account.currencies,
  notify_secret: account.notify_secret,
  created_at: merchant.created_at,
  updated_at: merchant.updated_at,
});

export const apiKeyView = (key: ApiKeyRecord): ApiKeyView => ({
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

export const webhookView = (webhook: WebhookRecord): WebhookView => ({
  webhook_id: webhook.webhook_id,
  url: webhook.url,
  events: webhook.events,
  status: webhook.status,
  created_at: webhook.created_at,
  updated_at: webhook.updated_at,
});

export const deliveryView = (delivery: WebhookDeliveryRecord): WebhookDeliveryView => ({
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

export const fundingView = (record: FundingRecord): FundingView => ({
  record_id: record.record_id,
  currency: record.currency,
  network: record.network,
  amount: record.amount,
  status: record.status,
  tx_hash: record.tx_hash,
  created_at: record.created_at,
  updated_at: record.updated_at,
});

export const balanceView = (balance: Balance): BalanceView => ({
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

/** A ledger posting as the merchant reads it; `reference` is a payout's, `null` otherwise. */
export const ledgerEntryView = (entry: LedgerEntry, reference: string | null): LedgerEntryView => ({
  transaction_id: entry.journal_id,
  record_type: entry.record_type,
  currency: entry.currency,
  bucket: entry.bucket,
  amount: entry.amount,
  balance_after: entry.balance_after,
  business_type: entry.business_type,
  business_id: entry.business_id,
  reference,
  created_at: entry.created_at,
});
