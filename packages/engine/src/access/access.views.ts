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
  type DeliveryAttempt,
  type Environment,
  type FundingRecord,
  formatAmount,
  type LedgerEntry,
  type MerchantBucket,
  type MerchantRecord,
  type PayTokenId,
  type RecordType,
  type WebhookDeliveryRecord,
  type WebhookRecord,
} from '@payrail/core';

/** `data.account`: a merchant account's settings, never its notify_secret. */
export interface AccountView {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly status: AccountRecord['status'];
  readonly currencies: readonly Currency[];
  readonly verification_enabled: boolean;
  readonly auto_approve: boolean;
  readonly products: { readonly payout: boolean; readonly acquiring: boolean };
  readonly enabled_pay_tokens: readonly PayTokenId[];
  readonly default_pay_tokens: readonly PayTokenId[];
  readonly created_at: number;
  readonly updated_at: number;
}

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

/** `data.merchant` of merchant creation: the one answer with the first account's notify_secret. */
export interface MerchantView {
  readonly merchant_id: string;
  readonly account_id: string;
  readonly name: string;
  readonly status: MerchantRecord['status'];
  readonly currencies: readonly Currency[];
  readonly notify_secret: string;
  readonly created_at: number;
  readonly updated_at: number;
}

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

/** `data.account` of a notify_secret rotation: the new secret, shown this once. */
export interface AccountNotifySecretView {
  readonly account_id: string;
  readonly notify_secret: string;
}

/** `data.api_key`; `version` is the key's, bumped by each rotation. */
export interface ApiKeyView {
  readonly key_id: string;
  readonly merchant_id: string;
  readonly account_id: string;
  readonly name: string;
  readonly env: Environment;
  readonly permissions: readonly string[];
  readonly version: number;
  readonly status: ApiKeyRecord['status'];
  readonly ip_whitelist: readonly string[];
  readonly expires_at: number;
  readonly created_at: number;
  readonly updated_at: number;
}

/** `data.api_key` of issue and rotation: the only answers that carry the token. */
export interface IssuedApiKeyView extends ApiKeyView {
  readonly token: string;
}

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

/** `data.webhook`, without its secret. */
export interface WebhookView {
  readonly webhook_id: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly status: WebhookRecord['status'];
  readonly created_at: number;
  readonly updated_at: number;
}

/** `data.webhook` of create and rotate-secret: the only answers that carry the secret. */
export interface WebhookWithSecretView extends WebhookView {
  readonly secret: string;
}

export const webhookView = (webhook: WebhookRecord): WebhookView => ({
  webhook_id: webhook.webhook_id,
  url: webhook.url,
  events: webhook.events,
  status: webhook.status,
  created_at: webhook.created_at,
  updated_at: webhook.updated_at,
});

/** One delivery of a webhook (or of a payout's callback: `webhook_id` null) and its attempts. */
export interface WebhookDeliveryView {
  readonly delivery_id: string;
  readonly webhook_id: string | null;
  readonly event_id: string;
  readonly event_type: string;
  readonly url: string;
  readonly status: WebhookDeliveryRecord['status'];
  readonly attempts: readonly DeliveryAttempt[];
  readonly created_at: number;
  readonly updated_at: number;
}

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

/** A deposit or withdrawal; `record_id` is the ledger's `business_id` of its movement. */
export interface FundingView {
  readonly record_id: string;
  readonly currency: Currency;
  readonly network: string;
  readonly amount: string;
  readonly status: FundingRecord['status'];
  readonly tx_hash: string | null;
  readonly created_at: number;
  readonly updated_at: number;
}

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

/** `total` is available plus held: what the account owns, spendable or not. */
export interface BalanceView extends Balance {
  readonly total: string;
}

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

/**
 * One ledger record: one posting of a movement to one of the account's buckets (ADR 0020,
 * docs/ledger.md). `transaction_id` is the platform's id of the movement (the journal id): a
 * hold or a release is two records with one transaction_id, one per bucket; `business_id` the
 * platform id of the object that moved money (payout_id, a deposit's record_id, a pay-in's
 * payment_id); `reference` the merchant's own number of a payout (its reference), `null` for
 * other records. `amount` is signed (into the bucket positive, out of it negative) and
 * `balance_after` is the bucket's balance in the currency right after the record, so an
 * ascending replay from zero ends at the balances.
 */
export interface LedgerEntryView {
  readonly transaction_id: string;
  readonly record_type: RecordType;
  readonly currency: Currency;
  readonly bucket: MerchantBucket;
  readonly amount: string;
  readonly balance_after: string;
  readonly business_type: string;
  readonly business_id: string;
  readonly reference: string | null;
  readonly created_at: number;
}

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
