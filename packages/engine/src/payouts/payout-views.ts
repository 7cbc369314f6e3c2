/**
 * The wire shapes of the payout side: each answer's object exactly as the merchant (or the
 * operator) sees it, snake_case, amounts as strings at the currency's scale, times in Unix
 * seconds. Receiving-account fields never leave the service unmasked (see `maskAccountValue`).
 */
import {
  type BeneficiaryAccountRecord,
  type BeneficiaryRecord,
  type Currency,
  type NetworkSchemaField,
  type Page,
  type PayoutMethodRecord,
  type PayoutNetworkRecord,
  type PayoutResource,
  type PayoutRouteDraft,
  type PayoutRouteRecord,
  type PayoutSnapshot,
  payoutResourceOf,
  reviewStatusOf,
} from '@payrail/core';
import type { PageView } from '../engine-api.js';

/** `data.payout` of every payout answer but creation's: the core's payout resource. */
export type PayoutView = PayoutResource;

/** What review decided at creation, as the creation answer tells it. */
export type RiskStatus = 'pending' | 'passed' | 'rejected';

/**
 * One receiving-account value, masked: an e-mail keeps its first character and its domain
 * (`a***@example.com`), anything else its last 4 characters (`***5678`); 4 characters or fewer
 * are masked whole. Enough for a merchant to recognise the account, not to reuse it elsewhere.
 */
export const maskAccountValue = (value: string): string => {
  const chars = Array.from(value);
  const at = value.lastIndexOf('@');
  if (at > 0 && at < value.length - 1) return `${chars[0]}***${value.slice(at)}`;
  return chars.length <= 4 ? '*'.repeat(chars.length) : `***${chars.slice(-4).join('')}`;
};

export const maskedFieldsOf = (
  fields: Readonly<Record<string, string>>,
): Readonly<Record<string, string>> =>
  Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, maskAccountValue(value)]));

/**
 * `risk_status` of the creation answer (the interface shows it only there): `pending` while the
 * payout waits for review or is a draft, `passed` once approved at creation (auto approval),
 * `rejected` when review refused it.
 */
export const riskStatusOf = (snapshot: PayoutSnapshot): RiskStatus => {
  const review = reviewStatusOf(snapshot);
  return review === 'approved' ? 'passed' : review === 'rejected' ? 'rejected' : 'pending';
};

/** `data.payout` of `POST /payment/quickpayout` (and of an identical repeat). */
export interface CreatedPayoutView extends PayoutView {
  readonly risk_status: RiskStatus;
}

export const createdPayoutView = (snapshot: PayoutSnapshot): CreatedPayoutView => ({
  ...payoutResourceOf(snapshot),
  risk_status: riskStatusOf(snapshot),
});

/** `data.beneficiary`: the payee's profile, its fields as the merchant sent them. */
export interface BeneficiaryView {
  readonly beneficiary_id: string;
  readonly method_id: number;
  readonly payee_id: string;
  readonly name: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly status: BeneficiaryRecord['status'];
  readonly created_at: number;
  readonly updated_at: number;
}

export const beneficiaryView = (record: BeneficiaryRecord): BeneficiaryView => ({
  beneficiary_id: record.beneficiary_id,
  method_id: record.method_id,
  payee_id: record.payee_id,
  name: record.name,
  fields: record.fields,
  status: record.status,
  created_at: record.created_at,
  updated_at: record.updated_at,
});

/** `data.beneficiary_account`: the receiving account, its fields only masked. */
export interface BeneficiaryAccountView {
  readonly beneficiary_account_id: string;
  readonly beneficiary_id: string;
  readonly network_code: string;
  readonly display_name: string | null;
  readonly account_type: string | null;
  readonly fields_masked: Readonly<Record<string, string>>;
  readonly status: BeneficiaryAccountRecord['status'];
  readonly created_at: number;
  readonly updated_at: number;
}

export const beneficiaryAccountView = (
  record: BeneficiaryAccountRecord,
): BeneficiaryAccountView => ({
  beneficiary_account_id: record.beneficiary_account_id,
  beneficiary_id: record.beneficiary_id,
  network_code: record.network_code,
  display_name: record.display_name,
  account_type: record.account_type,
  fields_masked: maskedFieldsOf(record.fields),
  status: record.status,
  created_at: record.created_at,
  updated_at: record.updated_at,
});

/** `/admin/payout-methods` objects. */
export interface PayoutMethodView {
  readonly method_id: number;
  readonly name: string;
  readonly currency_type: PayoutMethodRecord['currency_type'];
  readonly currencies: readonly Currency[];
  readonly network_codes: readonly string[];
  readonly channel_ids: readonly string[];
  readonly status: PayoutMethodRecord['status'];
  readonly created_at: number;
  readonly updated_at: number;
}

export const payoutMethodView = (record: PayoutMethodRecord): PayoutMethodView => ({
  method_id: record.method_id,
  name: record.name,
  currency_type: record.currency_type,
  currencies: record.currencies,
  network_codes: record.network_codes,
  channel_ids: record.channel_ids,
  status: record.status,
  created_at: record.created_at,
  updated_at: record.updated_at,
});

/** `/admin/payout-networks` objects: the schema under `fields`. */
export interface PayoutNetworkView {
  readonly code: string;
  readonly name: string;
  readonly fields: readonly NetworkSchemaField[];
  readonly status: PayoutNetworkRecord['status'];
  readonly created_at: number;
  readonly updated_at: number;
}

export const payoutNetworkView = (record: PayoutNetworkRecord): PayoutNetworkView => ({
  code: record.code,
  name: record.name,
  fields: record.fields,
  status: record.status,
  created_at: record.created_at,
  updated_at: record.updated_at,
});

/** The editable fields of a route, as an update starts from them. */
export const routeDraftOf = (record: PayoutRouteRecord): PayoutRouteDraft => ({
  account_id: record.account_id,
  currency: record.currency,
  method_id: record.method_id,
  channel_id: record.channel_id,
  min_amount: record.min_amount,
  max_amount: record.max_amount,
  fixed_fee: record.fixed_fee,
  percent_fee: record.percent_fee,
  channel_account_id: record.channel_account_id,
  required_beneficiary_fields: record.required_beneficiary_fields,
  status: record.status,
});

/** `/admin/routes` objects. */
export interface PayoutRouteView extends PayoutRouteDraft {
  readonly route_id: string;
  readonly created_at: number;
  readonly updated_at: number;
}

export const payoutRouteView = (record: PayoutRouteRecord): PayoutRouteView => ({
  route_id: record.route_id,
  ...routeDraftOf(record),
  created_at: record.created_at,
  updated_at: record.updated_at,
});

/**
 * A payout method of the merchant's setup lookup: only the currencies it can pay out in for the
 * account, and nothing of the operator's bookkeeping.
 */
export interface AvailablePayoutMethodView {
  readonly method_id: number;
  readonly name: string;
  readonly currency_type: PayoutMethodRecord['currency_type'];
  readonly currencies: readonly Currency[];
  readonly network_codes: readonly string[];
  readonly channel_ids: readonly string[];
}

/**
 * A receiving network of the merchant's setup lookup: the usable methods that pay to it, and its
 * field schema when `include_schema` asked for it.
 */
export interface ReceivingNetworkView {
  readonly code: string;
  readonly name: string;
  readonly method_ids: readonly number[];
  readonly fields?: readonly NetworkSchemaField[];
}

/** `data.payout_network` of the schema lookup. */
export interface NetworkSchemaView {
  readonly code: string;
  readonly name: string;
  readonly fields: readonly NetworkSchemaField[];
}

/** A list answer: `{items, total, limit, offset}`. */
export const pageView = <R, V>(page: Page<R>, view: (record: R) => V): PageView<V> => ({
  items: page.items.map(view),
  total: page.total,
  limit: page.limit,
  offset: page.offset,
});
