/**
 * Bodies of the admin API (decisions §8): merchants, account settings, API keys and sandbox
 * credits. The operator's token is checked by the HTTP layer; these codecs only read bodies.
 *
 * Shared reading rules, as for merchant requests: a body that is not a JSON object is
 * `request required`; `null` is absent; keys a request does not define are ignored; the first
 * broken rule, in the order each codec documents, is the answer.
 */
import * as E from 'fp-ts/lib/Either.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { type Currency, currencies, isCurrency, isPositive, parseAmount } from '../money/money.js';
import { type PayTokenId, resolvePayToken } from '../money/pay-tokens.js';
import type { Environment } from '../ports/records.js';
import {
  codecFromCheck,
  codePointLength,
  hasLengthBetween,
  isBlank,
  isJsonObject,
  type JsonObject,
  presentValue,
} from './beneficiary.codecs.js';
import { decodeWith } from './codec-toolkit.js';
import { isIpRange } from './ip-ranges.js';

/**
 * Every permission an API key may hold: the interface's table and the identifiers decisions §7
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
  'payment.webhook.read',
  'payment.webhook.write',
] as const;
export type ApiKeyPermission = (typeof apiKeyPermissions)[number];

export const isApiKeyPermission = (value: unknown): value is ApiKeyPermission =>
  (apiKeyPermissions as readonly unknown[]).includes(value);

export const apiKeyEnvironments = ['sandbox', 'live'] as const satisfies readonly Environment[];

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

export const merchantNameMaxLength = 200;

type Check = () => PayrailError | undefined;

const firstBroken = (checks: readonly Check[]): PayrailError | undefined => {
  for (const check of checks) {
    const broken = check();
    if (broken) return broken;
  }
  return undefined;
};

const unless = (ok: boolean, error: () => PayrailError): PayrailError | undefined =>
  ok ? undefined : error();

const validationFailed = (): PayrailError => payrailError('validation_failed');
const isMissing = (u: unknown): boolean => u === undefined || (typeof u === 'string' && isBlank(u));
const isStringArray = (u: unknown): u is readonly string[] =>
  Array.isArray(u) && u.every((item) => typeof item === 'string');
const unique = <A>(items: readonly A[]): A[] => [...new Set(items)];
const isBoolean = (u: unknown): u is boolean => typeof u === 'boolean';

const bodyOf = (u: unknown): E.Either<PayrailError, JsonObject> =>
  isJsonObject(u) ? E.right(u) : E.left(payrailError('request_required'));

// ---------------------------------------------------------------------------------------------
// POST /admin/merchants

export interface MerchantCreateRequest {
  readonly name: string;
  /** Every currency the service knows unless sent. */
  readonly currencies: readonly Currency[];
}

/**
 * `request required` → `name required` (absent or blank) → name a string of 1-200 characters
 * (`Validation Failed`) → currencies, when sent, a non-empty array of strings
 * (`Validation Failed`), each a currency the service knows (`currency not supported`, the first
 * unknown one); duplicates dropped.
 */
const checkMerchantCreate = (u: unknown): E.Either<PayrailError, MerchantCreateRequest> => {
  const body = bodyOf(u);
  if (E.isLeft(body)) return body;
  const name = presentValue(body.right, 'name');
  const sent = presentValue(body.right, 'currencies');
  const broken = firstBroken([
    () => unless(!isMissing(name), () => payrailError('field_required', { field: 'name' })),
    () =>
      unless(
        typeof name === 'string' && hasLengthBetween(name, 1, merchantNameMaxLength),
        validationFailed,
      ),
    () => unless(sent === undefined || (isStringArray(sent) && sent.length > 0), validationFailed),
    () =>
      unless(sent === undefined || (sent as readonly unknown[]).every(isCurrency), () =>
        payrailError('currency_not_supported'),
      ),
  ]);
  if (broken) return E.left(broken);
  return E.right({
    name: name as string,
    currencies: sent === undefined ? [...currencies] : unique(sent as readonly Currency[]),
  });
};

export const MerchantCreateRequest = codecFromCheck<MerchantCreateRequest>(
  'MerchantCreateRequest',
  checkMerchantCreate,
);
export const decodeMerchantCreate = decodeWith(MerchantCreateRequest);

// ---------------------------------------------------------------------------------------------
// PATCH /admin/accounts/{account_id}

export interface AccountProductsPatch {
  readonly payout?: boolean;
  readonly acquiring?: boolean;
}

export interface AccountUpdateRequest {
  readonly status?: AccountStatus;
  readonly verification_enabled?: boolean;
  readonly auto_approve?: boolean;
  readonly products?: AccountProductsPatch;
  readonly enabled_pay_tokens?: readonly PayTokenId[];
  readonly default_pay_tokens?: readonly PayTokenId[];
}

const checkProducts = (u: unknown): E.Either<PayrailError, AccountProductsPatch> => {
  if (!isJsonObject(u)) return E.left(validationFailed());
  const payout = presentValue(u, 'payout');
  const acquiring = presentValue(u, 'acquiring');
  if (![payout, acquiring].every((flag) => flag === undefined || isBoolean(flag))) {
    return E.left(validationFailed());
  }
  return E.right({
    ...(payout === undefined ? {} : { payout: payout as boolean }),
    ...(acquiring === undefined ? {} : { acquiring: acquiring as boolean }),
  });
};

/** A list of pay token ids: each well formed and known (the messages of decisions §4). */
const checkPayTokens = (u: unknown): E.Either<PayrailError, readonly PayTokenId[]> => {
  if (!Array.isArray(u)) return E.left(validationFailed());
  for (const id of u) {
    const token = resolvePayToken(id);
    if (E.isLeft(token)) return token;
  }
  return E.right(unique(u as readonly PayTokenId[]));
};

/**
 * Any of the settings, checked in this order: status (`invalid status` unless active or frozen),
 * verification_enabled and auto_approve booleans and products `{payout?, acquiring?}` booleans
 * (`Validation Failed`), enabled_pay_tokens then default_pay_tokens (arrays, else
 * `Validation Failed`; each id well formed, else `invalid pay currency: <id>`, and known, else
 * `unsupported network/currency: <network>/<currency>`; duplicates dropped). A body with none of
 * them decodes to `{}`: whether anything changes is the engine's `no changes`, and whether the
 * defaults are enabled needs the stored account, so the engine checks that too.
 */
const checkAccountUpdate = (u: unknown): E.Either<PayrailError, AccountUpdateRequest> => {
  const body = bodyOf(u);
  if (E.isLeft(body)) return body;
  const v = (key: string) => presentValue(body.right, key);
  const status = v('status');
  const broken = firstBroken([
    () =>
      unless(status === undefined || (accountStatuses as readonly unknown[]).includes(status), () =>
        payrailError('invalid_status'),
      ),
    () =>
      unless(
        [v('verification_enabled'), v('auto_approve')].every(
          (flag) => flag === undefined || isBoolean(flag),
        ),
        validationFailed,
      ),
  ]);
  if (broken) return E.left(broken);
  const patch: { -readonly [K in keyof AccountUpdateRequest]: AccountUpdateRequest[K] } = {};
  if (status !== undefined) patch.status = status as AccountStatus;
  if (v('verification_enabled') !== undefined) {
    patch.verification_enabled = v('verification_enabled') as boolean;
  }
  if (v('auto_approve') !== undefined) patch.auto_approve = v('auto_approve') as boolean;
  if (v('products') !== undefined) {
    const products = checkProducts(v('products'));
    if (E.isLeft(products)) return products;
    patch.products = products.right;
  }
  for (const key of ['enabled_pay_tokens', 'default_pay_tokens'] as const) {
    if (v(key) === undefined) continue;
    const tokens = checkPayTokens(v(key));
    if (E.isLeft(tokens)) return tokens;
    patch[key] = tokens.right;
  }
  return E.right(patch);
};

export const AccountUpdateRequest = codecFromCheck<AccountUpdateRequest>(
  'AccountUpdateRequest',
  checkAccountUpdate,
);
export const decodeAccountUpdate = decodeWith(AccountUpdateRequest);

// ---------------------------------------------------------------------------------------------
// POST /admin/accounts/{account_id}/api-keys

export interface ApiKeyIssueRequest {
  /** Known permission ids, duplicates dropped, in the order sent. */
  readonly permissions: readonly ApiKeyPermission[];
  /** The serving process's environment unless sent (the engine fills it in). */
  readonly env?: Environment;
  readonly ip_whitelist: readonly string[];
  readonly expires_in_seconds: number;
  readonly name: string;
}

/**
 * `request required` → `permissions required` (absent or `[]`) → permissions an array of known
 * permission ids → env `sandbox` or `live` → ip_whitelist an array of at most 100 IPv4/IPv6
 * addresses or CIDR ranges → expires_in_seconds an integer from 60 to 31536000 (365 days;
 * default 30 days) → name at most 100 characters (default `""`: unnamed). Every broken rule after the first is
 * `Validation Failed`: an unknown permission is a malformed request, not an access refusal.
 */
const checkApiKeyIssue = (u: unknown): E.Either<PayrailError, ApiKeyIssueRequest> => {
  const body = bodyOf(u);
  if (E.isLeft(body)) return body;
  const v = (key: string) => presentValue(body.right, key);
  const permissions = v('permissions');
  const env = v('env');
  const whitelist = v('ip_whitelist');
  const expiresIn = v('expires_in_seconds');
  const name = v('name');
  const broken = firstBroken([
    () =>
      unless(
        permissions !== undefined && !(Array.isArray(permissions) && permissions.length === 0),
        () => payrailError('field_required', { field: 'permissions' }),
      ),
    () =>
      unless(
        Array.isArray(permissions) && (permissions as readonly unknown[]).every(isApiKeyPermission),
        validationFailed,
      ),
    () =>
      unless(
        env === undefined || (apiKeyEnvironments as readonly unknown[]).includes(env),
        validationFailed,
      ),
    () =>
      unless(
        whitelist === undefined ||
          (Array.isArray(whitelist) &&
            whitelist.length <= apiKeyLimits.maxIpWhitelist &&
            whitelist.every(isIpRange)),
        validationFailed,
      ),
    () =>
      unless(
        expiresIn === undefined ||
          (typeof expiresIn === 'number' &&
            Number.isSafeInteger(expiresIn) &&
            expiresIn >= apiKeyLimits.minExpiresInSeconds &&
            expiresIn <= apiKeyLimits.maxExpiresInSeconds),
        validationFailed,
      ),
    () =>
      unless(
        name === undefined ||
          (typeof name === 'string' && codePointLength(name) <= apiKeyLimits.maxNameLength),
        validationFailed,
      ),
  ]);
  if (broken) return E.left(broken);
  return E.right({
    permissions: unique(permissions as readonly ApiKeyPermission[]),
    ...(env === undefined ? {} : { env: env as Environment }),
    ip_whitelist: unique((whitelist ?? []) as readonly string[]),
    expires_in_seconds: (expiresIn as number | undefined) ?? apiKeyLimits.defaultExpiresInSeconds,
    name: (name as string | undefined) ?? '',
  });
};

export const ApiKeyIssueRequest = codecFromCheck<ApiKeyIssueRequest>(
  'ApiKeyIssueRequest',
  checkApiKeyIssue,
);
export const decodeApiKeyIssue = decodeWith(ApiKeyIssueRequest);

// ---------------------------------------------------------------------------------------------
// PATCH /admin/api-keys/{key_id}

export interface ApiKeyUpdateRequest {
  readonly status: ApiKeyPatchStatus;
}

/**
 * `request required` → no status: `no changes` (as for the beneficiary PATCHes) → not `active`
 * or `disabled`: `invalid status` (deleting is `DELETE`).
 */
const checkApiKeyUpdate = (u: unknown): E.Either<PayrailError, ApiKeyUpdateRequest> => {
  const body = bodyOf(u);
  if (E.isLeft(body)) return body;
  const status = presentValue(body.right, 'status');
  if (status === undefined) return E.left(payrailError('no_changes'));
  return (apiKeyPatchStatuses as readonly unknown[]).includes(status)
    ? E.right({ status: status as ApiKeyPatchStatus })
    : E.left(payrailError('invalid_status'));
};

export const ApiKeyUpdateRequest = codecFromCheck<ApiKeyUpdateRequest>(
  'ApiKeyUpdateRequest',
  checkApiKeyUpdate,
);
export const decodeApiKeyUpdate = decodeWith(ApiKeyUpdateRequest);

// ---------------------------------------------------------------------------------------------
// POST /admin/accounts/{account_id}/credit (sandbox only)

export interface AccountCreditRequest {
  readonly currency: Currency;
  /** At the currency's scale, greater than zero. */
  readonly amount: string;
}

/**
 * `request required` → `currency required` → `amount required` → currency known
 * (`currency not supported`) → amount a decimal string at the currency's scale (the money
 * module's messages) → greater than zero (`amount must be greater than zero`).
 */
const checkAccountCredit = (u: unknown): E.Either<PayrailError, AccountCreditRequest> => {
  const body = bodyOf(u);
  if (E.isLeft(body)) return body;
  const currency = presentValue(body.right, 'currency');
  const amount = presentValue(body.right, 'amount');
  const broken = firstBroken([
    () => unless(!isMissing(currency), () => payrailError('currency_required')),
    () => unless(!isMissing(amount), () => payrailError('field_required', { field: 'amount' })),
    () => unless(isCurrency(currency), () => payrailError('currency_not_supported')),
  ]);
  if (broken) return E.left(broken);
  // A sign is accepted by the parser only so that "-5" answers "greater than zero".
  const parsed = parseAmount(amount, currency as Currency, { allowNegative: true });
  if (E.isLeft(parsed)) return parsed;
  if (!isPositive(parsed.right)) return E.left(payrailError('amount_must_be_positive'));
  return E.right({ currency: currency as Currency, amount: amount as string });
};

export const AccountCreditRequest = codecFromCheck<AccountCreditRequest>(
  'AccountCreditRequest',
  checkAccountCredit,
);
export const decodeAccountCredit = decodeWith(AccountCreditRequest);
