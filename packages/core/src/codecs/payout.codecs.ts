/**
 * The payout-side request bodies: quick payout create, payout PATCH, and the standalone
 * beneficiary and beneficiary-account endpoints (decisions.md §2, §3), built on the codec toolkit.
 * Everything here is checked without storage; what needs storage (routes, fees, existing
 * beneficiaries, duplicates) is the engine's, and an inline account's network schema is checked
 * by `decodePayoutCreate` / `decodePayoutUpdate` once the codec's rules hold.
 *
 * Precedence, when several rules break at once (the first broken rule is the answer):
 *  1. body: not a JSON object -> `request required` (a PATCH naming nothing editable -> `no changes`);
 *  2. required fields, in the interface's table order: currency, amount, reference, notify_url
 *     (absent, `null` or blank);
 *  3. each field's type and format, in the table's order: client_request_id, currency, amount,
 *     method_id, channel_id, reference, notify_url, beneficiary, beneficiary_account,
 *     beneficiary_account_id, fee_bearer, submit, account_type (the inline objects: only that
 *     they are objects);
 *  4. cross-field rules: channel_id needs method_id; the inline pair goes together; an id or the
 *     pair must be there; creating inline needs method_id;
 *  5. the inline objects: beneficiary (name, fields), then beneficiary_account (shape, then its
 *     network's schema).
 * Stages 1-4 are one request (`required`, `format`, `rules`); stage 5 decodes the inline objects
 * after it, as the second member of the outer request's format (io-ts reports an intersection's
 * failures in member order). Keys the request does not define are ignored; `null` is read as
 * absent.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import type { FeeBearer } from '../money/fees.js';
import {
  type FiatCurrency,
  fiatCurrencies,
  isPositive,
  parseAmount,
  scaleOf,
} from '../money/money.js';
import { Beneficiary, BeneficiaryFields, BeneficiaryName } from './beneficiary.codecs.js';
import {
  BeneficiaryAccount,
  beneficiaryAccountFields,
  checkAccountNetwork,
  labelLeaf,
  type NetworkLookup,
} from './beneficiary-account.codecs.js';
import {
  codecOf,
  decodeWith,
  defined,
  fail,
  isJsonObject,
  isOneOf,
  leaf,
  leafFrom,
  oneOfLeaf,
  present,
  request,
  requiredField,
  rule,
  shapeLeaf,
  wholeNumberLeaf,
  withDefault,
} from './codec-toolkit.js';

// ---------------------------------------------------------------------------------------------
// Field rules shared by the requests

/** Who pays the fee: the merchant on top of the amount (default), or the user out of it. */
const feeBearers = ['merchant', 'user'] as const satisfies readonly FeeBearer[];

/** Quick payouts pay out fiat only; anything else is `currency not supported`. */
const isFiatCurrency = isOneOf(fiatCurrencies);

const hostLabel = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * A DNS name of letter-digit-hyphen labels (IDNs as punycode), or an IP literal (`[...]`, which
 * the WHATWG parser has validated as an IPv6 address by then).
 */
const isUrlHost = (hostname: string): boolean =>
  hostname.startsWith('[') ||
  (hostname.length <= 253 && hostname.split('.').every((label) => hostLabel.test(label)));

/** What the core reads of a WHATWG `URL`. */
interface ParsedUrl {
  readonly username: string;
  readonly password: string;
  readonly hostname: string;
  readonly port: string;
}

/**
 * The WHATWG URL parser. Every runtime payrail supports (Node, Deno, Bun, browsers, workers) has
 * it as the global `URL`; the core compiles against plain ES2023 (no DOM, no Node types), so it
 * is declared here, reduced to what is read.
 */
declare const URL: new (input: string) => ParsedUrl;

/**
 * A callback URL: absolute, `https` (also `http` when the sandbox allows insecure webhooks), a
 * DNS name or IP literal as host, an optional port 1-65535, no credentials, no whitespace or
 * control characters, at most 2048 characters. Where it resolves to is checked at delivery time
 * (SSRF guard), not here.
 *
 * The WHATWG `URL` parses it, the scheme checked apart and swapped for a non-special one: a
 * special scheme would run the host through IDNA and IPv4 parsing, which refuses DNS names this
 * rule accepts (a label starting `xn--` that is not valid punycode) and accepts hosts it refuses
 * (percent-encoded or non-ASCII), and would read `https:/x` or a backslash as if `//` had been
 * written. What the parser forgives on any scheme is refused first on the text as sent:
 * whitespace and control characters (it strips them), an `@` with empty credentials and a `:`
 * with no port after it.
 */
export const isNotifyUrl = (
  value: unknown,
  options: { readonly allowHttp?: boolean } = {},
): value is string => {
  if (typeof value !== 'string' || value.length > 2048 || /[\s\p{Cc}]/u.test(value)) return false;
  const colon = value.indexOf(':');
  const scheme = colon < 0 ? '' : value.slice(0, colon).toLowerCase();
  if (scheme !== 'https' && !(scheme === 'http' && options.allowHttp === true)) return false;
  const afterScheme = value.slice(colon + 1);
  const authority = afterScheme.startsWith('//')
    ? (afterScheme.slice(2).split(/[/?#]/, 1)[0] ?? '')
    : '';
  let url: ParsedUrl;
  try {
    url = new URL(`payrail-notify:${afterScheme}`);
  } catch {
    return false;
  }
  if (authority.includes('@') || authority.endsWith(':')) return false;
  if (url.username !== '' || url.password !== '' || !isUrlHost(url.hostname)) return false;
  // The parser refuses a port past 65535; 0 it takes.
  return url.port === '' || Number(url.port) >= 1;
};

const MethodId = wholeNumberLeaf(
  'MethodId',
  { minimum: 1 },
  'validation_failed',
  'payout method id (payout-methods lookup)',
);

const Currency = oneOfLeaf('FiatCurrency', fiatCurrencies, 'currency_not_supported');

/**
 * A PATCH amount sent without its currency is checked at the fiat currency with the largest scale
 * (the engine re-checks it at the payout's own currency).
 */
const widestFiatCurrency: FiatCurrency = fiatCurrencies.reduce((a, b) =>
  scaleOf(b) > scaleOf(a) ? b : a,
);

/** A decimal string greater than zero, at the scale of the currency sent beside it. */
const Amount = leafFrom<string>(
  'PayoutAmount',
  (u): u is string => typeof u === 'string',
  (u, sibling) => {
    const currency = sibling('currency');
    // A sign is accepted by the parser only so that "-5" answers "greater than zero".
    return pipe(
      parseAmount(u, isFiatCurrency(currency) ? currency : widestFiatCurrency, {
        allowNegative: true,
      }),
      E.filterOrElse(isPositive, (): PayrailError => payrailError('amount_must_be_positive')),
      // Kept as sent: parseAmount parses strings only, so `u` is one here and `String` keeps it.
      E.map(() => String(u)),
    );
  },
  {
    type: 'string',
    pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$',
    description: 'greater than 0, at most the currency scale of decimals',
  },
);

/**
 * The notify_url leaf (`invalid notify_url` unless `isNotifyUrl`); `allowHttp` in the sandbox with
 * insecure webhooks. Payouts and crypto batches read their notify_url with it.
 */
export const notifyUrl = (allowHttp: boolean) =>
  leaf<string>(
    'NotifyUrl',
    (u): u is string => isNotifyUrl(u, { allowHttp }),
    'invalid_notify_url',
    { type: 'string', format: 'uri', maxLength: 2048, description: 'absolute https URL' },
  );

/** Stage 3 of an inline object: only that it is an object (its contents come last). */
const inlineObject = (name: string) =>
  shapeLeaf<unknown>(name, (u): u is unknown => isJsonObject(u), 'validation_failed', {
    type: 'object',
  });

const FeeBearerField = oneOfLeaf('FeeBearer', feeBearers, 'fee_bearer_invalid');

const Submit = leaf<boolean>(
  'Submit',
  (u): u is boolean => typeof u === 'boolean',
  'validation_failed',
  { type: 'boolean' },
);

const ChannelId = labelLeaf('ChannelId', 64, 'only with method_id');
const BeneficiaryAccountId = labelLeaf(
  'BeneficiaryAccountId',
  64,
  'reuses an earlier-created receiving account; else send both beneficiary and beneficiary_account (with method_id)',
);

/** Stage 5: the inline pair's contents, once the body's own rules hold. */
const inlinePair = t.partial({ beneficiary: Beneficiary, beneficiary_account: BeneficiaryAccount });

/** What the cross-field rules read of a payout body (create or PATCH). */
interface CrossFieldKeys {
  readonly method_id?: number;
  readonly channel_id?: string;
  readonly beneficiary?: unknown;
  readonly beneficiary_account?: unknown;
  readonly beneficiary_account_id?: string;
}

const channelNeedsMethod = (error: PayrailError) =>
  rule(
    (body: CrossFieldKeys) => body.channel_id === undefined || body.method_id !== undefined,
    () => error,
  );

const pairTogether = rule(
  (body: CrossFieldKeys) =>
    (body.beneficiary === undefined) === (body.beneficiary_account === undefined),
  () => payrailError('beneficiary_pair_required'),
);

export interface PayoutOptions {
  /** Sandbox with PAYRAIL_ALLOW_INSECURE_WEBHOOKS=1: an `http` notify_url is accepted too. */
  readonly allowInsecureNotifyUrl?: boolean;
}

export interface PayoutDecodeOptions extends PayoutOptions {
  /** Finds the receiving network of an inline beneficiary_account. */
  readonly lookupNetwork: NetworkLookup;
}

/** The inline account against its network, when there is one. */
const withAccountNetwork =
  (lookupNetwork: NetworkLookup) =>
  <A extends { readonly beneficiary_account?: BeneficiaryAccount }>(
    request: A,
  ): E.Either<PayrailError, A> =>
    request.beneficiary_account === undefined
      ? E.right(request)
      : pipe(
          checkAccountNetwork(request.beneficiary_account, lookupNetwork),
          E.map((account) => ({ ...request, beneficiary_account: account })),
        );

// ---------------------------------------------------------------------------------------------
// Quick payout create

const payoutCreateRequest = (options: PayoutOptions) =>
  request('PayoutCreateRequest', {
    format: t.intersection([
      request('PayoutCreateFields', {
        required: t.type({
          currency: present(payrailError('currency_required')),
          amount: present(payrailError('field_required', { field: 'amount' })),
          reference: present(payrailError('reference_required')),
          notify_url: present(payrailError('field_required', { field: 'notify_url' })),
        }),
        format: t.intersection([
          t.intersection([
            t.partial({
              client_request_id: labelLeaf(
                'ClientRequestId',
                64,
                'idempotency: an identical repeat answers the original',
              ),
            }),
            t.type({ currency: Currency, amount: Amount }),
            t.partial({ method_id: MethodId, channel_id: ChannelId }),
            t.type({
              reference: labelLeaf('Reference', 64, 'merchant business order number, unique'),
              notify_url: notifyUrl(options.allowInsecureNotifyUrl === true),
            }),
          ]),
          t.intersection([
            t.partial({
              beneficiary: inlineObject('InlineBeneficiary'),
              beneficiary_account: inlineObject('InlineBeneficiaryAccount'),
              beneficiary_account_id: BeneficiaryAccountId,
            }),
            t.type({
              /** `merchant` unless sent. */
              fee_bearer: withDefault(FeeBearerField, 'merchant'),
              /** `true` unless sent. */
              submit: withDefault(Submit, true),
            }),
            t.partial({ account_type: labelLeaf('AccountType', 64) }),
          ]),
        ]),
        rules: [
          channelNeedsMethod(payrailError('channel_id_requires_method_id')),
          pairTogether,
          rule(
            (body: CrossFieldKeys) =>
              body.beneficiary_account_id !== undefined || body.beneficiary !== undefined,
            () => payrailError('beneficiary_account_id_required'),
          ),
          rule(
            (body: CrossFieldKeys) =>
              body.beneficiary === undefined ||
              body.beneficiary_account_id !== undefined ||
              body.method_id !== undefined,
            () => payrailError('method_id_required_inline'),
          ),
        ],
      }),
      inlinePair,
    ]),
  });

/**
 * `POST /payment/quickpayout`, decoded: defaults filled (fee_bearer merchant, submit true); every
 * storage-free rule except the inline account's network schema (see `decodePayoutCreate`).
 * notify_url must be https.
 */
export const PayoutCreateRequest = payoutCreateRequest({});
export type PayoutCreateRequest = t.TypeOf<typeof PayoutCreateRequest>;
const InsecurePayoutCreateRequest = payoutCreateRequest({ allowInsecureNotifyUrl: true });

/**
 * A payout body's decoder: `strict`'s rules (`insecure`'s where the options allow an `http`
 * notify_url), then the inline account's network schema.
 */
const payoutDecoder =
  <A extends { readonly beneficiary_account?: BeneficiaryAccount }>(
    strict: t.Type<A, A, unknown>,
    insecure: t.Type<A, A, unknown>,
  ) =>
  (input: unknown, options: PayoutDecodeOptions): E.Either<PayrailError, A> =>
    pipe(
      decodeWith(options.allowInsecureNotifyUrl === true ? insecure : strict)(input),
      E.chain(withAccountNetwork(options.lookupNetwork)),
    );

/** POST /payment/quickpayout: the codec's rules, then the inline account's network schema. */
export const decodePayoutCreate = payoutDecoder(PayoutCreateRequest, InsecurePayoutCreateRequest);

// ---------------------------------------------------------------------------------------------
// Payout PATCH

const payoutEditableKeys = [
  'currency',
  'amount',
  'method_id',
  'channel_id',
  'notify_url',
  'beneficiary',
  'beneficiary_account',
  'beneficiary_account_id',
  'fee_bearer',
] as const;

const namesAnEditableField = (u: unknown): u is unknown =>
  isJsonObject(u) && payoutEditableKeys.some((key) => u[key] !== undefined);

/** Stage 1 of a PATCH: a body naming no editable field is `no changes`. */
const SomethingEditable = codecOf<unknown>('SomethingEditable', namesAnEditableField, (u, c) =>
  namesAnEditableField(u) ? t.success(u) : fail(u, c, payrailError('no_changes')),
);

const payoutUpdateRequest = (options: PayoutOptions) =>
  request('PayoutUpdateRequest', {
    format: t.intersection([
      request('PayoutUpdateFields', {
        required: SomethingEditable,
        // Each sent field follows the create rules; a blank required one is `<field> required`.
        format: t.partial({
          currency: requiredField(Currency, payrailError('currency_required')),
          amount: requiredField(Amount, payrailError('field_required', { field: 'amount' })),
          method_id: MethodId,
          channel_id: ChannelId,
          notify_url: requiredField(
            notifyUrl(options.allowInsecureNotifyUrl === true),
            payrailError('field_required', { field: 'notify_url' }),
          ),
          beneficiary: inlineObject('InlineBeneficiary'),
          beneficiary_account: inlineObject('InlineBeneficiaryAccount'),
          beneficiary_account_id: BeneficiaryAccountId,
          fee_bearer: FeeBearerField,
        }),
        rules: [channelNeedsMethod(payrailError('method_id_required_with_channel')), pairTogether],
      }),
      inlinePair,
    ]),
  });

/**
 * `PATCH /payment/payouts/{payout_id}`: only what is sent changes (decisions.md §2). Same rules
 * and order as create, each applied only to what is sent; a PATCH naming no editable field
 * answers `no changes`; channel_id without method_id answers `method_id required when channel_id
 * provided`. An amount without a currency is checked at the largest fiat scale (the engine
 * re-checks it at the payout's currency).
 */
export const PayoutUpdateRequest = payoutUpdateRequest({});
export type PayoutUpdateRequest = t.TypeOf<typeof PayoutUpdateRequest>;
const InsecurePayoutUpdateRequest = payoutUpdateRequest({ allowInsecureNotifyUrl: true });

/** PATCH /payment/payouts/{payout_id}: the codec's rules, then the inline account's network. */
export const decodePayoutUpdate = payoutDecoder(PayoutUpdateRequest, InsecurePayoutUpdateRequest);

// ---------------------------------------------------------------------------------------------
// Standalone beneficiaries and beneficiary accounts (decisions.md §3)

/** The statuses a beneficiary PATCH may set (decisions.md §3). */
export const beneficiaryStatuses = ['active', 'disabled'] as const;

/** The statuses a beneficiary-account PATCH may set (decisions.md §3). */
export const beneficiaryAccountStatuses = ['active', 'disabled', 'suspended'] as const;

/**
 * POST /payment/beneficiaries: `request required`; then required `method_id`, `name`, `fields`
 * (`method_id required`, `name required`, `fields required`); then method_id a positive integer
 * and channel_id a 1-64 label (`Validation Failed`), the name's length, the fields' rules.
 */
export const BeneficiaryCreateRequest = request('BeneficiaryCreateRequest', {
  required: t.type({
    method_id: defined(payrailError('method_id_required')),
    name: present(payrailError('field_required', { field: 'name' })),
    fields: defined(payrailError('fields_required')),
  }),
  format: t.intersection([
    t.type({ method_id: MethodId }),
    t.partial({ channel_id: labelLeaf('ChannelId', 64) }),
    t.type({ name: BeneficiaryName, fields: BeneficiaryFields }),
  ]),
});
export type BeneficiaryCreateRequest = t.TypeOf<typeof BeneficiaryCreateRequest>;

/** A status PATCH: no status -> `no changes`; a status outside `statuses` -> `invalid status`. */
const statusPatch = <S extends string>(name: string, statuses: readonly S[]) =>
  request(name, {
    required: t.type({ status: defined(payrailError('no_changes')) }),
    format: t.type({
      status: oneOfLeaf(`${name}.status`, statuses, 'invalid_status'),
    }),
  });

/** PATCH /payment/beneficiaries/{id}: `status` active or disabled. */
export const BeneficiaryPatchRequest = statusPatch('BeneficiaryPatchRequest', beneficiaryStatuses);
export type BeneficiaryPatchRequest = t.TypeOf<typeof BeneficiaryPatchRequest>;

/** PATCH /payment/beneficiary-accounts/{id}: `status` active, disabled or suspended. */
export const BeneficiaryAccountPatchRequest = statusPatch(
  'BeneficiaryAccountPatchRequest',
  beneficiaryAccountStatuses,
);
export type BeneficiaryAccountPatchRequest = t.TypeOf<typeof BeneficiaryAccountPatchRequest>;

/**
 * POST /payment/beneficiary-accounts, an account for an existing beneficiary, without the network
 * lookup: `request required`, `beneficiary_id required` (then `Validation Failed` unless a 1-64
 * label), then the account's shape rules.
 */
export const BeneficiaryAccountCreateRequest = request('BeneficiaryAccountCreateRequest', {
  format: t.intersection([
    t.type({
      beneficiary_id: requiredField(
        labelLeaf('BeneficiaryId', 64),
        payrailError('field_required', { field: 'beneficiary_id' }),
      ),
    }),
    ...beneficiaryAccountFields,
  ]),
});
export type BeneficiaryAccountCreateRequest = t.TypeOf<typeof BeneficiaryAccountCreateRequest>;

/** POST /payment/beneficiary-accounts: the codec's rules, then the network's schema. */
export const decodeBeneficiaryAccountCreate = (
  input: unknown,
  options: { readonly lookupNetwork: NetworkLookup },
): E.Either<PayrailError, BeneficiaryAccountCreateRequest> =>
  pipe(
    decodeWith(BeneficiaryAccountCreateRequest)(input),
    E.chain((request) => checkAccountNetwork(request, options.lookupNetwork)),
  );
