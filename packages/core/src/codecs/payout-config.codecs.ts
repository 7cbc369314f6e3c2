/**
 * Bodies of the operator's payout API (docs/spec/decisions.md §8): the payout configuration (methods, network
 * schemas, routes with fees and limits) and the operator's actions on one payout (review, the
 * sandbox's execution outcome). Storage-free: whether a named method, network or account exists
 * is the engine's to check. Each body is one io-ts codec built with the codec toolkit; its
 * `format` stage lists the fields in the order their rules are judged.
 *
 * A create body decodes to a complete draft, defaults filled in. An update body is merged into
 * the stored draft and the merged draft is decoded by the create codec, so an update can never
 * leave an object that a create would have refused. Identifiers (method_id, code) are not
 * editable and are ignored in an update body.
 *
 * Messages: not a JSON object -> `request required`; a missing field -> `<field> required`; an
 * update naming no editable field -> `no changes`; a status outside the list -> `invalid status`;
 * an amount -> the money module's messages; anything else malformed -> `Validation Failed`, except
 * where a catalogue message says more (`currency not supported`, `schema required`,
 * `payout method not supported for currency type`, an unknown beneficiary field, a bad
 * validation_rule).
 *
 * Fields are judged one by one, each its presence then its format (not every presence first), so
 * required fields are `requiredField`s. A rule the interface judges at a field's place but in the
 * light of an earlier field (a method's currencies of its currency_type, a route's amounts at its
 * currency's scale, max_amount not below min_amount) reads that sibling in its leaf: a cross-field
 * `rules` stage would run after every field, later than the interface puts it.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import {
  type Currency,
  cryptoCurrencies,
  currencies,
  Decimal,
  fiatCurrencies,
  formatAmount,
  isCurrency,
  parseAmount,
} from '../money/money.js';
import { beneficiaryFieldKeys } from './beneficiary.codecs.js';
import { isValidationRule, type NetworkSchemaField } from './beneficiary-account.codecs.js';
import {
  decodeWith,
  holdsControlCharacter,
  isBlank,
  isJsonObject,
  isMissing,
  isOneOf,
  type JsonObject,
  leaf,
  leafFrom,
  oneOfLeaf,
  present,
  presentValue,
  request,
  requiredField,
  wholeNumberLeaf,
  withDefault,
  withoutControlCharacters,
} from './codec-toolkit.js';

type Check<A> = E.Either<PayrailError, A>;

const required = (field: string): PayrailError => payrailError('field_required', { field });
const invalid = (): PayrailError => payrailError('validation_failed');
const isAbsent = (u: unknown): boolean => u === undefined;

/** Operator labels (names, channel ids, account ids): 1-100 characters, no control characters. */
const isLabel = (u: unknown): u is string =>
  typeof u === 'string' && !isBlank(u) && Array.from(u).length <= 100 && !holdsControlCharacter(u);
const labelSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 100,
  pattern: withoutControlCharacters,
} as const;

/** Network codes as the interface writes them: WALLETA, EVM, TRON. */
const isNetworkCode = (u: unknown): u is string =>
  typeof u === 'string' && /^[A-Z][A-Z0-9_]{1,31}$/.test(u);
const networkCodeSchema = { type: 'string', pattern: '^[A-Z][A-Z0-9_]{1,31}$' } as const;

/** Schema field keys: walleta_email, walletb_account, address. */
const isFieldKey = (u: unknown): u is string =>
  typeof u === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(u);

export const payoutConfigStatuses = ['active', 'disabled'] as const;

/** `active` unless sent; anything but active or disabled is `invalid status`. */
const ConfigStatus = withDefault(
  oneOfLeaf('PayoutConfigStatus', payoutConfigStatuses, 'invalid_status'),
  'active',
);

const Label = leaf<string>('Label', isLabel, 'validation_failed', labelSchema);

const PositiveId = wholeNumberLeaf('PositiveId', { minimum: 1 }, 'validation_failed');

const isUniqueList = <A>(u: unknown, is: (item: unknown) => item is A): u is readonly A[] =>
  Array.isArray(u) && u.every(is) && new Set(u).size === u.length;

/**
 * A list of distinct values that each pass `is`: `[]` is `<field> required` unless `allowEmpty`,
 * anything else malformed is `Validation Failed`.
 */
const distinctList = <A>(
  name: string,
  field: string,
  is: (item: unknown) => item is A,
  items: Readonly<Record<string, unknown>>,
  options: { readonly allowEmpty?: boolean } = {},
) =>
  leafFrom<readonly A[]>(
    name,
    (u): u is readonly A[] => isUniqueList(u, is) && (options.allowEmpty === true || u.length > 0),
    (u) => {
      if (Array.isArray(u) && u.length === 0 && options.allowEmpty !== true) {
        return E.left(required(field));
      }
      return isUniqueList(u, is) ? E.right(u) : E.left(invalid());
    },
    {
      type: 'array',
      uniqueItems: true,
      ...(options.allowEmpty === true ? {} : { minItems: 1 }),
      items,
    },
  );

/** An update: `request required`, `no changes`, or the stored draft with the sent keys over it. */
const mergedUpdate = (
  input: unknown,
  current: object,
  editable: readonly string[],
): Check<JsonObject> => {
  if (!isJsonObject(input)) return E.left(payrailError('request_required'));
  const sent = editable.filter((key) => presentValue(input, key) !== undefined);
  if (sent.length === 0) return E.left(payrailError('no_changes'));
  return E.right({ ...current, ...Object.fromEntries(sent.map((key) => [key, input[key]])) });
};

// ---------------------------------------------------------------------------------------------
// Payout methods

export const payoutCurrencyTypes = ['fiat', 'crypto'] as const;
export type PayoutCurrencyType = (typeof payoutCurrencyTypes)[number];

const isPayoutCurrencyType = isOneOf(payoutCurrencyTypes);

const currenciesOfType: Readonly<Record<PayoutCurrencyType, readonly Currency[]>> = {
  fiat: fiatCurrencies,
  crypto: cryptoCurrencies,
};

const CurrencyType = oneOfLeaf('PayoutCurrencyType', payoutCurrencyTypes, 'validation_failed');

/**
 * Known currencies (`currency not supported`), distinct, all of the method's currency_type
 * (`payout method not supported for currency type`); read beside the currency_type, which is
 * judged first.
 */
const MethodCurrencies = leafFrom<readonly Currency[]>(
  'MethodCurrencies',
  (u): u is readonly Currency[] => isUniqueList(u, isCurrency) && u.length > 0,
  (u, sibling) => {
    if (Array.isArray(u) && u.length === 0) return E.left(required('currencies'));
    if (!Array.isArray(u) || !u.every((c) => typeof c === 'string')) return E.left(invalid());
    if (!u.every(isCurrency)) return E.left(payrailError('currency_not_supported'));
    if (new Set(u).size !== u.length) return E.left(invalid());
    const currencyType = sibling('currency_type');
    return isPayoutCurrencyType(currencyType) &&
      u.every((c) => currenciesOfType[currencyType].includes(c))
      ? E.right(u)
      : E.left(payrailError('payout_method_not_supported_for_currency_type'));
  },
  {
    type: 'array',
    minItems: 1,
    uniqueItems: true,
    items: { type: 'string', enum: [...currencies] },
  },
);

/**
 * `POST /admin/payout-methods`: name, currency_type (`fiat` or `crypto`), currencies (all of that
 * type, else `payout method not supported for currency type`), network_codes (at least one),
 * optional channel_ids, method_id (a positive integer; the next free one when absent) and status.
 * PATCH: the sent fields over the current method, decoded as a create.
 */
export const PayoutMethodRequest = request('PayoutMethodRequest', {
  format: t.intersection([
    t.type({
      name: requiredField(Label, required('name')),
      currency_type: requiredField(CurrencyType, required('currency_type'), isAbsent),
      currencies: requiredField(MethodCurrencies, required('currencies'), isAbsent),
      network_codes: requiredField(
        distinctList('NetworkCodes', 'network_codes', isNetworkCode, networkCodeSchema),
        required('network_codes'),
        isAbsent,
      ),
      channel_ids: withDefault(
        distinctList('ChannelIds', 'channel_ids', isLabel, labelSchema, { allowEmpty: true }),
        [],
      ),
    }),
    /** Absent on create: the engine gives the next free id. */
    t.partial({ method_id: PositiveId }),
    t.type({ status: ConfigStatus }),
  ]),
});
export type PayoutMethodRequest = t.TypeOf<typeof PayoutMethodRequest>;
/** A payout method as the operator defines it (`/admin/payout-methods`). */
export type PayoutMethodDraft = PayoutMethodRequest;

export const decodePayoutMethodCreate = decodeWith(PayoutMethodRequest);

const methodEditable = ['name', 'currency_type', 'currencies', 'network_codes', 'channel_ids'];

/** `PATCH /admin/payout-methods/{method_id}`: the sent fields over `current`, checked as a create. */
export const decodePayoutMethodUpdate = (
  input: unknown,
  current: PayoutMethodDraft,
): Check<PayoutMethodDraft> =>
  pipe(
    mergedUpdate(input, current, [...methodEditable, 'status']),
    E.chain(decodePayoutMethodCreate),
  );

// ---------------------------------------------------------------------------------------------
// Payout networks (receiving-account schemas)

const NetworkCode = leaf<string>(
  'NetworkCode',
  isNetworkCode,
  'validation_failed',
  networkCodeSchema,
);

const ruleHint =
  "expect '', email, evm_address, tron_address, prefix:<p>, regex:<pattern> or length:<min>-<max>";

const isSchemaFieldList = (u: unknown): u is readonly NetworkSchemaField[] =>
  Array.isArray(u) &&
  u.length > 0 &&
  u.every(
    (item) =>
      isJsonObject(item) &&
      Object.keys(item).length === 3 &&
      isFieldKey(item.field_key) &&
      typeof item.required === 'boolean' &&
      typeof item.validation_rule === 'string' &&
      isValidationRule(item.validation_rule),
  ) &&
  new Set(u.map((item: JsonObject) => item.field_key)).size === u.length;

/**
 * `[]` is `schema required`; each item `{field_key, required (default true), validation_rule
 * (default '')}`: the first broken item answers, `fields[i].field_key required` or a rule the
 * service does not understand naming its field, else `Validation Failed`.
 */
const SchemaFields = leafFrom<readonly NetworkSchemaField[]>(
  'NetworkSchemaFields',
  isSchemaFieldList,
  (u) => {
    if (!Array.isArray(u)) return E.left(invalid());
    if (u.length === 0) return E.left(payrailError('schema_required'));
    const fields: NetworkSchemaField[] = [];
    for (const [i, item] of u.entries()) {
      if (!isJsonObject(item)) return E.left(invalid());
      const key = presentValue(item, 'field_key');
      const isRequired = presentValue(item, 'required') ?? true;
      const rule = presentValue(item, 'validation_rule') ?? '';
      if (isMissing(key)) return E.left(required(`fields[${i}].field_key`));
      if (!isFieldKey(key) || fields.some((f) => f.field_key === key)) return E.left(invalid());
      if (typeof isRequired !== 'boolean' || typeof rule !== 'string') return E.left(invalid());
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
  },
  {
    type: 'array',
    minItems: 1,
    items: {
      type: 'object',
      properties: {
        field_key: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
        required: { type: 'boolean', default: true },
        validation_rule: { type: 'string', default: '', description: ruleHint },
      },
      required: ['field_key'],
    },
  },
);

/**
 * `POST /admin/payout-networks`: code (upper case, 2-32 of A-Z, 0-9, `_`), name (defaults to the
 * code), fields (`schema required` when empty; each `{field_key, required (default true),
 * validation_rule (default '')}` with a rule `isValidationRule` accepts), status. PATCH: name,
 * fields or status over the current network.
 */
export const PayoutNetworkRequest = request('PayoutNetworkRequest', {
  format: t.intersection([
    t.type({ code: requiredField(NetworkCode, required('code')) }),
    /** The code unless sent. */
    t.partial({ name: Label }),
    t.type({
      fields: requiredField(SchemaFields, required('fields'), isAbsent),
      status: ConfigStatus,
    }),
  ]),
});
export type PayoutNetworkRequest = t.TypeOf<typeof PayoutNetworkRequest>;

/** A receiving network and its account schema (`/admin/payout-networks`): the name filled in. */
export type PayoutNetworkDraft = PayoutNetworkRequest & { readonly name: string };

export const decodePayoutNetworkCreate = (input: unknown): Check<PayoutNetworkDraft> =>
  pipe(
    decodeWith(PayoutNetworkRequest)(input),
    E.map((network) => ({ ...network, name: network.name ?? network.code })),
  );

/** `PATCH /admin/payout-networks/{code}`: name, fields or status over `current`. */
export const decodePayoutNetworkUpdate = (
  input: unknown,
  current: PayoutNetworkDraft,
): Check<PayoutNetworkDraft> =>
  pipe(
    mergedUpdate(input, current, ['name', 'fields', 'status']),
    E.chain((merged) => decodePayoutNetworkCreate({ ...merged, code: current.code })),
  );

// ---------------------------------------------------------------------------------------------
// Payout routes

/** `null` unless sent (`null` is read as not sent): an optional label whose absence means "any". */
const OptionalLabel = (description: string) =>
  withDefault(
    leaf<string | null>(
      'OptionalLabel',
      (u): u is string | null => u === null || isLabel(u),
      'validation_failed',
      { ...labelSchema, type: ['string', 'null'], description },
    ),
    null,
  );

const RouteCurrency = oneOfLeaf('RouteCurrency', currencies, 'currency_not_supported');

const decimalPattern = '^(0|[1-9][0-9]*)(\\.[0-9]+)?$';

/** An amount at the scale of the route's currency (read beside it), in its canonical form. */
const amountAtCurrency = (
  u: unknown,
  field: string,
  sibling: (key: string) => unknown,
): Check<string> => {
  const currency = sibling('currency');
  if (!isCurrency(currency)) return E.left(payrailError('currency_not_supported'));
  return pipe(parseAmount(u, currency, { field }), E.map(formatAmount));
};

const isDecimalText = (u: unknown): u is string =>
  typeof u === 'string' && new RegExp(decimalPattern).test(u);

const MinAmount = leafFrom<string>(
  'MinAmount',
  isDecimalText,
  (u, sibling) => amountAtCurrency(u, 'min_amount', sibling),
  { type: 'string', pattern: decimalPattern, description: 'inclusive, at the currency scale' },
);

/** At the currency's scale, then not below min_amount (`invalid max_amount`), in that order. */
const MaxAmount = leafFrom<string>(
  'MaxAmount',
  isDecimalText,
  (u, sibling) =>
    pipe(
      amountAtCurrency(u, 'max_amount', sibling),
      E.chain((max) => {
        const min = amountAtCurrency(sibling('min_amount'), 'min_amount', sibling);
        return E.isRight(min) && new Decimal(min.right).greaterThan(max)
          ? E.left(payrailError('invalid_query_param', { param: 'max_amount' }))
          : E.right(max);
      }),
    ),
  {
    type: 'string',
    pattern: decimalPattern,
    description: 'inclusive, at the currency scale, not below min_amount',
  },
);

/** Blank reads as not sent (0 at the currency's scale, filled in by `decodePayoutRouteCreate`). */
const FixedFee = leafFrom<string | undefined>(
  'FixedFee',
  (u): u is string | undefined => u === undefined || isDecimalText(u),
  (u, sibling) => (isMissing(u) ? E.right(undefined) : amountAtCurrency(u, 'fixed_fee', sibling)),
  { type: 'string', pattern: decimalPattern, description: 'at the currency scale; 0 unless sent' },
);

const percentPattern = /^(0|[1-9][0-9]{0,2})(\.[0-9]{1,4})?$/;

/** A percentage of the amount, 0-100 with at most 4 decimals ("1.5" is 1.5 %). */
const PercentFee = leaf<string>(
  'PercentFee',
  (u): u is string =>
    typeof u === 'string' && percentPattern.test(u) && new Decimal(u).lessThanOrEqualTo(100),
  'validation_failed',
  {
    type: 'string',
    pattern: percentPattern.source,
    description: 'percent of the amount, 0-100',
  },
);

/** Keys of the beneficiary profile (`unknown field fields.<key>`), duplicates dropped. */
const RequiredBeneficiaryFields = leafFrom<readonly string[]>(
  'RequiredBeneficiaryFields',
  (u): u is readonly string[] => isUniqueList(u, isOneOf(beneficiaryFieldKeys)),
  (u) => {
    if (!Array.isArray(u) || !u.every((key) => typeof key === 'string')) return E.left(invalid());
    const unknownKey = u.find((key) => !isOneOf(beneficiaryFieldKeys)(key));
    return unknownKey === undefined
      ? E.right([...new Set(u)])
      : E.left(payrailError('account_field_unknown', { name: `fields.${unknownKey}` }));
  },
  { type: 'array', items: { type: 'string', enum: [...beneficiaryFieldKeys] } },
);

/**
 * `POST /admin/routes`: currency, method_id, min_amount and max_amount (at the currency's scale,
 * min <= max, else `invalid max_amount`) are required; account_id, channel_id and
 * channel_account_id are optional labels (`null`: any account, any channel, none yet); fixed_fee
 * defaults to 0, percent_fee (0-100, 4 decimals) to 0; required_beneficiary_fields are keys of the
 * beneficiary profile; status. PATCH: the sent fields over the current route, decoded as a create.
 */
export const PayoutRouteRequest = request('PayoutRouteRequest', {
  format: t.intersection([
    t.type({
      account_id: OptionalLabel('absent: a route for every account'),
      currency: requiredField(RouteCurrency, payrailError('currency_required')),
      method_id: requiredField(PositiveId, payrailError('method_id_required'), isAbsent),
      channel_id: OptionalLabel('absent: any channel of the method'),
      min_amount: requiredField(MinAmount, required('min_amount')),
      max_amount: requiredField(MaxAmount, required('max_amount')),
    }),
    t.partial({ fixed_fee: FixedFee }),
    t.type({
      percent_fee: withDefault(PercentFee, '0'),
      channel_account_id: OptionalLabel('absent: payouts answer `channel account not configured`'),
      required_beneficiary_fields: withDefault(RequiredBeneficiaryFields, []),
      status: ConfigStatus,
    }),
  ]),
});
export type PayoutRouteRequest = t.TypeOf<typeof PayoutRouteRequest>;

/**
 * (account, currency, method, optional channel, amount range) -> channel account, fees and the
 * beneficiary fields the route requires (`/admin/routes`, docs/spec/decisions.md §2): the fixed fee filled in.
 * `account_id` null is a global route; `channel_id` null any channel of the method;
 * `channel_account_id` null a route whose payouts answer `channel account not configured`.
 */
export type PayoutRouteDraft = PayoutRouteRequest & { readonly fixed_fee: string };

export const decodePayoutRouteCreate = (input: unknown): Check<PayoutRouteDraft> =>
  pipe(
    decodeWith(PayoutRouteRequest)(input),
    E.map((route) => ({
      ...route,
      fixed_fee:
        route.fixed_fee ?? formatAmount({ currency: route.currency, value: new Decimal(0) }),
    })),
  );

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
): Check<PayoutRouteDraft> =>
  pipe(mergedUpdate(input, current, routeEditable), E.chain(decodePayoutRouteCreate));

// ---------------------------------------------------------------------------------------------
// Operator actions on a payout

export const reviewActions = ['approve', 'return', 'reject'] as const;
export type ReviewAction = (typeof reviewActions)[number];

/** Reasons and notes of operator actions: at most 256 characters; a blank one is dropped. */
const Reason = leafFrom<string | undefined>(
  'Reason',
  (u): u is string | undefined =>
    u === undefined || (typeof u === 'string' && !isBlank(u) && Array.from(u).length <= 256),
  (u) =>
    typeof u === 'string' && Array.from(u).length <= 256
      ? E.right(isBlank(u) ? undefined : u)
      : E.left(invalid()),
  { type: 'string', maxLength: 256 },
);

/**
 * Each operator action body is `{<field>: one of its values, reason?}`: `request required` →
 * `<field> required` (absent or blank) → not one of the values: `Validation Failed` → reason
 * longer than 256 characters: `Validation Failed`.
 */
const ReviewAction = oneOfLeaf('ReviewAction', reviewActions, 'validation_failed');

/** `POST /admin/payouts/{payout_id}/review`: approve, return or reject, with a reason. */
export const PayoutReviewRequest = request('PayoutReviewRequest', {
  required: t.type({ action: present(required('action')) }),
  format: t.intersection([t.type({ action: ReviewAction }), t.partial({ reason: Reason })]),
});
export type PayoutReviewRequest = t.TypeOf<typeof PayoutReviewRequest>;
export const decodePayoutReview = decodeWith(PayoutReviewRequest);

export const sandboxExecutionOutcomes = ['processing', 'completed', 'failed', 'returned'] as const;
export type SandboxExecutionOutcome = (typeof sandboxExecutionOutcomes)[number];

const SandboxExecutionOutcome = oneOfLeaf(
  'SandboxExecutionOutcome',
  sandboxExecutionOutcomes,
  'validation_failed',
);

/**
 * `POST /admin/sandbox/payouts/{payout_id}/execution`: the outcome, and for a failure the
 * execution_fail_reason, for a return (a completed payout that came back, ADR 0043) its reason.
 */
export const SandboxExecutionRequest = request('SandboxExecutionRequest', {
  required: t.type({ outcome: present(required('outcome')) }),
  format: t.intersection([
    t.type({ outcome: SandboxExecutionOutcome }),
    t.partial({ reason: Reason }),
  ]),
});
export type SandboxExecutionRequest = t.TypeOf<typeof SandboxExecutionRequest>;
export const decodeSandboxExecution = decodeWith(SandboxExecutionRequest);
