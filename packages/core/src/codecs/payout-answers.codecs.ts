/**
 * The answers of the payout side: the payout (the interface's "Payout (response object,
 * data.payout)"), beneficiaries and their receiving accounts (fields only masked), the setup
 * lookups and the operator's configuration objects, snake_case, amounts as decimal strings,
 * times in Unix seconds.
 */
import * as t from 'io-ts';
import { executionStatuses, reviewStatuses } from '../machines/payout.machine.js';
import {
  CurrencyCode,
  DecimalString,
  nullable,
  oneOf,
  timestamps,
  WholeNumber,
} from './common-answers.codecs.js';
import { payoutStatusFilterValues } from './list-query.codecs.js';
import { beneficiaryAccountStatuses, beneficiaryStatuses } from './payout.codecs.js';
import { payoutConfigStatuses, payoutCurrencyTypes } from './payout-config.codecs.js';

const payoutProps = {
  required: {
    payout_id: t.string,
    reference: t.string,
    currency: t.string,
    amount: DecimalString,
    status: oneOf('PayoutStatus', payoutStatusFilterValues),
    review_status: oneOf('ReviewStatus', reviewStatuses),
    execution_status: oneOf('ExecutionStatus', executionStatuses),
    beneficiary_id: t.string,
    beneficiary_account_id: t.string,
  },
  optional: {
    client_request_id: t.string,
    execution_fail_reason: t.string,
    /** A completed payout that came back (ADR 0043): when, and the executor's words. */
    returned_at: t.number,
    return_reason: t.string,
  },
};

/** `data.payout` of every payout answer but creation's (the core's `payoutResourceOf`). */
export const PayoutView = t.exact(
  t.intersection([t.type(payoutProps.required), t.partial(payoutProps.optional)]),
);
export type PayoutView = t.TypeOf<typeof PayoutView>;

/**
 * What review decided at creation, as the creation answer tells it: `pending` while the payout
 * waits for review or is a draft, `passed` once approved, `rejected` when review refused it.
 */
export const RiskStatus = t.keyof({ pending: null, passed: null, rejected: null });
export type RiskStatus = t.TypeOf<typeof RiskStatus>;

/** `data.payout` of `POST /payment/quickpayout` (and of an identical repeat). */
export const CreatedPayoutView = t.exact(
  t.intersection([
    t.type({ ...payoutProps.required, risk_status: RiskStatus }),
    t.partial(payoutProps.optional),
  ]),
);
export type CreatedPayoutView = t.TypeOf<typeof CreatedPayoutView>;

/** `data.beneficiary`: the payee's profile, its fields as the merchant sent them. */
export const BeneficiaryView = t.strict({
  beneficiary_id: t.string,
  method_id: WholeNumber,
  payee_id: t.string,
  name: t.string,
  fields: t.record(t.string, t.string),
  status: oneOf('BeneficiaryStatus', beneficiaryStatuses),
  ...timestamps,
});
export type BeneficiaryView = t.TypeOf<typeof BeneficiaryView>;

/** `data.beneficiary_account`: the receiving account, its fields only masked. */
export const BeneficiaryAccountView = t.strict({
  beneficiary_account_id: t.string,
  beneficiary_id: t.string,
  network_code: t.string,
  display_name: nullable(t.string),
  account_type: nullable(t.string),
  fields_masked: t.record(t.string, t.string),
  status: oneOf('BeneficiaryAccountStatus', beneficiaryAccountStatuses),
  ...timestamps,
});
export type BeneficiaryAccountView = t.TypeOf<typeof BeneficiaryAccountView>;

/** One field of a network's schema: `validation_rule` as `ValidationRule` describes it. */
const NetworkSchemaFieldView = t.strict({
  field_key: t.string,
  required: t.boolean,
  validation_rule: t.string,
});

const ConfigStatus = oneOf('PayoutConfigStatus', payoutConfigStatuses);
const CurrencyType = oneOf('PayoutCurrencyType', payoutCurrencyTypes);

const methodProps = {
  method_id: WholeNumber,
  name: t.string,
  currency_type: CurrencyType,
  currencies: t.readonlyArray(CurrencyCode),
  network_codes: t.readonlyArray(t.string),
  channel_ids: t.readonlyArray(t.string),
};

/** `/admin/payout-methods` objects. */
export const PayoutMethodView = t.strict({
  ...methodProps,
  status: ConfigStatus,
  ...timestamps,
});
export type PayoutMethodView = t.TypeOf<typeof PayoutMethodView>;

/** `/admin/payout-networks` objects: the schema under `fields`. */
export const PayoutNetworkView = t.strict({
  code: t.string,
  name: t.string,
  fields: t.readonlyArray(NetworkSchemaFieldView),
  status: ConfigStatus,
  ...timestamps,
});
export type PayoutNetworkView = t.TypeOf<typeof PayoutNetworkView>;

/** `/admin/routes` objects: fees, limits and the channel account of a route. */
export const PayoutRouteView = t.strict({
  route_id: t.string,
  /** `null`: a global route, for every account. */
  account_id: nullable(t.string),
  currency: CurrencyCode,
  method_id: WholeNumber,
  /** `null`: any channel of the method. */
  channel_id: nullable(t.string),
  min_amount: DecimalString,
  max_amount: DecimalString,
  fixed_fee: DecimalString,
  percent_fee: DecimalString,
  channel_account_id: nullable(t.string),
  required_beneficiary_fields: t.readonlyArray(t.string),
  status: ConfigStatus,
  ...timestamps,
});
export type PayoutRouteView = t.TypeOf<typeof PayoutRouteView>;

/**
 * A payout method of the merchant's setup lookup: only the currencies it can pay out in for the
 * account, and nothing of the operator's bookkeeping.
 */
export const AvailablePayoutMethodView = t.strict(methodProps);
export type AvailablePayoutMethodView = t.TypeOf<typeof AvailablePayoutMethodView>;

/**
 * A receiving network of the merchant's setup lookup: the usable methods that pay to it, and its
 * field schema when `include_schema` asked for it.
 */
export const ReceivingNetworkView = t.exact(
  t.intersection([
    t.type({ code: t.string, name: t.string, method_ids: t.readonlyArray(WholeNumber) }),
    t.partial({ fields: t.readonlyArray(NetworkSchemaFieldView) }),
  ]),
);
export type ReceivingNetworkView = t.TypeOf<typeof ReceivingNetworkView>;

/** `data.payout_network` of the schema lookup. */
export const NetworkSchemaView = t.strict({
  code: t.string,
  name: t.string,
  fields: t.readonlyArray(NetworkSchemaFieldView),
});
export type NetworkSchemaView = t.TypeOf<typeof NetworkSchemaView>;
