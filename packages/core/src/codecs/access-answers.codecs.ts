/**
 * The answers of the access part: accounts, merchants, API keys, webhooks and their deliveries,
 * funding records, balances and ledger records, exactly as the `data` of an answer shows them
 * (snake_case, amounts at the currency's scale, Unix seconds). Secrets appear only in the views
 * named for the answers that show one (docs/spec/decisions.md §5, §7, §8).
 */
import * as t from 'io-ts';
import { merchantBuckets, recordTypes } from '../ledger/ledger.js';
import { payTokenIds } from '../money/pay-tokens.js';
import { accountStatuses } from './admin.codecs.js';
import {
  CurrencyCode,
  DecimalString,
  nullable,
  oneOf,
  timestamps,
  UnixSeconds,
  WholeNumber,
} from './common-answers.codecs.js';
import { fundingStatusFilterValues } from './list-query.codecs.js';
import { operatorRoles, operatorStatuses } from './operator.codecs.js';

const PayTokenIdCode = oneOf('PayTokenId', payTokenIds);

/** `data.account`: a merchant account's settings, never its notify_secret. */
export const AccountView = t.strict({
  merchant_id: t.string,
  account_id: t.string,
  status: oneOf('AccountStatus', accountStatuses),
  currencies: t.readonlyArray(CurrencyCode),
  verification_enabled: t.boolean,
  auto_approve: t.boolean,
  products: t.strict({ payout: t.boolean, acquiring: t.boolean }),
  enabled_pay_tokens: t.readonlyArray(PayTokenIdCode),
  default_pay_tokens: t.readonlyArray(PayTokenIdCode),
  ...timestamps,
});
export type AccountView = t.TypeOf<typeof AccountView>;

/** `data.merchant` of merchant creation: the one answer with the first account's notify_secret. */
export const MerchantView = t.strict({
  merchant_id: t.string,
  account_id: t.string,
  name: t.string,
  status: t.keyof({ active: null, disabled: null }),
  currencies: t.readonlyArray(CurrencyCode),
  notify_secret: t.string,
  ...timestamps,
});
export type MerchantView = t.TypeOf<typeof MerchantView>;

/** `data.account` of a notify_secret rotation: the new secret, shown this once. */
export const AccountNotifySecretView = t.strict({
  account_id: t.string,
  notify_secret: t.string,
});
export type AccountNotifySecretView = t.TypeOf<typeof AccountNotifySecretView>;

const apiKeyProps = {
  key_id: t.string,
  merchant_id: t.string,
  account_id: t.string,
  name: t.string,
  env: t.keyof({ sandbox: null, live: null }),
  permissions: t.readonlyArray(t.string),
  /** The key's version, bumped by each rotation. */
  version: WholeNumber,
  status: t.keyof({ active: null, disabled: null, deleted: null }),
  ip_whitelist: t.readonlyArray(t.string),
  expires_at: UnixSeconds,
  ...timestamps,
};

/** `data.api_key`, never its token. */
export const ApiKeyView = t.strict(apiKeyProps);
export type ApiKeyView = t.TypeOf<typeof ApiKeyView>;

/** `data.api_key` of issue and rotation: the only answers that carry the token. */
export const IssuedApiKeyView = t.strict({ ...apiKeyProps, token: t.string });
export type IssuedApiKeyView = t.TypeOf<typeof IssuedApiKeyView>;

const webhookProps = {
  webhook_id: t.string,
  url: t.string,
  events: t.readonlyArray(t.string),
  status: t.keyof({ active: null, inactive: null, deleted: null }),
  ...timestamps,
};

/** `data.webhook`, without its secret. */
export const WebhookView = t.strict(webhookProps);
export type WebhookView = t.TypeOf<typeof WebhookView>;

/** `data.webhook` of create and rotate-secret: the only answers that carry the secret. */
export const WebhookWithSecretView = t.strict({
  ...webhookProps,
  secret: t.string,
});
export type WebhookWithSecretView = t.TypeOf<typeof WebhookWithSecretView>;

/** One attempt of a delivery, as the merchant's log shows it. */
const DeliveryAttemptView = t.strict({
  attempt: WholeNumber,
  at: UnixSeconds,
  status_code: nullable(WholeNumber),
  latency_ms: WholeNumber,
  error: nullable(t.string),
  /** The first bytes of the answer. */
  response_body: t.string,
});

/** One delivery of a webhook (or of a payout's callback: `webhook_id` null) and its attempts. */
export const WebhookDeliveryView = t.strict({
  delivery_id: t.string,
  webhook_id: nullable(t.string),
  event_id: t.string,
  event_type: t.string,
  url: t.string,
  status: t.keyof({ pending: null, succeeded: null, failed: null }),
  attempts: t.readonlyArray(DeliveryAttemptView),
  ...timestamps,
});
export type WebhookDeliveryView = t.TypeOf<typeof WebhookDeliveryView>;

/** A deposit or withdrawal; `record_id` is the ledger's `business_id` of its movement. */
export const FundingView = t.strict({
  record_id: t.string,
  currency: CurrencyCode,
  network: t.string,
  amount: DecimalString,
  status: oneOf('FundingStatus', fundingStatusFilterValues),
  tx_hash: nullable(t.string),
  ...timestamps,
});
export type FundingView = t.TypeOf<typeof FundingView>;

/** A currency's balance; `total` is available plus held: what the account owns. */
export const BalanceView = t.strict({
  currency: CurrencyCode,
  available: DecimalString,
  held: DecimalString,
  total: DecimalString,
});
export type BalanceView = t.TypeOf<typeof BalanceView>;

/** `data` of `GET /payment/balances`: every currency at once, no paging. */
export const BalancesAnswer = t.strict({ items: t.readonlyArray(BalanceView) });
export type BalancesAnswer = t.TypeOf<typeof BalancesAnswer>;

/**
 * One ledger record (ADR 0020, docs/ledger.md): one posting of a movement to one of the
 * account's buckets, signed, with the bucket's balance right after it. `reference` is a payout's
 * reference, `null` for other records.
 */
export const LedgerEntryView = t.strict({
  transaction_id: t.string,
  record_type: oneOf('RecordType', recordTypes),
  currency: CurrencyCode,
  bucket: oneOf('MerchantBucket', merchantBuckets),
  amount: DecimalString,
  balance_after: DecimalString,
  business_type: t.string,
  business_id: t.string,
  reference: nullable(t.string),
  created_at: UnixSeconds,
});
export type LedgerEntryView = t.TypeOf<typeof LedgerEntryView>;

/** `data.clock` of a sandbox clock move: the test clock's time after it. */
export const ClockView = t.strict({ now: UnixSeconds });
export type ClockView = t.TypeOf<typeof ClockView>;

const operatorProps = {
  operator_id: t.string,
  name: t.string,
  role: oneOf('OperatorRole', operatorRoles),
  status: oneOf('OperatorStatus', operatorStatuses),
  expires_at: UnixSeconds,
  /** The operator that added this one, or `bootstrap`. */
  created_by: t.string,
  ...timestamps,
};

/** `data.operator`, never its credential. */
export const OperatorView = t.strict(operatorProps);
export type OperatorView = t.TypeOf<typeof OperatorView>;

/** `data.operator` of creation and rotation: the only answers that carry the credential. */
export const IssuedOperatorView = t.strict({ ...operatorProps, token: t.string });
export type IssuedOperatorView = t.TypeOf<typeof IssuedOperatorView>;

/** One act of the audit trail (ADR 0040). */
export const AuditRecordView = t.strict({
  audit_id: t.string,
  actor_type: t.keyof({ operator: null, api_key: null }),
  /** An operator id (`bootstrap` for the configured admin token) or an API key id. */
  actor_id: t.string,
  /** The operator's name when it acted; `null` for an API key. */
  actor_name: nullable(t.string),
  action: t.string,
  object_type: nullable(t.string),
  object_id: nullable(t.string),
  account_id: nullable(t.string),
  detail: nullable(t.string),
  request_id: nullable(t.string),
  client_ip: nullable(t.string),
  created_at: UnixSeconds,
});
export type AuditRecordView = t.TypeOf<typeof AuditRecordView>;
