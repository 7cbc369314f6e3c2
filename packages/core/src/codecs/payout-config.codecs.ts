/**
 * Bodies of the operator's payout API (decisions §8): the payout configuration (methods, network
 * schemas, routes with fees and limits) and the operator's actions on one payout (review, the
 * sandbox's execution outcome). Storage-free: whether a named method, network or account exists
 * is the engine's to check.
 *
 * A create body decodes to a complete draft, defaults filled in. An update body is merged into
 * the stored draft and the merged draft is checked by the create rules, so an update can never
 * leave an object that a create would have refused. Identifiers (method_id, code) are not
 * editable and are ignored in an update body.
 *
 * Messages: not a JSON object -> `request required`; a missing field -> `<field> required`; an
 * update naming no editable field -> `no changes`; a status outside the list -> `invalid status`;
 * an amount -> the money module's messages; anything else malformed -> `Validation Failed`, except
 * where a catalogue message says more (`currency not supported`, `schema required`,
 * `payout method not supported for currency type`, an unknown beneficiary field, a bad
 * validation_rule).
 */
import * as E from 'fp-ts/lib/Either.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import {
  type Currency,
  cryptoCurrencies,
  Decimal,
  fiatCurrencies,
  formatAmount,
  isCurrency,
  parseAmount,
} from '../money/money.js';
import { beneficiaryFieldKeys, isBlank, isJsonObject, presentValue } from './beneficiary.codecs.js';
import { isValidationRule, type NetworkSchemaField } from './beneficiary-account.codecs.js';

type Check<A> = E.Either<PayrailError, A>;
type JsonBody = Readonly<Record<string, unknown>>;

const required = (field: string): Check<never> => E.left(payrailError('field_required', { field }));
const invalid = (): Check<never> => E.left(payrailError('validation_failed'));

const isMissing = (u: unknown): boolean => u === undefined || (typeof u === 'string' && isBlank(u));

/** Operator labels (names, channel ids, account ids): 1-100 characters, no control characters. */
const isLabel = (u: unknown): u is string =>
  typeof u === 'string' && !isBlank(u) && Array.from(u).length <= 100 && !/\p{Cc}/u.test(u);

const isPositiveId = (u: unknown): u is number =>
  typeof u === 'number' && Number.isSafeInteger(u) && u >= 1;

/** Network codes as the interface writes them: WALLETA, EVM, TRON. */
export const isNetworkCode = (u: unknown): u is string =>
  typeof u === 'string' && /^[A-Z][A-Z0-9_]{1,31}$/.test(u);

/** Schema field keys: walleta_email, walletb_account, address. */
const isFieldKey = (u: unknown): u is string =>
  typeof u === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(u);

export const payoutConfigStatuses = ['active', 'disabled'] as const;
export type PayoutConfigStatus = (typeof payoutConfigStatuses)[number];

const checkStatus = (u: unknown): Check<PayoutConfigStatus> =>
  u === undefined
    ? E.right('active')
    : (payoutConfigStatuses as readonly unknown[]).includes(u)
      ? E.right(u as PayoutConfigStatus)
      : E.left(payrailError('invalid_status'));

/** A non-empty (unless `allowEmpty`) list of distinct values that each pass `is`. */
const checkList = <A>(
  u: unknown,
  field: string,
  is: (item: unknown) => item is A,
  options: { readonly allowEmpty?: boolean } = {},
): Check<readonly A[]> => {
  if (u === undefined || (Array.isArray(u) && u.length === 0 && options.allowEmpty !== true)) {
    return u === undefined && options.allowEmpty === true ? E.right([]) : required(field);
  }
  if (!Array.isArray(u) || !u.every(is) || new Set(u).size !== u.length) return invalid();
  return E.right(u);
};

/** Runs the checks in order; the first Left answers. */
const firstLeft = (checks: readonly (() => Check<unknown>)[]): PayrailError | undefined => {
  for (const check of checks) {
    const result = check();
    if (E.isLeft(result)) return result.left;
  }
  return undefined;
};

const checkedValue = <A>(check: Check<A>): A => {
  if (E.isLeft(check)) throw new TypeError('checked value expected');
  return check.right;
};

/** An update: `request required`, `no changes`, or the stored draft with the sent keys over it. */
const mergedUpdate = (
  input: unknown,
  current: object,
  editable: readonly string[],
): Check<JsonBody> => {
  if (!isJsonObject(input)) return E.left(payrailError('request_required'));
  const sent = editable.filter((key) => presentValue(input, key) !== undefined);
  if (sent.length === 0) return E.left(payrailError('no_changes'));
  return E.right({ ...current, ...Object.fromEntries(sent.map((key) => [key, input[key]])) });
};

// ---------------------------------------------------------------------------------------------
// Payout methods

export const payoutCurrencyTypes = ['fiat', 'crypto'] as const;
export type PayoutCurrencyType = (typeof payoutCurrencyTypes)[number];

/** A payout method as the operator defines it (`/admin/payout-methods`). */
export interface PayoutMethodDraft {
  /** Absent on create: the engine gives the next free id. */
  readonly method_id?: number;
  readonly name: string;
  readonly currency_type: PayoutCurrencyType;
  readonly currencies: readonly Currency[];
  readonly network_codes: readonly string[];
  readonly channel_ids: readonly string[];
  readonly status: PayoutConfigStatus;
}

const currenciesOfType: Readonly<Record<PayoutCurrencyType, readonly Currency[]>> = {
  fiat: fiatCurrencies,
  crypto: cryptoCurrencies,
};

const checkMethodCurrencies = (
  u: unknown,
  currencyType: PayoutCurrencyType,
): Check<readonly Currency[]> => {
  if (u === undefined || (Array.isArray(u) && u.length === 0)) return required('currencies');
  if (!Array.isArray(u) || !u.every((c) => typeof c === 'string')) return invalid();
  if (!u.every(isCurrency)) return E.left(payrailError('currency_not_supported'));
  if (new Set(u).size !== u.length) return invalid();
  return u.every((c) => currenciesOfType[currencyType].includes(c))
    ? E.right(u)
    : E.left(payrailError('payout_method_not_supported_for_currency_type'));
};

const checkPayoutMethod = (u: unknown): Check<PayoutMethodDraft> => {
  if (!isJsonObject(u)) return E.left(payrailError('request_required'));
  const v = (key: string) => presentValue(u, key);
  const name = v('name');
  const currencyType = (): Check<PayoutCurrencyType> =>
    v('currency_type') === undefined
      ? required('currency_type')
      : (payoutCurrencyTypes as readonly unknown[]).includes(v('currency_type'))
        ? E.right(v('currency_type') as PayoutCurrencyType)
        : invalid();
  const checks = {
    name: (): Check<string> =>
      isMissing(name) ? required('name') : isLabel(name) ? E.right(name) : invalid(),
    currency_type: currencyType,
    currencies: () => checkMethodCurrencies(v('currencies'), checkedValue(currencyType())),
    network_codes: () => checkList(v('network_codes'), 'network_codes', isNetworkCode),
    channel_ids: () => checkList(v('channel_ids'), 'channel_ids', isLabel, { allowEmpty: true }),
    method_id: (): Check<number | undefined> =>
      v('method_id') === undefined || isPositiveId(v('method_id'))
        ? E.right(v('method_id') as number | undefined)
        : invalid(),
    status: () => checkStatus(v('status')),
  };
  const broken = firstLeft(Object.values(checks));
  if (broken) return E.left(broken);
  const methodId = checkedValue(checks.method_id());
  return E.right({
    ...(methodId === undefined ? {} : { method_id: methodId }),
    name: checkedValue(checks.name()),
    currency_type: checkedValue(checks.currency_type()),
    currencies: checkedValue(checks.currencies()),
    network_codes: checkedValue(checks.network_codes()),
    channel_ids: checkedValue(checks.channel_ids()),
    status: checkedValue(checks.status()),
  });
};

/**
 * `POST /admin/payout-methods`: name, currency_type (`fiat` or `crypto`), currencies (all of that
 * type, else `payout method not supported for currency type`), network_codes (at least one),
 * optional channel_ids, method_id (a positive integer; the next free one when absent) and status.
 */
export const decodePayoutMethodCreate = (input: unknown): Check<PayoutMethodDraft> =>
  checkPayoutMethod(input);

const methodEditable = ['name', 'currency_type', 'currencies', 'network_codes', 'channel_ids'];

/** `PATCH /admin/payout-methods/{method_id}`: the sent fields over `current`, checked as a create. */
export const decodePayoutMethodUpdate = (
  input: unknown,
  current: PayoutMethodDraft,
): Check<PayoutMethodDraft> => {
  const merged = mergedUpdate(input, current, [...methodEditable, 'status']);
  if (E.isLeft(merged)) return merged;
  const checked = checkPayoutMethod(merged.right);
  return E.isLeft(checked) || current.method_id === undefined
    ? checked
    : E.right({ ...checked.right, method_id: current.method_id });
};

// ---------------------------------------------------------------------------------------------
// Payout networks (receiving-account schemas)

/** A receiving network and its account schema (`/admin/payout-networks`). */
export interface PayoutNetworkDraft {
  readonly code: string;
  readonly name: string;
  readonly fields: readonly NetworkSchemaField[];
  readonly status: PayoutConfigStatus;
}

const ruleHint =
  "expect '', email, evm_address, tron_address, prefix:<p>, regex:<pattern> or length:<min>-<max>";

const checkSchemaFields = (u: unknown): Check<readonly NetworkSchemaField[]> => {
  if (u === undefined) return required('fields');
  if (!Array.isArray(u)) return invalid();
  if (u.length === 0) return E.left(payrailError('schema_required'));
  const fields: NetworkSchemaField[] = [];
  for (const [i, item] of u.entries()) {
    if (!isJsonObject(item)) return invalid();
    const key = presentValue(item, 'field_key');
    const isRequired = presentValue(item, 'required') ?? true;
    const rule = presentValue(item, 'validation_rule') ?? '';
    if (isMissing(key)) return required(`fields[${i}].field_key`);
    if (!isFieldKey(key) || fields.some((f) => f.field_key === key)) return invalid();
    if (typeof isRequired !== 'boolean' || typeof rule !== 'string') return invalid();
    if (!isValidationRule(rule)) {
      return E.left(
        payrailError('account_field_invalid_hint', {
          name: `fields[${i}].validation_rule`,
          hint: ruleHint,
        }),
      );
    }
    fields.push({ field_key: key, required: isRequired, validation_rule: rule });
  }
  return E.right(fields);
};

const checkPayoutNetwork = (u: unknown): Check<PayoutNetworkDraft> => {
  if (!isJsonObject(u)) return E.left(payrailError('request_required'));
  const v = (key: string) => presentValue(u, key);
  const code = v('code');
  const name = v('name');
  const checks = {
    code: (): Check<string> =>
      isMissing(code) ? required('code') : isNetworkCode(code) ? E.right(code) : invalid(),
    name: (): Check<string> =>
      name === undefined ? E.right(String(code)) : isLabel(name) ? E.right(name) : invalid(),
    fields: () => checkSchemaFields(v('fields')),
    status: () => checkStatus(v('status')),
  };
  const broken = firstLeft(Object.values(checks));
  if (broken) return E.left(broken);
  return E.right({
    code: checkedValue(checks.code()),
    name: checkedValue(checks.name()),
    fields: checkedValue(checks.fields()),
    status: checkedValue(checks.status()),
  });
};

/**
 * `POST /admin/payout-networks`: code (upper case, 2-32 of A-Z, 0-9, `_`), name (defaults to the
 * code), fields (`schema required` when empty; each `{field_key, required (default true),
 * validation_rule (default '')}` with a rule `isValidationRule` accepts), status.
 */
export const decodePayoutNetworkCreate = (input: unknown): Check<PayoutNetworkDraft> =>
  checkPayoutNetwork(input);

/** `PATCH /admin/payout-networks/{code}`: name, fields or status over `current`. */
export const decodePayoutNetworkUpdate = (
  input: unknown,
  current: PayoutNetworkDraft,
): Check<PayoutNetworkDraft> => {
  const merged = mergedUpdate(input, current, ['name', 'fields', 'status']);
  if (E.isLeft(merged)) return merged;
  return checkPayoutNetwork({ ...merged.right, code: current.code });
};

// ---------------------------------------------------------------------------------------------
// Payout routes

/**
 * (account, currency, method, optional channel, amount range) -> channel account, fees and the
 * beneficiary fields the route requires (`/admin/routes`, decisions §2).
 */
export interface PayoutRouteDraft {
  /** `null`: a global route, for every account. */
  readonly account_id: string | null;
  readonly currency: Currency;
  readonly method_id: number;
  /** `null`: any channel of the method. */
  readonly channel_id: string | null;
  /** At the currency's scale; the range is inclusive. */
  readonly min_amount: string;
  readonly max_amount: string;
  readonly fixed_fee: string;
  /** A percentage of the amount, 0-100 with at most 4 decimals ("1.5" is 1.5 %). */
  readonly percent_fee: string;
  /** `null` while the route has no channel account: payouts answer `channel account not configured`. */
  readonly channel_account_id: string | null;
  readonly required_beneficiary_fields: readonly string[];
  readonly status: PayoutConfigStatus;
}

const optionalLabel = (u: unknown): Check<string | null> =>
  u === undefined ? E.right(null) : isLabel(u) ? E.right(u) : invalid();

const checkRouteAmount = (
  u: unknown,
  field: string,
  currency: Currency,
  fallback?: string,
): Check<string> => {
  if (isMissing(u)) return fallback === undefined ? required(field) : E.right(fallback);
  const parsed = parseAmount(u, currency, { field });
  return E.isLeft(parsed) ? parsed : E.right(formatAmount(parsed.right));
};

const checkPercent = (u: unknown): Check<string> => {
  if (u === undefined) return E.right('0');
  if (typeof u !== 'string' || !/^(0|[1-9][0-9]{0,2})(\.[0-9]{1,4})?$/.test(u)) return invalid();
  return new Decimal(u).lessThanOrEqualTo(100) ? E.right(u) : invalid();
};

const checkRequiredFields = (u: unknown): Check<readonly string[]> => {
  if (u === undefined) return E.right([]);
  if (!Array.isArray(u) || !u.every((key) => typeof key === 'string')) return invalid();
  const unknownKey = u.find((key) => !(beneficiaryFieldKeys as readonly string[]).includes(key));
  if (unknownKey !== undefined) {
    return E.left(payrailError('account_field_unknown', { name: `fields.${unknownKey}` }));
  }
  return E.right([...new Set(u as string[])]);
};

const checkPayoutRoute = (u: unknown): Check<PayoutRouteDraft> => {
  if (!isJsonObject(u)) return E.left(payrailError('request_required'));
  const v = (key: string) => presentValue(u, key);
  const currency = (): Check<Currency> =>
    isMissing(v('currency'))
      ? E.left(payrailError('currency_required'))
      : isCurrency(v('currency'))
        ? E.right(v('currency') as Currency)
        : E.left(payrailError('currency_not_supported'));
  const at = () => checkedValue(currency());
  const checks = {
    account_id: () => optionalLabel(v('account_id')),
    currency,
    method_id: (): Check<number> =>
      v('method_id') === undefined
        ? E.left(payrailError('method_id_required'))
        : isPositiveId(v('method_id'))
          ? E.right(v('method_id') as number)
          : invalid(),
    channel_id: () => optionalLabel(v('channel_id')),
    min_amount: () => checkRouteAmount(v('min_amount'), 'min_amount', at()),
    max_amount: () => checkRouteAmount(v('max_amount'), 'max_amount', at()),
    range: (): Check<true> =>
      new Decimal(checkedValue(checks.min_amount())).lessThanOrEqualTo(
        checkedValue(checks.max_amount()),
      )
        ? E.right(true)
        : E.left(payrailError('invalid_query_param', { param: 'max_amount' })),
    fixed_fee: () =>
      checkRouteAmount(
        v('fixed_fee'),
        'fixed_fee',
        at(),
        formatAmount({
          currency: at(),
          value: new Decimal(0),
        }),
      ),
    percent_fee: () => checkPercent(v('percent_fee')),
    channel_account_id: () => optionalLabel(v('channel_account_id')),
    required_beneficiary_fields: () => checkRequiredFields(v('required_beneficiary_fields')),
    status: () => checkStatus(v('status')),
  };
  const broken = firstLeft(Object.values(checks));
  if (broken) return E.left(broken);
  return E.right({
    account_id: checkedValue(checks.account_id()),
    currency: at(),
    method_id: checkedValue(checks.method_id()),
    channel_id: checkedValue(checks.channel_id()),
    min_amount: checkedValue(checks.min_amount()),
    max_amount: checkedValue(checks.max_amount()),
    fixed_fee: checkedValue(checks.fixed_fee()),
    percent_fee: checkedValue(checks.percent_fee()),
    channel_account_id: checkedValue(checks.channel_account_id()),
    required_beneficiary_fields: checkedValue(checks.required_beneficiary_fields()),
    status: checkedValue(checks.status()),
  });
};

/**
 * `POST /admin/routes`: currency, method_id, min_amount and max_amount (at the currency's scale,
 * min <= max, else `invalid max_amount`) are required; account_id, channel_id and
 * channel_account_id are optional labels (`null`: any account, any channel, none yet); fixed_fee
 * defaults to 0, percent_fee (0-100, 4 decimals) to 0; required_beneficiary_fields are keys of the
 * beneficiary profile; status.
 */
export const decodePayoutRouteCreate = (input: unknown): Check<PayoutRouteDraft> =>
  checkPayoutRoute(input);

const routeEditable = [
  'account_id',
  'currency',
  'method_id',
  'channel_id',
  'min_amount',
  'max_amount',
  'fixed_fee',
  'percent_fee',
  'channel_account_id',
  'required_beneficiary_fields',
  'status',
];

/**
 * `PATCH /admin/routes/{route_id}`: the sent fields over `current`, checked as a create. `null`
 * for account_id, channel_id or channel_account_id keeps the stored value (null reads as absent).
 */
export const decodePayoutRouteUpdate = (
  input: unknown,
  current: PayoutRouteDraft,
): Check<PayoutRouteDraft> => {
  const merged = mergedUpdate(input, current, routeEditable);
  return E.isLeft(merged) ? merged : checkPayoutRoute(merged.right);
};

// ---------------------------------------------------------------------------------------------
// Operator actions on a payout

export const reviewActions = ['approve', 'return', 'reject'] as const;
export type ReviewAction = (typeof reviewActions)[number];

/** Reasons and notes of operator actions: at most 256 characters. */
const checkReason = (u: unknown): Check<string | undefined> =>
  u === undefined || (typeof u === 'string' && Array.from(u).length <= 256)
    ? E.right(u as string | undefined)
    : invalid();

const checkAction = <A extends string>(
  input: unknown,
  field: string,
  values: readonly A[],
): Check<{ readonly value: A; readonly reason?: string }> => {
  if (!isJsonObject(input)) return E.left(payrailError('request_required'));
  const value = presentValue(input, field);
  if (isMissing(value)) return required(field);
  if (!(values as readonly unknown[]).includes(value)) return invalid();
  const reason = checkReason(presentValue(input, 'reason'));
  if (E.isLeft(reason)) return reason;
  return E.right({
    value: value as A,
    ...(reason.right === undefined || isBlank(reason.right) ? {} : { reason: reason.right }),
  });
};

/** `POST /admin/payouts/{payout_id}/review`. */
export interface PayoutReviewRequest {
  readonly action: ReviewAction;
  readonly reason?: string;
}

/** `{action: approve | return | reject, reason?}`: `action required`, else `Validation Failed`. */
export const decodePayoutReview = (input: unknown): Check<PayoutReviewRequest> => {
  const checked = checkAction(input, 'action', reviewActions);
  return E.isLeft(checked)
    ? checked
    : E.right({
        action: checked.right.value,
        ...(checked.right.reason === undefined ? {} : { reason: checked.right.reason }),
      });
};

export const sandboxExecutionOutcomes = ['processing', 'completed', 'failed'] as const;
export type SandboxExecutionOutcome = (typeof sandboxExecutionOutcomes)[number];

/** `POST /admin/sandbox/payouts/{payout_id}/execution`. */
export interface SandboxExecutionRequest {
  readonly outcome: SandboxExecutionOutcome;
  /** The execution_fail_reason of a failure. */
  readonly reason?: string;
}

/** `{outcome: processing | completed | failed, reason?}`: `outcome required`, else `Validation Failed`. */
export const decodeSandboxExecution = (input: unknown): Check<SandboxExecutionRequest> => {
  const checked = checkAction(input, 'outcome', sandboxExecutionOutcomes);
  return E.isLeft(checked)
    ? checked
    : E.right({
        outcome: checked.right.value,
        ...(checked.right.reason === undefined ? {} : { reason: checked.right.reason }),
      });
};
