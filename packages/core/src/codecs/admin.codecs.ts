/**
 * Bodies of the admin API (docs/spec/decisions.md §8): merchants, account settings, API keys, sandbox credits
 * and the sandbox clock. The operator's token is checked by the HTTP layer; these codecs only read
 * bodies. Each is one io-ts codec built with the codec toolkit: a `required` stage, a `format`
 * stage whose structure the document reads, in the order of the precedence each codec states.
 *
 * Shared reading rules, as for merchant requests: a body that is not a JSON object is
 * `request required`; `null` is absent; keys a request does not define are ignored; the first
 * broken rule, in the order each codec documents, is the answer.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { type Currency, currencies, isCurrency, isPositive, parseAmount } from '../money/money.js';
import {
  isPayTokenId,
  type PayTokenId,
  payTokenIds,
  resolvePayToken,
} from '../money/pay-tokens.js';
import type { Environment } from '../ports/records.js';
import {
  codePointLength,
  decodeWith,
  defined,
  hasLengthBetween,
  isOneOf,
  leaf,
  leafFrom,
  oneOfLeaf,
  present,
  request,
  requiredField,
  wholeNumberLeaf,
  withDefault,
} from './codec-toolkit.js';
import { isIpRange } from './ip-ranges.js';

/**
 * Every permission an API key may hold: the interface's table and the identifiers docs/spec/decisions.md §7
 * adds (acquiring, webhooks; `payment.wallet.read` also covers deposits and withdrawals).
 */
export const apiKeyPermissions = [
  'payment.account.read',
  'payment.wallet.read',
  'payment.ledger.read',
  'payment.payout.create',
  'payment.payout.submit',
  'payment.payout.read',
  'payment.payout.update',
  'payment.payout.cancel',
  'payment.payout.beneficiary.read',
  'payment.payout.beneficiary.write',
  'payment.payout.beneficiary_account.read',
  'payment.payout.beneficiary_account.write',
  'payment.acquiring.create',
  'payment.acquiring.read',
  'payment.acquiring.close',
  'payment.acquiring.refund',
  'payment.webhook.read',
  'payment.webhook.write',
] as const;
export type ApiKeyPermission = (typeof apiKeyPermissions)[number];

export const isApiKeyPermission = isOneOf(apiKeyPermissions);

const apiKeyEnvironments = ['sandbox', 'live'] as const satisfies readonly Environment[];

export const accountStatuses = ['active', 'frozen'] as const;
export type AccountStatus = (typeof accountStatuses)[number];

export const apiKeyPatchStatuses = ['active', 'disabled'] as const;
export type ApiKeyPatchStatus = (typeof apiKeyPatchStatuses)[number];

export const apiKeyLimits = {
  /** The interface: "If no expiry is set at creation, the key expires after 30 days." */
  defaultExpiresInSeconds: 30 * 24 * 60 * 60,
  minExpiresInSeconds: 60,
  maxExpiresInSeconds: 365 * 24 * 60 * 60,
  maxIpWhitelist: 100,
  maxNameLength: 100,
} as const;

const merchantNameMaxLength = 200;

const validationFailed = (): PayrailError => payrailError('validation_failed');
const isBoolean = (u: unknown): u is boolean => typeof u === 'boolean';
const isStringArray = (u: unknown): u is readonly string[] =>
  Array.isArray(u) && u.every((item) => typeof item === 'string');
const unique = <A>(items: readonly A[]): A[] => [...new Set(items)];
const isUniqueList = <A>(u: unknown, is: (item: unknown) => item is A): u is readonly A[] =>
  Array.isArray(u) && u.every(is) && new Set(u).size === u.length;

const Flag = leaf<boolean>('Flag', isBoolean, 'validation_failed', { type: 'boolean' });

// ---------------------------------------------------------------------------------------------
// POST /admin/merchants

const MerchantName = leaf<string>(
  'MerchantName',
  (u): u is string => typeof u === 'string' && hasLengthBetween(u, 1, merchantNameMaxLength),
  'validation_failed',
  { type: 'string', minLength: 1, maxLength: merchantNameMaxLength },
);

/** A non-empty list of strings, each a currency the service knows; duplicates dropped. */
const MerchantCurrencies = leafFrom<readonly Currency[]>(
  'MerchantCurrencies',
  (u): u is readonly Currency[] => isUniqueList(u, isCurrency) && u.length > 0,
  (u) => {
    if (!isStringArray(u) || u.length === 0) return E.left(validationFailed());
    return u.every(isCurrency)
      ? E.right(unique(u))
      : E.left(payrailError('currency_not_supported'));
  },
  {
    type: 'array',
    minItems: 1,
    items: { type: 'string', enum: [...currencies] },
    description: 'every currency the service knows unless sent',
  },
);

/**
 * `request required` → `name required` (absent or blank) → name a string of 1-200 characters
 * (`Validation Failed`) → currencies, when sent, a non-empty array of strings
 * (`Validation Failed`), each a currency the service knows (`currency not supported`, the first
 * unknown one); duplicates dropped. Every currency the service knows unless sent.
 */
export const MerchantCreateRequest = request('MerchantCreateRequest', {
  required: t.type({ name: present(payrailError('field_required', { field: 'name' })) }),
  format: t.type({
    name: MerchantName,
    currencies: withDefault(MerchantCurrencies, [...currencies]),
  }),
});
export type MerchantCreateRequest = t.TypeOf<typeof MerchantCreateRequest>;
export const decodeMerchantCreate = decodeWith(MerchantCreateRequest);

// ---------------------------------------------------------------------------------------------
// PATCH /admin/accounts/{account_id}

const AccountStatus = oneOfLeaf('AccountStatus', accountStatuses, 'invalid_status');

/** `{payout?, acquiring?}` booleans; anything but an object is `Validation Failed`. */
const AccountProducts = request(
  'AccountProducts',
  { format: t.partial({ payout: Flag, acquiring: Flag }) },
  payrailError('validation_failed'),
);

/** A list of pay token ids: each well formed and known (the messages of docs/spec/decisions.md §4). */
const PayTokens = leafFrom<readonly PayTokenId[]>(
  'PayTokens',
  (u): u is readonly PayTokenId[] => isUniqueList(u, isPayTokenId),
  (u) => {
    if (!Array.isArray(u)) return E.left(validationFailed());
    const ids: PayTokenId[] = [];
    for (const id of u) {
      const token = resolvePayToken(id);
      if (E.isLeft(token)) return token;
      ids.push(token.right.id);
    }
    return E.right(unique(ids));
  },
  { type: 'array', items: { type: 'string', enum: [...payTokenIds] } },
);

/**
 * Any of the settings, checked in this order: status (`invalid status` unless active or frozen),
 * verification_enabled and auto_approve booleans and products `{payout?, acquiring?}` booleans
 * (`Validation Failed`), enabled_pay_tokens then default_pay_tokens (arrays, else
 * `Validation Failed`; each id well formed, else `invalid pay currency: <id>`, and known, else
 * `unsupported network/currency: <network>/<currency>`; duplicates dropped). A body with none of
 * them decodes to `{}`: whether anything changes is the engine's `no changes`, and whether the
 * defaults are enabled needs the stored account, so the engine checks that too.
 */
export const AccountUpdateRequest = request('AccountUpdateRequest', {
  format: t.partial({
    status: AccountStatus,
    verification_enabled: Flag,
    auto_approve: Flag,
    products: AccountProducts,
    enabled_pay_tokens: PayTokens,
    default_pay_tokens: PayTokens,
  }),
});
export type AccountUpdateRequest = t.TypeOf<typeof AccountUpdateRequest>;
export const decodeAccountUpdate = decodeWith(AccountUpdateRequest);

// ---------------------------------------------------------------------------------------------
// POST /admin/accounts/{account_id}/api-keys

/** `[]` is `permissions required`; anything but known ids is malformed, not an access refusal. */
const ApiKeyPermissions = leafFrom<readonly ApiKeyPermission[]>(
  'ApiKeyPermissions',
  (u): u is readonly ApiKeyPermission[] => isUniqueList(u, isApiKeyPermission) && u.length > 0,
  (u) => {
    if (Array.isArray(u) && u.length === 0) {
      return E.left(payrailError('field_required', { field: 'permissions' }));
    }
    return Array.isArray(u) && u.every(isApiKeyPermission)
      ? E.right(unique(u))
      : E.left(validationFailed());
  },
  { type: 'array', minItems: 1, items: { type: 'string', enum: [...apiKeyPermissions] } },
);

const ApiKeyEnvironment = oneOfLeaf('ApiKeyEnvironment', apiKeyEnvironments, 'validation_failed');

const IpWhitelist = leafFrom<readonly string[]>(
  'IpWhitelist',
  (u): u is readonly string[] =>
    isUniqueList(u, isIpRange) && u.length <= apiKeyLimits.maxIpWhitelist,
  (u) =>
    Array.isArray(u) && u.length <= apiKeyLimits.maxIpWhitelist && u.every(isIpRange)
      ? E.right(unique(u))
      : E.left(validationFailed()),
  {
    type: 'array',
    maxItems: apiKeyLimits.maxIpWhitelist,
    items: { type: 'string', description: 'IP address or CIDR block' },
  },
);

const ExpiresInSeconds = wholeNumberLeaf(
  'ExpiresInSeconds',
  { minimum: apiKeyLimits.minExpiresInSeconds, maximum: apiKeyLimits.maxExpiresInSeconds },
  'validation_failed',
);

const ApiKeyName = leaf<string>(
  'ApiKeyName',
  (u): u is string => typeof u === 'string' && codePointLength(u) <= apiKeyLimits.maxNameLength,
  'validation_failed',
  { type: 'string', maxLength: apiKeyLimits.maxNameLength },
);

/**
 * `request required` → `permissions required` (absent or `[]`) → permissions an array of known
 * permission ids → env `sandbox` or `live` → ip_whitelist an array of at most 100 IPv4/IPv6
 * addresses or CIDR ranges → expires_in_seconds an integer from 60 to 31536000 (365 days;
 * default 30 days) → name at most 100 characters (default `""`: unnamed). Every broken rule after
 * the first is `Validation Failed`. Permissions and the whitelist keep the order sent, duplicates
 * dropped; env, when absent, is the serving process's environment (the engine fills it in).
 */
export const ApiKeyIssueRequest = request('ApiKeyIssueRequest', {
  format: t.intersection([
    t.type({
      permissions: requiredField(
        ApiKeyPermissions,
        payrailError('field_required', { field: 'permissions' }),
        (u) => u === undefined,
      ),
    }),
    t.partial({ env: ApiKeyEnvironment }),
    t.type({
      ip_whitelist: withDefault(IpWhitelist, []),
      expires_in_seconds: withDefault(ExpiresInSeconds, apiKeyLimits.defaultExpiresInSeconds),
      name: withDefault(ApiKeyName, ''),
    }),
  ]),
});
export type ApiKeyIssueRequest = t.TypeOf<typeof ApiKeyIssueRequest>;
export const decodeApiKeyIssue = decodeWith(ApiKeyIssueRequest);

// ---------------------------------------------------------------------------------------------
// PATCH /admin/api-keys/{key_id}

const ApiKeyPatchStatus = oneOfLeaf('ApiKeyPatchStatus', apiKeyPatchStatuses, 'invalid_status');

/**
 * `request required` → no status: `no changes` (as for the beneficiary PATCHes) → not `active`
 * or `disabled`: `invalid status` (deleting is `DELETE`).
 */
export const ApiKeyUpdateRequest = request('ApiKeyUpdateRequest', {
  required: t.type({ status: defined(payrailError('no_changes')) }),
  format: t.type({ status: ApiKeyPatchStatus }),
});
export type ApiKeyUpdateRequest = t.TypeOf<typeof ApiKeyUpdateRequest>;
export const decodeApiKeyUpdate = decodeWith(ApiKeyUpdateRequest);

// ---------------------------------------------------------------------------------------------
// POST /admin/accounts/{account_id}/credit (sandbox only)

const SupportedCurrency = oneOfLeaf('SupportedCurrency', currencies, 'currency_not_supported');

/**
 * A decimal string at the scale of the body's currency (the money module's messages), greater
 * than zero. It reads the currency beside it: the scale is the currency's, and the currency is
 * judged first (a bad one fails at its own place before this leaf's answer could count).
 */
const CreditAmount = leafFrom<string>(
  'CreditAmount',
  (u): u is string => typeof u === 'string',
  (u, sibling) => {
    const currency = sibling('currency');
    if (!isCurrency(currency)) return E.left(payrailError('currency_not_supported'));
    // A sign is accepted by the parser only so that "-5" answers "greater than zero".
    const parsed = parseAmount(u, currency, { allowNegative: true });
    if (E.isLeft(parsed)) return parsed;
    return isPositive(parsed.right) && typeof u === 'string'
      ? E.right(u)
      : E.left(payrailError('amount_must_be_positive'));
  },
  {
    type: 'string',
    pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$',
    description: 'greater than 0, at most the currency scale of decimals',
  },
);

/**
 * `request required` → `currency required` → `amount required` → currency known
 * (`currency not supported`) → amount a decimal string at the currency's scale (the money
 * module's messages) → greater than zero (`amount must be greater than zero`).
 */
export const AccountCreditRequest = request('AccountCreditRequest', {
  required: t.type({
    currency: present(payrailError('currency_required')),
    amount: present(payrailError('field_required', { field: 'amount' })),
  }),
  format: t.type({ currency: SupportedCurrency, amount: CreditAmount }),
});
export type AccountCreditRequest = t.TypeOf<typeof AccountCreditRequest>;
export const decodeAccountCredit = decodeWith(AccountCreditRequest);

// ---------------------------------------------------------------------------------------------
// POST /admin/sandbox/clock/advance (sandbox only)

/** The most one advance may move the sandbox clock: 30 days (ADR 0033). */
const sandboxClockMaxAdvance = 2_592_000;

/**
 * The most the sandbox clock may run ahead of the host's clock in all: 366 days, the longest
 * life of an API key (365 days) and a day, so every lifetime payrail keeps can be seen to end
 * while dates stay ordinary (ADR 0033).
 */
export const sandboxClockMaxOffset = 31_622_400;

const ClockSeconds = leafFrom<number>(
  'ClockSeconds',
  (u): u is number =>
    typeof u === 'number' && Number.isSafeInteger(u) && u >= 0 && u <= sandboxClockMaxAdvance,
  (u) =>
    typeof u !== 'number' || !Number.isSafeInteger(u)
      ? E.left(payrailError('validation_failed'))
      : u < 0 || u > sandboxClockMaxAdvance
        ? E.left(
            payrailError('clock_advance_out_of_range', { max: String(sandboxClockMaxAdvance) }),
          )
        : E.right(u),
  { type: 'integer', minimum: 0, maximum: sandboxClockMaxAdvance },
);

/**
 * `request required` → `seconds required` (absent or `null`) → seconds a whole number of seconds
 * (`Validation Failed`) → at most 30 days (`seconds must be between 0 and 2592000`; the engine
 * answers the same message with a smaller bound when the clock would run more than
 * `sandboxClockMaxOffset` ahead).
 */
export const SandboxClockAdvanceRequest = request('SandboxClockAdvanceRequest', {
  required: t.type({ seconds: defined(payrailError('field_required', { field: 'seconds' })) }),
  format: t.type({ seconds: ClockSeconds }),
});
export type SandboxClockAdvanceRequest = t.TypeOf<typeof SandboxClockAdvanceRequest>;
export const decodeSandboxClockAdvance = decodeWith(SandboxClockAdvanceRequest);
