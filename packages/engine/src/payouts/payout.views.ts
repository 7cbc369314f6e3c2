/**
 * The builders of the payout side's answers, each typed with the core's answer codec of its
 * shape (`payout-answers.codecs.ts`): snake_case, amounts as strings at the currency's scale,
 * times in Unix seconds. Receiving-account fields never leave the service unmasked (see
 * `maskAccountValue`).
 */
import {
  type BeneficiaryAccountRecord,
  type BeneficiaryAccountView,
  type BeneficiaryRecord,
  type BeneficiaryView,
  type CreatedPayoutView,
  type PayoutMethodRecord,
  type PayoutMethodView,
  type PayoutNetworkRecord,
  type PayoutNetworkView,
  type PayoutRouteDraft,
  type PayoutRouteRecord,
  type PayoutRouteView,
  type PayoutSnapshot,
  type PayoutView,
  payoutResourceOf,
  type RiskStatus,
  reviewStatusOf,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import type { Outcome } from '../command/command.handler.js';

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
const riskStatusOf = (snapshot: PayoutSnapshot): RiskStatus => {
  const review = reviewStatusOf(snapshot);
  return review === 'approved' ? 'passed' : review === 'rejected' ? 'rejected' : 'pending';
};

export const createdPayoutView = (snapshot: PayoutSnapshot): CreatedPayoutView => ({
  ...payoutResourceOf(snapshot),
  risk_status: riskStatusOf(snapshot),
});

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

export const payoutRouteView = (record: PayoutRouteRecord): PayoutRouteView => ({
  route_id: record.route_id,
  ...routeDraftOf(record),
  created_at: record.created_at,
  updated_at: record.updated_at,
});

/** The answer of a use case that acted on one payout: `data.payout`, as the merchant reads it. */
export const payoutAnswer = (
  outcome: Outcome<{ readonly snapshot: PayoutSnapshot }>,
): Outcome<{ readonly payout: PayoutView }> =>
  E.map((payout: { readonly snapshot: PayoutSnapshot }) => ({
    payout: payoutResourceOf(payout.snapshot),
  }))(outcome);
