/**
 * Schemas of the codecs whose rules no io-ts structure shows: the core builds its request
 * codecs with `codecOf` / `codecFromCheck` (ordered checks that answer catalogue messages), so
 * the converter finds them here by the codec's `name`. Enumerations come from the same constants
 * the checks use; `x-payrail-codec` marks each schema as written by hand beside the converter.
 *
 * The payout configuration, review, sandbox execution and clock bodies of the admin API have no
 * core codec (the engine decodes them with plain functions): they are described here under names
 * of their own (`namedBody`), from decisions §8's table.
 */
import {
  accountStatuses,
  apiKeyEnvironments,
  apiKeyLimits,
  apiKeyPatchStatuses,
  apiKeyPermissions,
  beneficiaryAccountStatuses,
  beneficiaryFieldKeys,
  beneficiaryStatuses,
  chainNetworks,
  checkoutTypes,
  cryptoCurrencies,
  cryptoNetworkCodes,
  currencies,
  expireSecondsRange,
  feeBearers,
  fiatCurrencies,
  maxBatchItems,
  merchantNameMaxLength,
  orderModes,
  payoutConfigStatuses,
  payoutCurrencyTypes,
  payTokenIds,
  reviewActions,
  sandboxExecutionOutcomes,
  sandboxPaymentStatuses,
} from '@payrail/core';
import {
  arraySchema,
  decimalSchema,
  enumSchema,
  integerSchema,
  type JsonSchema,
  objectSchema,
  stringSchema,
} from './json-schema.js';

const handWritten = (codec: string, schema: JsonSchema): JsonSchema => ({
  ...schema,
  'x-payrail-codec': codec,
});

const label = (max: number, description?: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: max,
  ...(description === undefined ? {} : { description }),
});

const methodId = integerSchema('payout method id (payout-methods lookup)');
const httpsUrl = stringSchema('absolute https URL');

const fieldPatterns: Readonly<Record<string, JsonSchema>> = {
  payee_id: { type: 'string', pattern: '^[a-zA-Z0-9]{3,60}$' },
  language: { type: 'string', pattern: '^[a-zA-Z]{2}$' },
  country: { type: 'string', pattern: '^[A-Z]{2}$', description: 'ISO-2, upper case' },
  phone: { type: 'string', pattern: '^(\\+?\\d{1,3}-)?\\d{4,12}$' },
  birthdate: { type: 'string', format: 'date', description: 'yyyy-MM-dd' },
  email: { type: 'string', format: 'email' },
  first_name: { type: 'string', minLength: 3, maxLength: 100, pattern: "^[\\p{L}' -]+$" },
  last_name: { type: 'string', minLength: 3, maxLength: 100, pattern: "^[\\p{L}' -]+$" },
  zip: { type: 'string', minLength: 3, maxLength: 30, description: "matches the country's format" },
  city: { type: 'string', minLength: 2, maxLength: 120 },
  state: { type: 'string', minLength: 2, maxLength: 60 },
  address: { type: 'string', minLength: 3, maxLength: 200 },
};

const beneficiaryFields = objectSchema(
  Object.fromEntries(beneficiaryFieldKeys.map((key) => [key, fieldPatterns[key] ?? {}])),
  ['payee_id'],
  {
    additionalProperties: false,
    description: 'recipient profile; which keys a route requires: `beneficiary profile incomplete`',
  },
);

const beneficiary = objectSchema(
  { name: label(200, 'recipient name'), fields: beneficiaryFields },
  ['name', 'fields'],
);

const beneficiaryAccount = objectSchema(
  {
    network_code: stringSchema('receiving network code (payout-networks lookup), e.g. WALLETA'),
    display_name: label(100),
    fields: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: "keys of the network's schema only (walleta_email, walletb_account, address)",
    },
    account_type: label(64, 'send only the value the service gave'),
  },
  ['network_code', 'fields'],
);

const payoutFields = {
  currency: enumSchema(fiatCurrencies),
  amount: decimalSchema('greater than 0, at most the currency scale of decimals'),
  method_id: methodId,
  channel_id: label(64, 'only with method_id'),
  notify_url: httpsUrl,
  beneficiary_account_id: label(64, 'reuses an earlier-created receiving account'),
  fee_bearer: enumSchema(feeBearers),
  beneficiary,
  beneficiary_account: beneficiaryAccount,
} as const;

const statusPatch = (codec: string, statuses: readonly string[]) =>
  handWritten(codec, objectSchema({ status: enumSchema(statuses) }, ['status']));

const cryptoItem = objectSchema(
  {
    order_no: label(64, "unique per merchant; becomes the item's payout reference"),
    amount: decimalSchema('greater than 0, at the batch currency scale'),
    beneficiary_account: objectSchema(
      {
        address: stringSchema('EVM (0x...) or TRON (T...) address'),
        network_code: enumSchema(cryptoNetworkCodes),
        display_name: stringSchema(),
      },
      ['address'],
    ),
  },
  ['order_no', 'amount', 'beneficiary_account'],
);
const cryptoItems = arraySchema(cryptoItem, { minItems: 1, maxItems: maxBatchItems });

export const namedSchemas = {
  BeneficiaryFields: handWritten('BeneficiaryFields', beneficiaryFields),
  Beneficiary: handWritten('Beneficiary', beneficiary),
  BeneficiaryAccount: handWritten('BeneficiaryAccount', beneficiaryAccount),
  PayoutCreateRequest: handWritten(
    'PayoutCreateRequest',
    objectSchema(
      {
        client_request_id: label(64, 'idempotency: an identical repeat answers the original'),
        ...payoutFields,
        reference: label(64, 'merchant business order number, unique'),
        submit: { type: 'boolean', default: true },
        account_type: label(64),
      },
      ['currency', 'amount', 'reference', 'notify_url'],
      {
        description:
          'either beneficiary_account_id, or both beneficiary and beneficiary_account (with method_id)',
      },
    ),
  ),
  PayoutUpdateRequest: handWritten(
    'PayoutUpdateRequest',
    objectSchema(payoutFields, [], { minProperties: 1, description: 'only draft or returned' }),
  ),
  BeneficiaryCreateRequest: handWritten(
    'BeneficiaryCreateRequest',
    objectSchema(
      { method_id: methodId, channel_id: label(64), name: label(200), fields: beneficiaryFields },
      ['method_id', 'name', 'fields'],
    ),
  ),
  BeneficiaryPatchRequest: statusPatch('BeneficiaryPatchRequest', beneficiaryStatuses),
  BeneficiaryAccountCreateRequest: handWritten(
    'BeneficiaryAccountCreateRequest',
    objectSchema(
      {
        beneficiary_id: label(64),
        ...(beneficiaryAccount.properties as Record<string, JsonSchema>),
      },
      ['beneficiary_id', 'network_code', 'fields'],
    ),
  ),
  BeneficiaryAccountPatchRequest: statusPatch(
    'BeneficiaryAccountPatchRequest',
    beneficiaryAccountStatuses,
  ),
  AcquiringOrderCreateRequest: handWritten(
    'AcquiringOrderCreateRequest',
    objectSchema(
      {
        out_trade_no: label(64, 'merchant order number, unique'),
        order_currency: enumSchema(['USD']),
        order_amount: decimalSchema('greater than 0, USD scale'),
        allowed_pay_currencies: arraySchema(enumSchema(payTokenIds), {
          description: "omitted: the account's default tokens",
        }),
        expire_seconds: {
          type: 'integer',
          minimum: expireSecondsRange.min,
          maximum: expireSecondsRange.max,
        },
        underpay_tolerance: decimalSchema('0 or greater, USD scale'),
        notify_webhook_id: label(128, 'an active webhook subscribed to acquiring events'),
        redirect_url: stringSchema('absolute https URL or same-origin relative path'),
        logo_url: httpsUrl,
        remark: label(256),
        mode: { ...enumSchema(orderModes), default: 'checkout' },
        checkout_type: { ...enumSchema(checkoutTypes), default: 'hosted' },
        network: enumSchema(Object.keys(chainNetworks)),
        currency: enumSchema(cryptoCurrencies),
        redirect_automatically: {
          type: 'boolean',
          default: false,
          description:
            'once completed, the hosted page goes to redirect_url by itself after a few seconds; a JSON boolean only (null: false)',
        },
      },
      [
        'out_trade_no',
        'order_currency',
        'order_amount',
        'expire_seconds',
        'underpay_tolerance',
        'notify_webhook_id',
      ],
      { description: 'network and currency go together; mode direct requires them' },
    ),
  ),
  AcquiringOrderCloseRequest: handWritten(
    'AcquiringOrderCloseRequest',
    objectSchema({ reason: label(256) }, ['reason']),
  ),
  PayTokenSelectionRequest: handWritten(
    'PayTokenSelectionRequest',
    objectSchema(
      { network: enumSchema(Object.keys(chainNetworks)), currency: enumSchema(cryptoCurrencies) },
      ['network', 'currency'],
    ),
  ),
  CryptoBatchCreateRequest: handWritten(
    'CryptoBatchCreateRequest',
    objectSchema(
      {
        currency: enumSchema(cryptoCurrencies),
        method_id: methodId,
        // Optional: without items the batch is an empty draft whose items come later.
        items: cryptoItems,
        submit: { type: 'boolean', default: true },
      },
      ['currency', 'method_id'],
    ),
  ),
  CryptoBatchItemsRequest: handWritten(
    'CryptoBatchItemsRequest',
    objectSchema({ items: cryptoItems }, ['items']),
  ),

  // decisions §8 (admin API), core codecs
  MerchantCreateRequest: handWritten(
    'MerchantCreateRequest',
    objectSchema(
      {
        name: label(merchantNameMaxLength),
        currencies: arraySchema(enumSchema(currencies), {
          minItems: 1,
          description: 'every currency the service knows unless sent',
        }),
      },
      ['name'],
    ),
  ),
  AccountUpdateRequest: handWritten(
    'AccountUpdateRequest',
    objectSchema(
      {
        status: enumSchema(accountStatuses),
        verification_enabled: { type: 'boolean' },
        auto_approve: { type: 'boolean' },
        products: objectSchema({ payout: { type: 'boolean' }, acquiring: { type: 'boolean' } }),
        enabled_pay_tokens: arraySchema(enumSchema(payTokenIds)),
        default_pay_tokens: arraySchema(enumSchema(payTokenIds)),
      },
      [],
      { minProperties: 1 },
    ),
  ),
  ApiKeyIssueRequest: handWritten(
    'ApiKeyIssueRequest',
    objectSchema(
      {
        permissions: arraySchema(enumSchema(apiKeyPermissions)),
        env: enumSchema(apiKeyEnvironments),
        ip_whitelist: arraySchema(stringSchema('IP address or CIDR block'), {
          maxItems: apiKeyLimits.maxIpWhitelist,
        }),
        expires_in_seconds: {
          type: 'integer',
          minimum: apiKeyLimits.minExpiresInSeconds,
          maximum: apiKeyLimits.maxExpiresInSeconds,
          default: apiKeyLimits.defaultExpiresInSeconds,
        },
        name: { type: 'string', maxLength: apiKeyLimits.maxNameLength },
      },
      ['permissions'],
    ),
  ),
  ApiKeyUpdateRequest: handWritten(
    'ApiKeyUpdateRequest',
    objectSchema({ status: enumSchema(apiKeyPatchStatuses) }, ['status']),
  ),
  AccountCreditRequest: handWritten(
    'AccountCreditRequest',
    objectSchema({ currency: enumSchema(currencies), amount: decimalSchema('greater than 0') }, [
      'currency',
      'amount',
    ]),
  ),
  SandboxPaymentRequest: handWritten(
    'SandboxPaymentRequest',
    objectSchema(
      {
        token_id: enumSchema(payTokenIds),
        amount: decimalSchema(),
        status: enumSchema(sandboxPaymentStatuses),
        tx_hash: stringSchema(),
        payment_id: stringSchema('an update of an earlier payment'),
      },
      ['token_id', 'amount', 'status'],
    ),
  ),

  // decisions §8 (admin API), decoded without a core codec
  PayoutReviewRequest: handWritten(
    'PayoutReviewRequest',
    objectSchema({ action: enumSchema(reviewActions), reason: stringSchema() }, ['action']),
  ),
  PayoutMethodRequest: handWritten(
    'PayoutMethodRequest',
    objectSchema(
      {
        method_id: integerSchema('the next free id when absent'),
        name: label(64),
        currency_type: enumSchema(payoutCurrencyTypes),
        currencies: arraySchema(enumSchema(currencies), { minItems: 1, uniqueItems: true }),
        network_codes: arraySchema(stringSchema('a payout network code'), { minItems: 1 }),
        channel_ids: arraySchema(label(64)),
        status: enumSchema(payoutConfigStatuses),
      },
      ['name', 'currency_type', 'currencies', 'network_codes'],
      { description: 'PATCH: the sent fields over the current method, checked as a create' },
    ),
  ),
  PayoutNetworkRequest: handWritten(
    'PayoutNetworkRequest',
    objectSchema(
      {
        code: { type: 'string', pattern: '^[A-Z0-9_]{2,32}$' },
        name: stringSchema('defaults to the code'),
        fields: arraySchema(
          objectSchema(
            {
              field_key: stringSchema(),
              required: { type: 'boolean', default: true },
              validation_rule: { type: 'string', default: '' },
            },
            ['field_key'],
          ),
          { minItems: 1 },
        ),
        status: enumSchema(payoutConfigStatuses),
      },
      ['code', 'fields'],
      { description: 'PATCH: name, fields or status' },
    ),
  ),
  PayoutRouteRequest: handWritten(
    'PayoutRouteRequest',
    objectSchema(
      {
        account_id: label(64, 'absent: a route for every account'),
        currency: enumSchema(currencies),
        method_id: methodId,
        channel_id: label(64, 'absent: any channel of the method'),
        min_amount: decimalSchema('inclusive, at the currency scale'),
        max_amount: decimalSchema('inclusive, at the currency scale'),
        fixed_fee: decimalSchema('at the currency scale'),
        percent_fee: {
          type: 'string',
          pattern: '^(0|[1-9][0-9]{0,2})(\\.[0-9]{1,4})?$',
          default: '0',
          description: 'percent of the amount, 0-100',
        },
        channel_account_id: label(64, 'absent: payouts answer `channel account not configured`'),
        required_beneficiary_fields: arraySchema(enumSchema(beneficiaryFieldKeys)),
        status: enumSchema(payoutConfigStatuses),
      },
      ['currency', 'method_id', 'min_amount', 'max_amount'],
      { description: 'PATCH: the sent fields over the current route, checked as a create' },
    ),
  ),
  SandboxExecutionRequest: handWritten(
    'SandboxExecutionRequest',
    objectSchema({ outcome: enumSchema(sandboxExecutionOutcomes), reason: stringSchema() }, [
      'outcome',
    ]),
  ),
  SandboxClockAdvanceRequest: handWritten(
    'SandboxClockAdvanceRequest',
    objectSchema({ seconds: { type: 'integer', minimum: 0 } }, ['seconds']),
  ),
} satisfies Readonly<Record<string, JsonSchema>>;

/** A stand-in for a body the engine decodes without a core codec (the admin bodies). */
export const namedBody = (name: keyof typeof namedSchemas): { readonly name: string } => ({ name });
