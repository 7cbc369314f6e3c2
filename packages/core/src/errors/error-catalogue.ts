/**
 * The error catalogue: every message the service can answer with, each exactly once, with the
 * HTTP status and envelope code it maps to (decisions.md §1). Errors are data: the policy lives
 * here, never in a `catch` block.
 *
 * A message may hold `<placeholders>`; `payrailError(key, params)` fills them, and the type of
 * `params` is derived from the template, so a missing or misspelt placeholder does not compile.
 */

/** What kind of failure a message reports; the kind decides status, code and retryability. */
export type ErrorKind =
  | 'request'
  | 'validation'
  | 'business'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'rate_limit'
  | 'internal'
  | 'unavailable';

export interface ErrorPolicy {
  readonly httpStatus: 400 | 401 | 403 | 404 | 429 | 500 | 503;
  readonly code: 50 | 51 | 53 | 54 | 61 | 65;
  /** Whether the same request may succeed when repeated unchanged (the interface's Retry rules). */
  readonly retryable: boolean;
}

export const errorPolicies = {
  request: { httpStatus: 400, code: 51, retryable: false },
  validation: { httpStatus: 400, code: 51, retryable: false },
  business: { httpStatus: 400, code: 53, retryable: false },
  authentication: { httpStatus: 401, code: 61, retryable: false },
  permission: { httpStatus: 403, code: 61, retryable: false },
  not_found: { httpStatus: 404, code: 65, retryable: false },
  rate_limit: { httpStatus: 429, code: 54, retryable: true },
  internal: { httpStatus: 500, code: 50, retryable: true },
  // The database cannot be reached right now (ADR 0051): the interface's server-error code, with
  // HTTP 503 and `Retry-After`, so a client knows to come back rather than report a bug.
  unavailable: { httpStatus: 503, code: 50, retryable: true },
} as const satisfies Record<ErrorKind, ErrorPolicy>;

/** Where a message comes from: the interface itself, decisions.md, or payrail's own docs/adr. */
export type ErrorSource = 'interface' | 'decisions' | 'payrail';

/** The groups of the interface's Errors section (and payrail's own), in the order it lists them. */
export type ErrorGroup =
  | 'authentication'
  | 'general'
  | 'payout'
  | 'beneficiary'
  | 'beneficiary_account'
  | 'crypto_batch'
  | 'acquiring'
  | 'webhook'
  | 'upstream';

interface CatalogueEntry {
  readonly message: string;
  readonly kind: ErrorKind;
  readonly source: ErrorSource;
  /** The group of the interface's Errors section the message is listed under. */
  readonly group: ErrorGroup;
}

const entry = <const M extends string, const K extends ErrorKind, const G extends ErrorGroup>(
  group: G,
  message: M,
  kind: K,
  source: ErrorSource = 'interface',
) => ({ message, kind, source, group });

export const errorCatalogue = {
  // Authentication and permission
  unauthorized: entry('authentication', 'unauthorized', 'authentication'),
  api_key_not_found: entry('authentication', 'api key not found', 'authentication'),
  api_key_disabled: entry('authentication', 'api key disabled', 'authentication'),
  api_key_expired: entry('authentication', 'api key expired', 'authentication'),
  api_key_version_mismatch: entry('authentication', 'api key version mismatch', 'authentication'),
  invalid_api_key_token: entry('authentication', 'invalid api key token', 'authentication'),
  ip_not_allowed: entry('authentication', 'ip not allowed', 'permission'),
  ip_not_allowed_seen: entry('authentication', 'ip not allowed: <ip>', 'permission'),
  forbidden: entry('authentication', 'forbidden', 'permission'),

  // General request
  validation_failed: entry('general', 'Validation Failed', 'validation'),
  request_required: entry('general', 'request required', 'request'),
  field_required: entry('general', '<field> required', 'validation'),
  invalid_notify_url: entry('general', 'invalid notify_url', 'validation'),
  invalid_status: entry('general', 'invalid status', 'validation'),
  invalid_review_status: entry('general', 'invalid review_status', 'validation'),
  invalid_execution_status: entry('general', 'invalid execution_status', 'validation'),
  no_changes: entry('general', 'no changes', 'business'),
  account_not_found: entry('general', 'account not found', 'authentication'),
  account_frozen: entry('general', 'account frozen', 'permission'),
  internal_error: entry('general', 'internal error', 'internal'),
  service_unavailable: entry('general', 'service unavailable', 'unavailable', 'payrail'),
  route_not_found: entry('general', 'route not found', 'not_found', 'payrail'),
  // Ids in the path whose object's own message already answers another status (a body id, a
  // credential): the path's id is named instead (docs/adr/0007).
  account_id_not_found: entry('general', 'account_id not found', 'not_found', 'payrail'),
  key_id_not_found: entry('general', 'key_id not found', 'not_found', 'payrail'),
  operator_id_not_found: entry('general', 'operator_id not found', 'not_found', 'payrail'),
  beneficiary_id_not_found: entry('general', 'beneficiary_id not found', 'not_found', 'payrail'),
  beneficiary_account_id_not_found: entry(
    'general',
    'beneficiary_account_id not found',
    'not_found',
    'payrail',
  ),
  method_id_not_found: entry('general', 'method_id not found', 'not_found', 'payrail'),
  network_code_not_found: entry('general', 'network code not found', 'not_found', 'payrail'),
  route_id_not_found: entry('general', 'route_id not found', 'not_found', 'payrail'),
  rate_limit_exceeded: entry('general', 'rate limit exceeded', 'rate_limit', 'decisions'),
  invalid_query_param: entry('general', 'invalid <param>', 'validation', 'payrail'),
  clock_advance_out_of_range: entry(
    'general',
    'seconds must be between 0 and <max>',
    'validation',
    'payrail',
  ),
  invalid_decimal: entry(
    'general',
    '<field> must be a decimal string with at most <scale> decimal places',
    'validation',
    'payrail',
  ),
  decimal_too_large: entry(
    'general',
    '<field> must have at most 24 digits before the decimal point',
    'validation',
    'payrail',
  ),

  // Fiat payout
  currency_required: entry('payout', 'currency required', 'validation'),
  currency_not_supported: entry('payout', 'currency not supported', 'business'),
  amount_must_be_positive: entry('payout', 'amount must be greater than zero', 'validation'),
  amount_must_exceed_fee: entry(
    'payout',
    'amount must be greater than fee when fee_bearer is user',
    'business',
  ),
  fee_bearer_invalid: entry('payout', 'fee_bearer must be merchant or user', 'validation'),
  reference_required: entry('payout', 'reference required', 'validation'),
  reference_already_exists: entry('payout', 'reference already exists', 'business'),
  client_request_id_already_used: entry(
    'payout',
    'client_request_id already used',
    'business',
    'decisions',
  ),
  beneficiary_account_id_required: entry('payout', 'beneficiary_account_id required', 'validation'),
  beneficiary_pair_required: entry(
    'payout',
    'beneficiary and beneficiary_account must be provided together',
    'validation',
  ),
  method_id_required_inline: entry(
    'payout',
    'method_id required when creating beneficiary inline',
    'validation',
  ),
  channel_id_requires_method_id: entry('payout', 'channel_id requires method_id', 'validation'),
  method_id_required_with_channel: entry(
    'payout',
    'method_id required when channel_id provided',
    'validation',
  ),
  payout_method_not_found: entry('payout', 'payout method not found', 'business'),
  payout_channel_not_found: entry('payout', 'payout channel not found', 'business'),
  payout_route_not_configured: entry('payout', 'payout route not configured', 'business'),
  channel_account_not_configured: entry('payout', 'channel account not configured', 'business'),
  payout_method_not_supported_for_currency_type: entry(
    'payout',
    'payout method not supported for currency type',
    'business',
  ),
  beneficiary_account_not_found: entry('payout', 'beneficiary account not found', 'business'),
  beneficiary_account_not_active: entry('payout', 'beneficiary account not active', 'business'),
  beneficiary_account_disabled: entry(
    'payout',
    'beneficiary account disabled, please enable it first',
    'business',
  ),
  beneficiary_account_suspended: entry('payout', 'beneficiary account suspended', 'business'),
  beneficiary_account_type_mismatch: entry(
    'payout',
    'beneficiary account type mismatch',
    'business',
  ),
  account_type_mismatch: entry('payout', 'account_type mismatch', 'business'),
  beneficiary_not_found: entry('payout', 'beneficiary not found', 'business'),
  beneficiary_disabled: entry('payout', 'beneficiary disabled', 'business'),
  beneficiary_method_mismatch: entry('payout', 'beneficiary method mismatch', 'business'),
  beneficiary_channel_mismatch: entry('payout', 'beneficiary channel mismatch', 'business'),
  beneficiary_account_mismatch: entry('payout', 'beneficiary account mismatch', 'business'),
  beneficiary_profile_incomplete: entry(
    'payout',
    'beneficiary profile incomplete: missing <fields>',
    'validation',
  ),
  wallet_not_found: entry('payout', 'wallet not found', 'business'),
  merchant_account_not_found: entry('payout', 'merchant account not found', 'business'),
  payout_not_found: entry('payout', 'payout not found', 'not_found'),
  payout_not_editable: entry('payout', 'payout not editable', 'business'),
  payout_already_approved: entry('payout', 'payout already approved', 'business'),
  payout_already_processing: entry('payout', 'payout already processing', 'business'),
  payout_rejected: entry('payout', 'payout rejected', 'business'),
  invalid_payout_status: entry('payout', 'invalid payout status', 'business'),

  // Beneficiary fields
  beneficiary_fields_required: entry('beneficiary', 'beneficiary fields required', 'validation'),
  fields_required: entry('beneficiary', 'fields required', 'validation'),
  fields_missing_required: entry('beneficiary', 'fields missing required: <fields>', 'validation'),
  payee_id_invalid: entry(
    'beneficiary',
    'fields.payee_id invalid: expect ^[a-zA-Z0-9]{3,60}$',
    'validation',
  ),
  language_invalid: entry('beneficiary', 'fields.language invalid: expect 2 letters', 'validation'),
  country_invalid: entry(
    'beneficiary',
    'fields.country invalid: expect ISO-2 uppercase',
    'validation',
  ),
  phone_invalid: entry(
    'beneficiary',
    'fields.phone invalid: expect ^(\\+?\\d{1,3}-)?\\d{4,12}$',
    'validation',
  ),
  birthdate_invalid: entry(
    'beneficiary',
    'fields.birthdate invalid: expect yyyy-MM-dd',
    'validation',
  ),
  email_invalid: entry('beneficiary', 'fields.email invalid', 'validation'),
  first_name_invalid: entry(
    'beneficiary',
    "fields.first_name invalid: length 3-100, letters/'/-/space only",
    'validation',
  ),
  last_name_invalid: entry(
    'beneficiary',
    "fields.last_name invalid: length 3-100, letters/'/-/space only",
    'validation',
  ),
  zip_invalid_length: entry('beneficiary', 'fields.zip invalid: length 3-30', 'validation'),
  zip_invalid_for_country: entry(
    'beneficiary',
    'fields.zip invalid for country <country>',
    'validation',
  ),
  city_invalid: entry('beneficiary', 'fields.city invalid: length 2-120', 'validation'),
  state_invalid: entry('beneficiary', 'fields.state invalid: length 2-60', 'validation'),
  address_invalid: entry('beneficiary', 'fields.address invalid: length 3-200', 'validation'),

  // Beneficiary account fields
  network_code_required: entry('beneficiary_account', 'network_code required', 'validation'),
  network_not_found: entry('beneficiary_account', 'network not found', 'business'),
  schema_required: entry('beneficiary_account', 'schema required', 'business'),
  account_field_required: entry('beneficiary_account', 'field <name> required', 'validation'),
  account_field_invalid: entry('beneficiary_account', 'field <name> invalid', 'validation'),
  account_field_invalid_hint: entry(
    'beneficiary_account',
    'field <name> invalid: <hint>',
    'validation',
  ),
  account_field_unknown: entry('beneficiary_account', 'unknown field <name>', 'validation'),
  walletb_account_prefix: entry(
    'beneficiary_account',
    'walletb_account must start with $',
    'validation',
  ),
  beneficiary_account_already_exists: entry(
    'beneficiary_account',
    'beneficiary account already exists',
    'business',
  ),

  // Crypto mass payout
  items_required: entry('crypto_batch', 'items required', 'validation'),
  items_length: entry('crypto_batch', 'items length must be between 1 and 500', 'validation'),
  only_crypto_currency: entry('crypto_batch', 'only crypto currency supported', 'business'),
  method_id_required: entry('crypto_batch', 'method_id required', 'validation'),
  method_not_crypto: entry('crypto_batch', 'payout method not supported for crypto', 'business'),
  order_no_required: entry('crypto_batch', 'order_no required', 'validation'),
  duplicate_order_no_in_request: entry('crypto_batch', 'duplicate order_no in request', 'business'),
  duplicate_order_no_in_batch: entry('crypto_batch', 'duplicate order_no in batch', 'business'),
  duplicate_order_no_in_payouts: entry(
    'crypto_batch',
    'duplicate order_no in merchant payouts',
    'business',
  ),
  address_key_required: entry('crypto_batch', 'beneficiary_account.address required', 'validation'),
  receiving_address_required: entry('crypto_batch', 'receiving address required', 'validation'),
  invalid_evm_address: entry('crypto_batch', 'invalid EVM receiving address', 'validation'),
  invalid_tron_address: entry('crypto_batch', 'invalid TRON receiving address', 'validation'),
  duplicate_receiving_address: entry(
    'crypto_batch',
    'duplicate receiving address in batch request',
    'business',
  ),
  batch_not_found: entry('crypto_batch', 'batch not found', 'not_found'),
  batch_not_editable: entry('crypto_batch', 'batch not editable', 'business'),
  batch_not_ready_for_submit: entry('crypto_batch', 'batch not ready for submit', 'business'),
  batch_has_no_items: entry('crypto_batch', 'batch has no items', 'business'),
  batch_not_approved: entry('crypto_batch', 'batch not approved', 'business'),
  batch_multiple_channel_accounts: entry(
    'crypto_batch',
    'batch contains multiple payout channel accounts',
    'business',
  ),
  split_batch_by_route: entry('crypto_batch', 'split batch by route', 'business'),
  batch_approver_is_creator: entry(
    'crypto_batch',
    'batch must be approved by a key other than its creator',
    'business',
    'payrail',
  ),
  batch_approver_added_items: entry(
    'crypto_batch',
    'batch must be approved by a key that did not add its items',
    'business',
    'payrail',
  ),
  batch_changed: entry(
    'crypto_batch',
    'batch changed since the version approved',
    'business',
    'payrail',
  ),

  // Acquiring
  order_currency_only_usd: entry('acquiring', 'order_currency only supports USD', 'validation'),
  order_amount_positive: entry('acquiring', 'order_amount must be > 0', 'validation'),
  expire_seconds_range: entry(
    'acquiring',
    'expire_seconds must be between 60 and 10800',
    'validation',
  ),
  underpay_tolerance_non_negative: entry(
    'acquiring',
    'underpay_tolerance must be >= 0',
    'validation',
  ),
  underpay_tolerance_below_amount: entry(
    'acquiring',
    'underpay_tolerance must be less than order_amount',
    'validation',
    'payrail',
  ),
  allowed_pay_currencies_required: entry(
    'acquiring',
    'allowed_pay_currencies required',
    'validation',
  ),
  notify_webhook_id_required: entry('acquiring', 'notify_webhook_id required', 'validation'),
  notify_webhook_id_invalid: entry(
    'acquiring',
    'notify_webhook_id invalid or inactive',
    'business',
  ),
  notify_webhook_id_not_subscribed: entry(
    'acquiring',
    'notify_webhook_id not subscribed to acquiring events',
    'business',
  ),
  redirect_url_invalid: entry(
    'acquiring',
    'redirect_url must be an absolute https URL or a same-origin relative path',
    'validation',
  ),
  logo_url_invalid: entry('acquiring', 'logo_url must be an absolute https URL', 'validation'),
  mode_invalid: entry('acquiring', 'mode must be checkout or direct', 'validation'),
  checkout_type_unsupported: entry('acquiring', 'unsupported checkout_type', 'business'),
  network_currency_required: entry('acquiring', 'network/currency required', 'validation'),
  network_currency_not_allowed: entry(
    'acquiring',
    'network/currency not allowed by order',
    'business',
  ),
  network_currency_unsupported: entry(
    'acquiring',
    'unsupported network/currency: <network>/<currency>',
    'business',
  ),
  no_available_pay_tokens: entry(
    'acquiring',
    'no available pay tokens for current account',
    'business',
  ),
  order_not_found: entry('acquiring', 'order not found', 'not_found'),
  completed_order_cannot_be_closed: entry(
    'acquiring',
    'completed order cannot be closed',
    'business',
  ),
  checkout_url_not_found: entry('acquiring', 'checkout_url not found', 'not_found'),
  invalid_pay_currency: entry('acquiring', 'invalid pay currency: <id>', 'validation', 'decisions'),
  order_already_final: entry('acquiring', 'order already final', 'business', 'decisions'),
  out_trade_no_already_exists: entry(
    'acquiring',
    'out_trade_no already exists',
    'business',
    'decisions',
  ),
  // Refunds and resolutions of orders (issue 21, ADR 0044)
  refund_not_found: entry('acquiring', 'refund not found', 'not_found', 'payrail'),
  refund_type_invalid: entry(
    'acquiring',
    'refund_type must be full, partial or overpaid',
    'validation',
    'payrail',
  ),
  invalid_refund_address: entry(
    'acquiring',
    'invalid <network> refund address',
    'validation',
    'payrail',
  ),
  order_not_refundable: entry(
    'acquiring',
    'only a completed, underpaid, expired_paid or refused order can be refunded',
    'business',
    'payrail',
  ),
  refund_token_not_paid: entry(
    'acquiring',
    'token not paid on order: <token_id>',
    'business',
    'payrail',
  ),
  nothing_to_refund: entry('acquiring', 'nothing left to refund', 'business', 'payrail'),
  refund_exceeds_refundable: entry(
    'acquiring',
    'refund amount exceeds refundable amount <refundable>',
    'business',
    'payrail',
  ),
  insufficient_balance: entry('acquiring', 'insufficient balance', 'business', 'payrail'),
  invalid_refund_status: entry('acquiring', 'invalid refund status', 'business', 'payrail'),
  refund_approved_by_requester: entry(
    'acquiring',
    'refund must be approved by an operator other than its requester',
    'business',
    'payrail',
  ),
  client_refund_id_already_used: entry(
    'acquiring',
    'client_refund_id already used',
    'business',
    'payrail',
  ),
  order_not_resolvable: entry(
    'acquiring',
    'only an underpaid, expired or expired_paid order can be resolved',
    'business',
    'payrail',
  ),
  order_already_resolved: entry('acquiring', 'order already resolved', 'business', 'payrail'),
  nothing_to_accept: entry(
    'acquiring',
    'order has no confirmed payment to accept',
    'business',
    'payrail',
  ),

  // Webhook management (docs/spec/decisions.md §5)
  invalid_webhook_url: entry('webhook', 'invalid webhook url', 'validation', 'payrail'),
  invalid_webhook_event: entry(
    'webhook',
    'invalid webhook event: <event>',
    'validation',
    'payrail',
  ),
  webhook_not_found: entry('webhook', 'webhook not found', 'not_found', 'payrail'),

  // Platform-side webhook receiving
  webhook_ip_not_allowed: entry('upstream', 'webhook ip not allowed', 'permission'),
  unsupported_acquiring_provider: entry(
    'upstream',
    'unsupported acquiring webhook provider: <provider>',
    'not_found',
  ),
  empty_upstream_event: entry('upstream', 'empty upstream webhook event', 'request'),
  invalid_upstream_deposit_payload: entry(
    'upstream',
    'invalid upstream merchant deposit payload',
    'validation',
  ),
  acquiring_order_not_found: entry('upstream', 'acquiring order not found', 'business'),
  merchant_deposit_address_not_found: entry(
    'upstream',
    'merchant deposit address not found',
    'business',
  ),
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCatalogue = typeof errorCatalogue;
export type ErrorKey = keyof ErrorCatalogue;

/** `'a <x> b <y>'` -> `'x' | 'y'`. */
type Placeholders<M extends string> = M extends `${string}<${infer P}>${infer Rest}`
  ? P | Placeholders<Rest>
  : never;

/** The parameters a message needs: `{}` for a fixed message, `{ country: string }` for a template. */
export type ErrorParams<K extends ErrorKey> = {
  readonly [P in Placeholders<ErrorCatalogue[K]['message']>]: string | number;
};

/**
 * What a `forbidden` names beside its message, which stays the interface's bare word (ADR 0050):
 * the permissions the credential lacks (an API key's, or an operator role's), or the product the
 * account has not enabled. The HTTP adapter answers it in headers, since the interface fixes an
 * error's `data` to `null`.
 */
export type AccessRefusal =
  | { readonly missingPermissions: readonly string[] }
  | { readonly productNotEnabled: 'payout' | 'acquiring' };

/** An error as data: what the HTTP envelope, a log line or a test needs, and nothing else. */
interface KeyedPayrailError<K extends ErrorKey> {
  readonly _tag: 'PayrailError';
  readonly key: K;
  /** The values of the message's placeholders, kept as data; `message` is derived from them. */
  readonly params: ErrorParams<K>;
  readonly message: string;
  readonly kind: ErrorKind;
  readonly httpStatus: ErrorPolicy['httpStatus'];
  readonly code: ErrorPolicy['code'];
  readonly retryable: boolean;
  /** Why access was refused, when `forbidden` knows (`forbiddenFor`); no other key has one. */
  readonly refusal?: K extends 'forbidden' ? AccessRefusal : never;
}

/**
 * The error of key `K`; of any key, the union of every key's error, so `switch (error.key)`
 * narrows `params` to the placeholders of that key's message.
 */
export type PayrailError<K extends ErrorKey = ErrorKey> = K extends ErrorKey
  ? KeyedPayrailError<K>
  : never;

/** A key whose message has no placeholders: its error is the key alone. */
export type PlainErrorKey = {
  [K in ErrorKey]: [Placeholders<ErrorCatalogue[K]['message']>] extends [never] ? K : never;
}[ErrorKey];

type ParamArgs<K extends ErrorKey> = [Placeholders<ErrorCatalogue[K]['message']>] extends [never]
  ? []
  : [params: ErrorParams<K>];

/** What the builder below knows of any error: placeholders by name, whatever the key. */
interface AnyKeyPayrailError extends Omit<KeyedPayrailError<ErrorKey>, 'params'> {
  readonly params: Readonly<Record<string, string | number>>;
}

/**
 * Builds the catalogue's error `key`, filling the message's placeholders from `params`. The
 * signature ties `params` to the key's message; the body fills any template alike.
 */
export function payrailError<K extends ErrorKey>(key: K, ...params: ParamArgs<K>): PayrailError<K>;
export function payrailError(
  key: ErrorKey,
  params: Readonly<Record<string, string | number>> = {},
): AnyKeyPayrailError {
  const { message: template, kind } = errorCatalogue[key];
  const message = template.replace(/<([a-z_]+)>/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  );
  const policy = errorPolicies[kind];
  return {
    _tag: 'PayrailError',
    key,
    params,
    message,
    kind,
    httpStatus: policy.httpStatus,
    code: policy.code,
    retryable: policy.retryable,
  };
}

/** `forbidden`, naming what is missing (ADR 0050); its message is `forbidden` all the same. */
export const forbiddenFor = (refusal: AccessRefusal): PayrailError<'forbidden'> => ({
  ...payrailError('forbidden'),
  refusal,
});

export const isPayrailError = (value: unknown): value is PayrailError =>
  typeof value === 'object' && value !== null && '_tag' in value && value._tag === 'PayrailError';

/** The `{code, message, data}` envelope of an error answer. */
export const errorEnvelope = (error: PayrailError) =>
  ({ code: error.code, message: error.message, data: null }) as const;

/** Exhaustive fold over error kinds: a new kind fails to compile until every caller handles it. */
export const foldErrorKind = <R>(
  error: PayrailError,
  cases: { readonly [K in ErrorKind]: (error: PayrailError) => R },
): R => cases[error.kind](error);
