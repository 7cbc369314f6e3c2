/**
 * What the engine persists, as plain JSON-friendly records with snake_case wire names. Every
 * record carries `version` (optimistic concurrency: an update names the version it read) and
 * `created_at` / `updated_at` (Unix seconds). Machine-driven objects (payouts, orders, batches)
 * keep their XState snapshot beside the columns that lists filter on.
 */
import type { NetworkSchemaField } from '../codecs/beneficiary-account.codecs.js';
import type { OperatorRole, OperatorStatus } from '../codecs/operator.codecs.js';
import type { Currency } from '../money/money.js';
import type { PayTokenId } from '../money/pay-tokens.js';

export interface RecordMeta {
  readonly version: number;
  readonly created_at: number;
  readonly updated_at: number;
}

export type Environment = 'sandbox' | 'live';

export interface MerchantRecord extends RecordMeta {
  readonly merchant_id: string;
  readonly name: string;
  readonly status: 'active' | 'disabled';
}

export interface AccountRecord extends RecordMeta {
  readonly account_id: string;
  readonly merchant_id: string;
  readonly status: 'active' | 'frozen';
  readonly currencies: readonly Currency[];
  readonly verification_enabled: boolean;
  readonly auto_approve: boolean;
  readonly products: { readonly payout: boolean; readonly acquiring: boolean };
  readonly enabled_pay_tokens: readonly PayTokenId[];
  readonly default_pay_tokens: readonly PayTokenId[];
  /** `whsec_...`: signs payout callbacks (docs/spec/decisions.md §5). */
  readonly notify_secret: string;
}

export interface ApiKeyRecord extends RecordMeta {
  readonly key_id: string;
  readonly account_id: string;
  readonly merchant_id: string;
  readonly name: string;
  readonly env: Environment;
  readonly permissions: readonly string[];
  /** Bumped by rotation; a token naming an older version is `api key version mismatch`. */
  readonly key_version: number;
  readonly status: 'active' | 'disabled' | 'deleted';
  readonly ip_whitelist: readonly string[];
  readonly expires_at: number;
}

export interface PayoutMethodRecord extends RecordMeta {
  readonly method_id: number;
  readonly name: string;
  readonly currency_type: 'fiat' | 'crypto';
  readonly currencies: readonly Currency[];
  readonly network_codes: readonly string[];
  readonly channel_ids: readonly string[];
  readonly status: 'active' | 'disabled';
}

export interface PayoutNetworkRecord extends RecordMeta {
  readonly code: string;
  readonly name: string;
  readonly fields: readonly NetworkSchemaField[];
  readonly status: 'active' | 'disabled';
}

/** (account, currency, method, optional channel, amount range) -> channel account and fees. */
export interface PayoutRouteRecord extends RecordMeta {
  readonly route_id: string;
  /** `null`: the route serves every account. */
  readonly account_id: string | null;
  readonly currency: Currency;
  readonly method_id: number;
  readonly channel_id: string | null;
  readonly min_amount: string;
  readonly max_amount: string;
  readonly fixed_fee: string;
  readonly percent_fee: string;
  readonly channel_account_id: string | null;
  readonly required_beneficiary_fields: readonly string[];
  readonly status: 'active' | 'disabled';
}

export interface BeneficiaryRecord extends RecordMeta {
  readonly beneficiary_id: string;
  readonly account_id: string;
  readonly method_id: number;
  readonly payee_id: string;
  readonly name: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly status: 'active' | 'disabled';
  /** The payout channel it was first linked with; a payout on another channel is refused. */
  readonly channel_id?: string;
}

export interface BeneficiaryAccountRecord extends RecordMeta {
  readonly beneficiary_account_id: string;
  readonly account_id: string;
  readonly beneficiary_id: string;
  readonly network_code: string;
  readonly display_name: string | null;
  readonly account_type: string | null;
  readonly fields: Readonly<Record<string, string>>;
  readonly status: 'active' | 'disabled' | 'suspended';
}

export interface PayoutRecord extends RecordMeta {
  readonly payout_id: string;
  readonly account_id: string;
  readonly reference: string;
  readonly client_request_id: string | null;
  /** SHA-256 of the canonical create request: an identical repeat answers the original. */
  readonly request_hash: string;
  readonly currency: Currency;
  readonly amount: string;
  readonly status: string;
  readonly review_status: string;
  readonly execution_status: string;
  readonly batch_id: string | null;
  /** A `PersistedPayout` (`persistPayout`): the versioned wrapper, not the bare XState snapshot. */
  readonly snapshot: unknown;
}

export interface AcquiringOrderRecord extends RecordMeta {
  readonly order_id: string;
  readonly account_id: string;
  readonly out_trade_no: string;
  readonly status: string;
  readonly snapshot: unknown;
}

/** Where an upstream payment to an address is credited: the order that handed the address out. */
export interface DepositAddressRecord extends RecordMeta {
  readonly address_id: string;
  readonly account_id: string;
  readonly network: string;
  readonly address: string;
  readonly order_id: string;
}

/**
 * A provider's payment id, bound to the order that saw it first: one transfer pays one order, so
 * a report of the id on another order is refused. Written once, never changed.
 */
export interface AcquiringPaymentRecord extends RecordMeta {
  readonly payment_id: string;
  readonly account_id: string;
  readonly order_id: string;
}

/** A refund of an order's pay-in (ADR 0044): its machine snapshot, with the columns lists use. */
export interface AcquiringRefundRecord extends RecordMeta {
  readonly refund_id: string;
  readonly account_id: string;
  readonly order_id: string;
  readonly status: string;
  /** The merchant's idempotency key, unique per account; null when none was sent. */
  readonly client_refund_id: string | null;
  readonly snapshot: unknown;
}

export interface CryptoBatchRecord extends RecordMeta {
  readonly batch_id: string;
  readonly account_id: string;
  readonly status: string;
  readonly snapshot: unknown;
}

export interface WebhookRecord extends RecordMeta {
  readonly webhook_id: string;
  readonly account_id: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly status: 'active' | 'inactive' | 'deleted';
  /** `whsec_...`. */
  readonly secret: string;
}

export interface DeliveryAttempt {
  readonly attempt: number;
  readonly at: number;
  readonly status_code: number | null;
  readonly latency_ms: number;
  readonly error: string | null;
  /** The first bytes of the answer, for the merchant's log. */
  readonly response_body: string;
}

export interface WebhookDeliveryRecord extends RecordMeta {
  readonly delivery_id: string;
  readonly account_id: string;
  readonly event_id: string;
  readonly event_type: string;
  /**
   * The object the event is about (`payout` and a payout_id, `acquiring` and an order_id, ...),
   * as its outbox message names it; `null` on records logged before they were kept.
   */
  readonly business_type: string | null;
  readonly business_id: string | null;
  /** `null` for payout callbacks sent to the payout's notify_url. */
  readonly webhook_id: string | null;
  readonly url: string;
  readonly status: 'pending' | 'succeeded' | 'failed';
  readonly attempts: readonly DeliveryAttempt[];
  /** The outbox message last sent for this delivery: redelivery enqueues its payload again. */
  readonly outbox_id?: string;
}

export interface FundingRecord extends RecordMeta {
  readonly record_id: string;
  readonly account_id: string;
  readonly currency: Currency;
  readonly network: string;
  readonly amount: string;
  readonly status: 'pending' | 'completed' | 'failed';
  readonly tx_hash: string | null;
}

/** A named operator of the admin API (ADR 0039). */
export interface OperatorRecord extends RecordMeta {
  readonly operator_id: string;
  readonly name: string;
  readonly role: OperatorRole;
  readonly status: OperatorStatus;
  /**
   * SHA-256 (hex) of the credential's secret part: the credential itself is shown once, at
   * creation and rotation, and never stored.
   */
  readonly token_hash: string;
  /** Unix seconds; from then on the credential is refused. */
  readonly expires_at: number;
  /** The operator that added this one, or `bootstrap` (the configured admin token). */
  readonly created_by: string;
}

/** Who did an act: an operator (`bootstrap` for the configured admin token) or an API key. */
export type ActorType = 'operator' | 'api_key';

/**
 * One act of the audit trail (ADR 0040), written in the unit of work of the act itself and
 * never changed: who (`actor_type`, `actor_id`, and an operator's name as it was), when, what
 * (`action`, with `detail` such as a review's decision), on which object, from which request.
 */
export interface AuditRecord extends RecordMeta {
  readonly audit_id: string;
  readonly actor_type: ActorType;
  readonly actor_id: string;
  readonly actor_name: string | null;
  /** The act, e.g. `payout.review`, `api_key.issue`, `crypto_batch.approve`. */
  readonly action: string;
  /** What the act changed first: `payout` and a payout_id, `api_key` and a key_id, ... */
  readonly object_type: string | null;
  readonly object_id: string | null;
  /** The merchant account the object belongs to; `null` for platform objects (operators, routes). */
  readonly account_id: string | null;
  /** e.g. a review's action (`approve`), a status set, a batch's item count. */
  readonly detail: string | null;
  readonly request_id: string | null;
  readonly client_ip: string | null;
}
