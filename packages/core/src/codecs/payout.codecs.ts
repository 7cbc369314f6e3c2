/**
 * The payout-side request bodies: quick payout create, payout PATCH, and the standalone
 * beneficiary and beneficiary-account endpoints (decisions.md §2, §3). Everything here is checked
 * without storage; what needs storage (routes, fees, existing beneficiaries, duplicates) is the
 * engine's.
 *
 * Precedence, when several rules break at once (the first broken rule is the answer):
 *  1. body: not a JSON object -> `request required` (an empty PATCH -> `no changes`);
 *  2. required fields, in the interface's table order: currency, amount, reference, notify_url
 *     (absent, `null` or blank);
 *  3. each field's type and format, in the table's order: client_request_id, currency, amount,
 *     method_id, channel_id, reference, notify_url, beneficiary, beneficiary_account,
 *     beneficiary_account_id, fee_bearer, submit, account_type;
 *  4. cross-field rules: channel_id needs method_id; the inline pair goes together; an id or the
 *     pair must be there; creating inline needs method_id;
 *  5. the inline objects: beneficiary (name, fields), then beneficiary_account (shape, then its
 *     network's schema).
 * Keys the request does not define are ignored; `null` is read as absent.
 */
import * as E from 'fp-ts/lib/Either.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import type { FeeBearer } from '../money/fees.js';
import {
  type FiatCurrency,
  fiatCurrencies,
  isPositive,
  parseAmount,
  scaleOf,
} from '../money/money.js';
import {
  type Beneficiary,
  type BeneficiaryFields,
  checkBeneficiary,
  checkBeneficiaryFields,
  checkBeneficiaryName,
  codecFromCheck,
  hasLengthBetween,
  isBlank,
  isJsonObject,
  type JsonObject,
  presentValue,
} from './beneficiary.codecs.js';
import {
  type BeneficiaryAccount,
  checkAccountNetwork,
  checkBeneficiaryAccountShape,
  type NetworkLookup,
} from './beneficiary-account.codecs.js';

// ---------------------------------------------------------------------------------------------
// Field rules shared by the requests

/** Who pays the fee: the merchant on top of the amount (default), or the user out of it. */
export const feeBearers = ['merchant', 'user'] as const satisfies readonly FeeBearer[];

/** Quick payouts pay out fiat only; anything else is `currency not supported`. */
export const isFiatCurrency = (value: unknown): value is FiatCurrency =>
  (fiatCurrencies as readonly unknown[]).includes(value);

const hostLabel = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const urlShape = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/;

const isUrlHost = (host: string): boolean => {
  if (host.startsWith('[')) return /^\[[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*\]$/.test(host);
  return host.length <= 253 && host.split('.').every((label) => hostLabel.test(label));
};

/**
 * A callback URL: absolute, `https` (also `http` when the sandbox allows insecure webhooks), a
 * DNS name or IP literal as host, an optional port 1-65535, no credentials, no whitespace or
 * control characters, at most 2048 characters. Where it resolves to is checked at delivery time
 * (SSRF guard), not here.
 */
export const isNotifyUrl = (
  value: unknown,
  options: { readonly allowHttp?: boolean } = {},
): value is string => {
  if (typeof value !== 'string' || value.length > 2048 || /[\s\p{Cc}]/u.test(value)) return false;
  const match = urlShape.exec(value);
  const scheme = match?.[1]?.toLowerCase();
  const authority = match?.[2] ?? '';
  if (scheme !== 'https' && !(scheme === 'http' && options.allowHttp === true)) return false;
  if (authority.includes('@')) return false;
  const hostPort = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(authority);
  const host = hostPort?.[1] ?? '';
  const port = hostPort?.[2];
  if (host === '' || !isUrlHost(host)) return false;
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
};

const isMissing = (u: unknown): boolean => u === undefined || (typeof u === 'string' && isBlank(u));

/** Merchant-chosen identifiers and labels (reference, client_request_id, ids): 1-64 characters. */
const isLabel = (u: unknown): u is string => typeof u === 'string' && hasLengthBetween(u, 1, 64);

const isId = (u: unknown): u is number =>
  typeof u === 'number' && Number.isSafeInteger(u) && u >= 1;

const invalid = (): E.Either<PayrailError, never> => E.left(payrailError('validation_failed'));

type Check = () => PayrailError | undefined;

/** The first broken rule of an ordered list. */
const firstBroken = (checks: readonly Check[]): PayrailError | undefined => {
  for (const check of checks) {
    const broken = check();
    if (broken) return broken;
  }
  return undefined;
};

const unless = (ok: boolean, error: () => PayrailError): PayrailError | undefined =>
  ok ? undefined : error();

const validationFailed = () => payrailError('validation_failed');

/**
 * A PATCH amount sent without its currency is checked at the fiat currency with the largest scale
 * (the engine re-checks it at the payout's own currency).
 */
const widestFiatCurrency: FiatCurrency = fiatCurrencies.reduce((a, b) =>
  scaleOf(b) > scaleOf(a) ? b : a,
);

const checkAmount = (u: unknown, currency: FiatCurrency | undefined): PayrailError | undefined => {
  // A sign is accepted by the parser only so that "-5" answers "greater than zero".
  const parsed = parseAmount(u, currency ?? widestFiatCurrency, { allowNegative: true });
  if (E.isLeft(parsed)) return parsed.left;
  return isPositive(parsed.right) ? undefined : payrailError('amount_must_be_positive');
};

/** The inline pair: both or neither. */
const checkPair = (body: JsonObject): PayrailError | undefined =>
  unless(
    (presentValue(body, 'beneficiary') === undefined) ===
      (presentValue(body, 'beneficiary_account') === undefined),
    () => payrailError('beneficiary_pair_required'),
  );

/** The inline pair of a payout body: both present (validated) or both absent. */
export interface PayoutInlineBeneficiary {
  readonly beneficiary?: Beneficiary;
  readonly beneficiary_account?: BeneficiaryAccount;
}

const checkInline = (body: JsonObject): E.Either<PayrailError, PayoutInlineBeneficiary> => {
  const beneficiary = presentValue(body, 'beneficiary');
  const account = presentValue(body, 'beneficiary_account');
  if (beneficiary === undefined || account === undefined) return E.right({});
  const decodedBeneficiary = checkBeneficiary(beneficiary);
  if (E.isLeft(decodedBeneficiary)) return decodedBeneficiary;
  const decodedAccount = checkBeneficiaryAccountShape(account);
  if (E.isLeft(decodedAccount)) return decodedAccount;
  return E.right({
    beneficiary: decodedBeneficiary.right,
    beneficiary_account: decodedAccount.right,
  });
};

/** The inline account against its network, when there is one. */
const withAccountNetwork = <A extends PayoutInlineBeneficiary>(
  request: E.Either<PayrailError, A>,
  lookupNetwork: NetworkLookup,
): E.Either<PayrailError, A> => {
  if (E.isLeft(request) || request.right.beneficiary_account === undefined) return request;
  const account = checkAccountNetwork(request.right.beneficiary_account, lookupNetwork);
  return E.isLeft(account)
    ? account
    : E.right({ ...request.right, beneficiary_account: account.right });
};

/** Copies the present values of `keys` from `body` (after their rules held). */
const pick = (body: JsonObject, keys: readonly string[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = presentValue(body, key);
    if (value !== undefined) out[key] = value;
  }
  return out;
};

export interface PayoutOptions {
  /** Sandbox with PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1: an `http` notify_url is accepted too. */
  readonly allowInsecureNotifyUrl?: boolean;
}

export interface PayoutDecodeOptions extends PayoutOptions {
  /** Finds the receiving network of an inline beneficiary_account. */
  readonly lookupNetwork: NetworkLookup;
}

// ---------------------------------------------------------------------------------------------
// Quick payout create

/** POST /payment/quickpayout, decoded: defaults filled (fee_bearer merchant, submit true). */
export interface PayoutCreateRequest extends PayoutInlineBeneficiary {
  readonly client_request_id?: string;
  readonly currency: FiatCurrency;
  /** The decimal string as sent, at most the currency's scale of decimals, greater than zero. */
  readonly amount: string;
  readonly method_id?: number;
  readonly channel_id?: string;
  readonly reference: string;
  readonly notify_url: string;
  readonly beneficiary_account_id?: string;
  readonly fee_bearer: FeeBearer;
  readonly submit: boolean;
  readonly account_type?: string;
}

const payoutCreateKeys = [
  'client_request_id',
  'currency',
  'amount',
  'method_id',
  'channel_id',
  'reference',
  'notify_url',
  'beneficiary_account_id',
  'fee_bearer',
  'submit',
  'account_type',
] as const;

const checkPayoutCreate = (
  u: unknown,
  options: PayoutOptions,
): E.Either<PayrailError, PayoutCreateRequest> => {
  if (!isJsonObject(u)) return E.left(payrailError('request_required'));
  const v = (key: string) => presentValue(u, key);
  const currency = v('currency');
  const broken = firstBroken([
    // 2. required
    () => unless(!isMissing(currency), () => payrailError('currency_required')),
    () =>
      unless(!isMissing(v('amount')), () => payrailError('field_required', { field: 'amount' })),
    () => unless(!isMissing(v('reference')), () => payrailError('reference_required')),
    () =>
      unless(!isMissing(v('notify_url')), () =>
        payrailError('field_required', { field: 'notify_url' }),
      ),
    // 3. types and formats
    () =>
      unless(
        v('client_request_id') === undefined || isLabel(v('client_request_id')),
        validationFailed,
      ),
    () => unless(isFiatCurrency(currency), () => payrailError('currency_not_supported')),
    () => checkAmount(v('amount'), currency as FiatCurrency),
    () => unless(v('method_id') === undefined || isId(v('method_id')), validationFailed),
    () => unless(v('channel_id') === undefined || isLabel(v('channel_id')), validationFailed),
    () => unless(isLabel(v('reference')), validationFailed),
    () =>
      unless(
        isNotifyUrl(v('notify_url'), { allowHttp: options.allowInsecureNotifyUrl === true }),
        () => payrailError('invalid_notify_url'),
      ),
    () =>
      unless(v('beneficiary') === undefined || isJsonObject(v('beneficiary')), validationFailed),
    () =>
      unless(
        v('beneficiary_account') === undefined || isJsonObject(v('beneficiary_account')),
        validationFailed,
      ),
    () =>
      unless(
        v('beneficiary_account_id') === undefined || isLabel(v('beneficiary_account_id')),
        validationFailed,
      ),
    () =>
      unless(
        v('fee_bearer') === undefined ||
          (feeBearers as readonly unknown[]).includes(v('fee_bearer')),
        () => payrailError('fee_bearer_invalid'),
      ),
    () => unless(v('submit') === undefined || typeof v('submit') === 'boolean', validationFailed),
    () => unless(v('account_type') === undefined || isLabel(v('account_type')), validationFailed),
    // 4. cross-field
    () =>
      unless(v('channel_id') === undefined || v('method_id') !== undefined, () =>
        payrailError('channel_id_requires_method_id'),
      ),
    () => checkPair(u),
    () =>
      unless(v('beneficiary_account_id') !== undefined || v('beneficiary') !== undefined, () =>
        payrailError('beneficiary_account_id_required'),
      ),
    () =>
      unless(
        v('beneficiary') === undefined ||
          v('beneficiary_account_id') !== undefined ||
          v('method_id') !== undefined,
        () => payrailError('method_id_required_inline'),
      ),
  ]);
  if (broken) return E.left(broken);
  // 5. inline objects
  const inline = checkInline(u);
  if (E.isLeft(inline)) return inline;
  return E.right({
    fee_bearer: 'merchant',
    submit: true,
    ...pick(u, payoutCreateKeys),
    ...inline.right,
  } as PayoutCreateRequest);
};

/**
 * The quick payout body as an io-ts codec: every storage-free rule except the inline account's
 * network schema (see `decodePayoutCreate`). notify_url must be https.
 */
export const PayoutCreateRequest = codecFromCheck<PayoutCreateRequest>('PayoutCreateRequest', (u) =>
  checkPayoutCreate(u, {}),
);

/** POST /payment/quickpayout: the codec's rules, then the inline account's network schema. */
export const decodePayoutCreate = (
  input: unknown,
  options: PayoutDecodeOptions,
): E.Either<PayrailError, PayoutCreateRequest> =>
  withAccountNetwork(checkPayoutCreate(input, options), options.lookupNetwork);

// ---------------------------------------------------------------------------------------------
// Payout PATCH

/** PATCH /payment/payouts/{payout_id}: only what is sent changes (decisions.md §2). */
export interface PayoutUpdateRequest extends PayoutInlineBeneficiary {
  readonly amount?: string;
  readonly currency?: FiatCurrency;
  readonly method_id?: number;
  readonly channel_id?: string;
  readonly notify_url?: string;
  readonly beneficiary_account_id?: string;
  readonly fee_bearer?: FeeBearer;
}

const payoutUpdateKeys = [
  'currency',
  'amount',
  'method_id',
  'channel_id',
  'notify_url',
  'beneficiary_account_id',
  'fee_bearer',
] as const;

const checkPayoutUpdate = (
  u: unknown,
  options: PayoutOptions,
): E.Either<PayrailError, PayoutUpdateRequest> => {
  if (!isJsonObject(u)) return E.left(payrailError('request_required'));
  const v = (key: string) => presentValue(u, key);
  const editable = [...payoutUpdateKeys, 'beneficiary', 'beneficiary_account'];
  if (editable.every((key) => v(key) === undefined)) return E.left(payrailError('no_changes'));
  const currency = v('currency');
  const present = (key: string) => v(key) !== undefined;
  const broken = firstBroken([
    () =>
      present('currency')
        ? isMissing(currency)
          ? payrailError('currency_required')
          : unless(isFiatCurrency(currency), () => payrailError('currency_not_supported'))
        : undefined,
    () =>
      present('amount')
        ? isMissing(v('amount'))
          ? payrailError('field_required', { field: 'amount' })
          : checkAmount(v('amount'), currency as FiatCurrency | undefined)
        : undefined,
    () => unless(!present('method_id') || isId(v('method_id')), validationFailed),
    () => unless(!present('channel_id') || isLabel(v('channel_id')), validationFailed),
    () =>
      present('notify_url')
        ? isMissing(v('notify_url'))
          ? payrailError('field_required', { field: 'notify_url' })
          : unless(
              isNotifyUrl(v('notify_url'), { allowHttp: options.allowInsecureNotifyUrl === true }),
              () => payrailError('invalid_notify_url'),
            )
        : undefined,
    () => unless(!present('beneficiary') || isJsonObject(v('beneficiary')), validationFailed),
    () =>
      unless(
        !present('beneficiary_account') || isJsonObject(v('beneficiary_account')),
        validationFailed,
      ),
    () =>
      unless(
        !present('beneficiary_account_id') || isLabel(v('beneficiary_account_id')),
        validationFailed,
      ),
    () =>
      unless(
        !present('fee_bearer') || (feeBearers as readonly unknown[]).includes(v('fee_bearer')),
        () => payrailError('fee_bearer_invalid'),
      ),
    () =>
      unless(!present('channel_id') || present('method_id'), () =>
        payrailError('method_id_required_with_channel'),
      ),
    () => checkPair(u),
  ]);
  if (broken) return E.left(broken);
  const inline = checkInline(u);
  if (E.isLeft(inline)) return inline;
  return E.right({ ...pick(u, payoutUpdateKeys), ...inline.right } as PayoutUpdateRequest);
};

/**
 * The payout PATCH body as an io-ts codec. Same rules and order as create, each applied only to
 * what is sent; a PATCH naming no editable field answers `no changes`; channel_id without method_id
 * answers `method_id required when channel_id provided`. An amount without a currency is checked
 * at the largest fiat scale (the engine re-checks it at the payout's currency).
 */
export const PayoutUpdateRequest = codecFromCheck<PayoutUpdateRequest>('PayoutUpdateRequest', (u) =>
  checkPayoutUpdate(u, {}),
);

/** PATCH /payment/payouts/{payout_id}: the codec's rules, then the inline account's network. */
export const decodePayoutUpdate = (
  input: unknown,
  options: PayoutDecodeOptions,
): E.Either<PayrailError, PayoutUpdateRequest> =>
  withAccountNetwork(checkPayoutUpdate(input, options), options.lookupNetwork);

// ---------------------------------------------------------------------------------------------
// Standalone beneficiaries and beneficiary accounts (decisions.md §3)

/** The statuses a beneficiary PATCH may set (decisions.md §3). */
export const beneficiaryStatuses = ['active', 'disabled'] as const;
export type BeneficiaryStatus = (typeof beneficiaryStatuses)[number];

/** The statuses a beneficiary-account PATCH may set (decisions.md §3). */
export const beneficiaryAccountStatuses = ['active', 'disabled', 'suspended'] as const;
export type BeneficiaryAccountStatus = (typeof beneficiaryAccountStatuses)[number];

/** POST /payment/beneficiaries. */
export interface BeneficiaryCreateRequest {
  readonly method_id: number;
  readonly channel_id?: string;
  readonly name: string;
  readonly fields: BeneficiaryFields;
}

/**
 * POST /payment/beneficiaries: `request required`; then required `method_id`, `name`, `fields`
 * (`method_id required`, `name required`, `fields required`); then method_id a positive integer
 * and channel_id a 1-64 label (`Validation Failed`), the name's length, the fields' rules.
 */
export const BeneficiaryCreateRequest = codecFromCheck<BeneficiaryCreateRequest>(
  'BeneficiaryCreateRequest',
  (u) => {
    if (!isJsonObject(u)) return E.left(payrailError('request_required'));
    const v = (key: string) => presentValue(u, key);
    const broken = firstBroken([
      () => unless(v('method_id') !== undefined, () => payrailError('method_id_required')),
      () => unless(!isMissing(v('name')), () => payrailError('field_required', { field: 'name' })),
      () => unless(v('fields') !== undefined, () => payrailError('fields_required')),
      () => unless(isId(v('method_id')), validationFailed),
      () => unless(v('channel_id') === undefined || isLabel(v('channel_id')), validationFailed),
    ]);
    if (broken) return E.left(broken);
    const name = checkBeneficiaryName(v('name'), 'name');
    if (E.isLeft(name)) return name;
    const fields = checkBeneficiaryFields(v('fields'), payrailError('fields_required'));
    if (E.isLeft(fields)) return fields;
    return E.right({
      ...(pick(u, ['method_id', 'channel_id']) as Pick<BeneficiaryCreateRequest, 'method_id'>),
      name: name.right,
      fields: fields.right,
    });
  },
);

const statusPatch =
  <S extends string>(statuses: readonly S[]) =>
  (u: unknown): E.Either<PayrailError, { readonly status: S }> => {
    if (!isJsonObject(u)) return E.left(payrailError('request_required'));
    const status = presentValue(u, 'status');
    if (status === undefined) return E.left(payrailError('no_changes'));
    return (statuses as readonly unknown[]).includes(status)
      ? E.right({ status: status as S })
      : E.left(payrailError('invalid_status'));
  };

/** PATCH /payment/beneficiaries/{id}: `status` active or disabled, else `invalid status`. */
export interface BeneficiaryPatchRequest {
  readonly status: BeneficiaryStatus;
}
/** No status -> `no changes`; any other value -> `invalid status`. */
export const BeneficiaryPatchRequest = codecFromCheck<BeneficiaryPatchRequest>(
  'BeneficiaryPatchRequest',
  statusPatch(beneficiaryStatuses),
);

/** PATCH /payment/beneficiary-accounts/{id}: `status` active, disabled or suspended. */
export interface BeneficiaryAccountPatchRequest {
  readonly status: BeneficiaryAccountStatus;
}
/** No status -> `no changes`; any other value -> `invalid status`. */
export const BeneficiaryAccountPatchRequest = codecFromCheck<BeneficiaryAccountPatchRequest>(
  'BeneficiaryAccountPatchRequest',
  statusPatch(beneficiaryAccountStatuses),
);

/** POST /payment/beneficiary-accounts: an account for an existing beneficiary. */
export interface BeneficiaryAccountCreateRequest extends BeneficiaryAccount {
  readonly beneficiary_id: string;
}

const checkBeneficiaryAccountCreate = (
  u: unknown,
): E.Either<PayrailError, BeneficiaryAccountCreateRequest> => {
  if (!isJsonObject(u)) return E.left(payrailError('request_required'));
  const beneficiaryId = presentValue(u, 'beneficiary_id');
  if (isMissing(beneficiaryId)) {
    return E.left(payrailError('field_required', { field: 'beneficiary_id' }));
  }
  if (!isLabel(beneficiaryId)) return invalid();
  const account = checkBeneficiaryAccountShape(u);
  return E.isLeft(account) ? account : E.right({ beneficiary_id: beneficiaryId, ...account.right });
};

/**
 * POST /payment/beneficiary-accounts without the network lookup: `request required`,
 * `beneficiary_id required`, then the account's shape rules.
 */
export const BeneficiaryAccountCreateRequest = codecFromCheck<BeneficiaryAccountCreateRequest>(
  'BeneficiaryAccountCreateRequest',
  checkBeneficiaryAccountCreate,
);

/** POST /payment/beneficiary-accounts: the codec's rules, then the network's schema. */
export const decodeBeneficiaryAccountCreate = (
  input: unknown,
  options: { readonly lookupNetwork: NetworkLookup },
): E.Either<PayrailError, BeneficiaryAccountCreateRequest> => {
  const request = checkBeneficiaryAccountCreate(input);
  if (E.isLeft(request)) return request;
  const account = checkAccountNetwork(request.right, options.lookupNetwork);
  return E.isLeft(account) ? account : E.right({ ...request.right, fields: account.right.fields });
};
