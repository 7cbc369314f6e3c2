/**
 * The acquiring request bodies: order create (the interface's "Acquiring order (create request)"
 * plus docs/spec/decisions.md §4's mode, checkout_type and network/currency), order close, and the checkout
 * page's token selection. What needs the account (enabled and default tokens, the webhook named
 * by notify_webhook_id) is checked by the pure functions at the end, which the engine calls with
 * what it has loaded.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import {
  cryptoCurrencies,
  Decimal,
  formatAmount,
  isPositive,
  parseAmount,
} from '../money/money.js';
import {
  chainNetworks,
  type PayToken,
  type PayTokenId,
  payTokenFor,
  payTokenIds,
  resolvePayToken,
} from '../money/pay-tokens.js';
import { matchesEventPattern } from '../webhooks/webhook-envelope.js';
import {
  codePointLength,
  decodeWith,
  holdsControlCharacter,
  isMissing,
  type LeafSchema,
  leaf,
  leafFrom,
  oneOfLeaf,
  present,
  request,
  requiredField,
  rule,
  wholeNumberLeaf,
  withDefault,
  withoutControlCharacters,
} from './codec-toolkit.js';
import { isAbsoluteHttpsUrl } from './webhook.codecs.js';

// ---------------------------------------------------------------------------------------------
// Field rules

/** How the payer pays: chooses on the hosted page (`checkout`), or gets an address at once. */
const orderModes = ['checkout', 'direct'] as const;

/** Checkout types this service offers; the interface names only the default. */
const checkoutTypes = ['hosted'] as const;

const expireSecondsRange = { min: 60, max: 10800 } as const;

/** Lengths (code points) of the merchant's free texts: longer is `Validation Failed`. */
const acquiringTextLimits = {
  out_trade_no: 64,
  notify_webhook_id: 128,
  remark: 256,
  reason: 256,
} as const;
type TextField = keyof typeof acquiringTextLimits;

const validationFailed = (): PayrailError => payrailError('validation_failed');
const required = (field: string): PayrailError => payrailError('field_required', { field });

const isMerchantText = (u: unknown, field: TextField): u is string =>
  typeof u === 'string' &&
  codePointLength(u) <= acquiringTextLimits[field] &&
  !holdsControlCharacter(u);

const textSchema = (field: TextField, description?: string): LeafSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: acquiringTextLimits[field],
  pattern: withoutControlCharacters,
  ...(description === undefined ? {} : { description }),
});

/** A merchant text: a string within its length, no control characters; else `Validation Failed`. */
const merchantText = (field: TextField, description?: string) =>
  leaf<string>(
    `MerchantText(${field})`,
    (u): u is string => isMerchantText(u, field),
    'validation_failed',
    textSchema(field, description),
  );

/** A required merchant text: absent or blank -> `<field> required`, then the text rule. */
const requiredText = (field: TextField, description?: string) =>
  requiredField(merchantText(field, description), required(field));

const negativeDecimal = /^-(0|[1-9][0-9]*)(\.[0-9]+)?$/;

type UsdAmountField = 'order_amount' | 'underpay_tolerance';

/**
 * An amount of the order currency (USD, scale 2), answered at that scale ("10.5" -> "10.50").
 * A minus sign on an otherwise plain decimal is a range error, not a format error: the merchant
 * sent a number, just a negative one. "-0" is not negative, so for `>= 0` it stays a format error.
 */
const readUsdAmount = (u: unknown, field: UsdAmountField): E.Either<PayrailError, string> => {
  if (typeof u === 'string' && negativeDecimal.test(u)) {
    if (field === 'order_amount') return E.left(payrailError('order_amount_positive'));
    if (!new Decimal(u).isZero()) return E.left(payrailError('underpay_tolerance_non_negative'));
  }
  return pipe(
    parseAmount(u, 'USD', { field }),
    E.filterOrElse(
      (amount) => field !== 'order_amount' || isPositive(amount),
      (): PayrailError => payrailError('order_amount_positive'),
    ),
    E.map(formatAmount),
  );
};

/** Absent or blank -> `<field> required`; a value is an amount already at the USD scale. */
const usdAmount = (field: UsdAmountField, description: string) =>
  requiredField(
    leafFrom<string>(
      `UsdAmount(${field})`,
      (u): u is string => {
        const read = readUsdAmount(u, field);
        return E.isRight(read) && read.right === u;
      },
      (u) => readUsdAmount(u, field),
      { type: 'string', pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,2})?$', description },
    ),
    required(field),
  );

/**
 * Optional list of full token ids, duplicates dropped (first occurrence kept). An empty list
 * would allow no token at all, so it is answered like a missing one; a malformed id and an
 * unknown id get their own messages through `resolvePayToken`.
 */
const readAllowedPayCurrencies = (u: unknown): E.Either<PayrailError, readonly PayTokenId[]> => {
  if (!Array.isArray(u) || !u.every((id) => typeof id === 'string')) {
    return E.left(validationFailed());
  }
  if (u.length === 0) return E.left(payrailError('allowed_pay_currencies_required'));
  const ids: PayTokenId[] = [];
  for (const id of u) {
    const token = resolvePayToken(id);
    if (E.isLeft(token)) return token;
    if (!ids.includes(token.right.id)) ids.push(token.right.id);
  }
  return E.right(ids);
};

const AllowedPayCurrencies = leafFrom<readonly PayTokenId[]>(
  'AllowedPayCurrencies',
  (u): u is readonly PayTokenId[] => {
    const read = readAllowedPayCurrencies(u);
    return Array.isArray(u) && E.isRight(read) && read.right.length === u.length;
  },
  readAllowedPayCurrencies,
  {
    type: 'array',
    minItems: 1,
    items: { type: 'string', enum: [...payTokenIds] },
    description: "omitted: the account's default tokens",
  },
);

/** Any value that is not a whole number of seconds in range answers the range message. */
const ExpireSeconds = wholeNumberLeaf(
  'ExpireSeconds',
  { minimum: expireSecondsRange.min, maximum: expireSecondsRange.max },
  'expire_seconds_range',
);

/** A path on our own origin: one leading `/`, never `//` or a backslash (browsers read both as
 *  another host), printable ASCII only. */
export const isSameOriginPath = (value: unknown): value is string =>
  typeof value === 'string' &&
  value.length <= 2048 &&
  /^\/(?![/\\])[!-~]*$/.test(value) &&
  !value.includes('\\');

const RedirectUrl = leaf<string>(
  'RedirectUrl',
  (u): u is string => isAbsoluteHttpsUrl(u) || isSameOriginPath(u),
  'redirect_url_invalid',
  {
    type: 'string',
    maxLength: 2048,
    description: 'absolute https URL or same-origin relative path',
  },
);

const LogoUrl = leaf<string>('LogoUrl', isAbsoluteHttpsUrl, 'logo_url_invalid', {
  type: 'string',
  format: 'uri',
  maxLength: 2048,
  description: 'absolute https URL',
});

/** An optional note: blank is the same as not sent; else the merchant text rule. */
const Remark = leafFrom<string | undefined>(
  'Remark',
  (u): u is string => isMerchantText(u, 'remark') && !isMissing(u),
  (u) =>
    isMissing(u)
      ? E.right(undefined)
      : isMerchantText(u, 'remark')
        ? E.right(u)
        : E.left(validationFailed()),
  textSchema('remark', 'blank is the same as not sent'),
);

const Mode = oneOfLeaf('OrderMode', orderModes, 'mode_invalid');

const CheckoutTypeLeaf = oneOfLeaf('CheckoutType', checkoutTypes, 'checkout_type_unsupported');

/** A JSON boolean, absent or `null` meaning false; `"true"`, `1` and the like are shape errors. */
const RedirectAutomatically = leaf<boolean>(
  'RedirectAutomatically',
  (u): u is boolean => typeof u === 'boolean',
  'validation_failed',
  {
    type: 'boolean',
    description:
      'once completed, the hosted page goes to redirect_url by itself after a few seconds; a JSON boolean only (null: false)',
  },
);

/**
 * A member of the network/currency pair: absent or blank counts as not sent; any other
 * non-string is a shape error. Which pairs name a token is the request's rule, after every field.
 */
const pairMember = (name: string, values: readonly string[]) =>
  leafFrom<string | undefined>(
    name,
    (u): u is string => typeof u === 'string' && !isMissing(u),
    (u) =>
      isMissing(u)
        ? E.right(undefined)
        : typeof u === 'string'
          ? E.right(u)
          : E.left(validationFailed()),
    {
      type: 'string',
      enum: [...values],
      description: 'sent together with its pair member; required in mode direct',
    },
  );

const Network = pairMember('PayNetwork', Object.keys(chainNetworks));
const Currency = pairMember('PayCurrency', cryptoCurrencies);

// ---------------------------------------------------------------------------------------------
// Order create

/** The pair sent (both members), if any. */
const pairOf = (order: {
  readonly network?: string | undefined;
  readonly currency?: string | undefined;
}): { readonly network: string; readonly currency: string } | undefined =>
  order.network === undefined || order.currency === undefined
    ? undefined
    : { network: order.network, currency: order.currency };

const noPair = { network: '', currency: '' } as const;

/**
 * The order's fields in the interface's table order, then docs/spec/decisions.md §4's, then ours: required
 * ones in `t.type`s, optional ones in the `t.partial`s between them, so io-ts's key order is the
 * table's (intersections nest because io-ts types at most five members).
 */
const orderCreateFields = t.intersection([
  t.intersection([
    t.type({
      out_trade_no: requiredText('out_trade_no', 'merchant order number, unique'),
      order_currency: requiredField(
        leaf<'USD'>('OrderCurrency', (u): u is 'USD' => u === 'USD', 'order_currency_only_usd', {
          type: 'string',
          enum: ['USD'],
        }),
        required('order_currency'),
      ),
      /** At the USD scale: "10.50". */
      order_amount: usdAmount('order_amount', 'greater than 0, USD scale'),
    }),
    /** Absent: the account's default tokens apply (`resolveOrderPayTokens`). */
    t.partial({ allowed_pay_currencies: AllowedPayCurrencies }),
    t.type({
      expire_seconds: requiredField(
        ExpireSeconds,
        required('expire_seconds'),
        (u) => u === undefined,
      ),
      /** At the USD scale: "0.00". */
      underpay_tolerance: usdAmount(
        'underpay_tolerance',
        '0 or greater, less than order_amount, USD scale',
      ),
      notify_webhook_id: requiredText(
        'notify_webhook_id',
        'an active webhook subscribed to acquiring events',
      ),
    }),
    t.partial({ redirect_url: RedirectUrl, logo_url: LogoUrl, remark: Remark }),
  ]),
  t.type({
    mode: withDefault(Mode, 'checkout'),
    checkout_type: withDefault(CheckoutTypeLeaf, 'hosted'),
  }),
  /** Sent together or not at all; in `direct` mode always there. */
  t.partial({ network: Network, currency: Currency }),
  /**
   * The hosted page sends the payer to redirect_url by itself once the order completes (ADR
   * 0021); beyond the interface, default false.
   */
  t.type({ redirect_automatically: withDefault(RedirectAutomatically, false) }),
]);
type OrderCreateFields = t.TypeOf<typeof orderCreateFields>;

/**
 * `POST /payment/acquiring/orders`. Precedence, when several rules break at once (the first
 * broken rule is the answer):
 *  1. body not a JSON object -> `request required`;
 *  2. each field in the interface's table order, then docs/spec/decisions.md §4's: out_trade_no,
 *     order_currency, order_amount, allowed_pay_currencies (first bad id in list order),
 *     expire_seconds, underpay_tolerance, notify_webhook_id, redirect_url, logo_url, remark, mode,
 *     checkout_type, network, currency, then redirect_automatically (ADR 0021); within a field:
 *     absent/blank (`<field> required`) before its type, format and range (`requiredField`, as
 *     the interface judges field by field; the format stage is the table's key order, optional
 *     fields in `t.partial`s between the required ones);
 *  3. the amounts together (`rules`): an underpay_tolerance not below order_amount ->
 *     `underpay_tolerance must be less than order_amount` (ADR 0007: else an order completes on
 *     any payment at all);
 *  4. the network/currency pair (`rules`): one without the other, or `direct` mode without the
 *     pair -> `network/currency required`; a pair that names no known token ->
 *     `unsupported network/currency: <network>/<currency>`; a pair outside a sent
 *     allowed_pay_currencies -> `network/currency not allowed by order`. In `checkout` mode a
 *     sent pair is the payer's preselection and follows the same rules.
 * A field with a message of its own (order_currency, amounts, expire_seconds, the URLs, mode,
 * checkout_type) answers it for any bad value, a wrong JSON type included; the others answer
 * `Validation Failed` for a wrong type or an over-long text (redirect_automatically: anything but
 * a JSON boolean, so `"true"` and `1` too; absent or `null` is false). Keys the interface does not
 * define (a per-order notify_url among them) are ignored; `null` is read as absent.
 */
export const AcquiringOrderCreateRequest = request('AcquiringOrderCreateRequest', {
  format: orderCreateFields,
  rules: [
    rule<OrderCreateFields>(
      (order) => new Decimal(order.underpay_tolerance).lessThan(order.order_amount),
      () => payrailError('underpay_tolerance_below_amount'),
    ),
    rule<OrderCreateFields>(
      (order) => (order.network === undefined) === (order.currency === undefined),
      () => payrailError('network_currency_required'),
    ),
    rule<OrderCreateFields>(
      (order) => order.mode !== 'direct' || pairOf(order) !== undefined,
      () => payrailError('network_currency_required'),
    ),
    rule<OrderCreateFields>(
      (order) => {
        const pair = pairOf(order);
        return pair === undefined || payTokenFor(pair.network, pair.currency) !== undefined;
      },
      // Broken only when both members were sent, so `pairOf` has them.
      (order) => payrailError('network_currency_unsupported', pairOf(order) ?? noPair),
    ),
    rule<OrderCreateFields>(
      (order) => {
        const pair = pairOf(order);
        const token = pair && payTokenFor(pair.network, pair.currency);
        const allowed = order.allowed_pay_currencies;
        return token === undefined || allowed === undefined || allowed.includes(token.id);
      },
      () => payrailError('network_currency_not_allowed'),
    ),
  ],
});
export type AcquiringOrderCreateRequest = t.TypeOf<typeof AcquiringOrderCreateRequest>;

export const decodeAcquiringOrderCreate: (
  input: unknown,
) => E.Either<PayrailError, AcquiringOrderCreateRequest> = decodeWith(AcquiringOrderCreateRequest);

// ---------------------------------------------------------------------------------------------
// Close and token selection

/** `POST .../orders/{order_id}/close {reason}`: the reason is kept with the order, so required. */
export const AcquiringOrderCloseRequest = request('AcquiringOrderCloseRequest', {
  format: t.type({ reason: requiredText('reason') }),
});
export type AcquiringOrderCloseRequest = t.TypeOf<typeof AcquiringOrderCloseRequest>;

export const decodeAcquiringOrderClose: (
  input: unknown,
) => E.Either<PayrailError, AcquiringOrderCloseRequest> = decodeWith(AcquiringOrderCloseRequest);

const selectionMember = (name: string, values: readonly string[]) =>
  leaf<string>(name, (u): u is string => typeof u === 'string', 'validation_failed', {
    type: 'string',
    enum: [...values],
  });

/**
 * The checkout page's choice `{network, currency}`: both present (absent or blank ->
 * `network/currency required`, before either's type), then strings (`Validation Failed`).
 */
export const PayTokenSelectionRequest = request('PayTokenSelectionRequest', {
  required: t.type({
    network: present(payrailError('network_currency_required')),
    currency: present(payrailError('network_currency_required')),
  }),
  format: t.type({
    network: selectionMember('SelectedNetwork', Object.keys(chainNetworks)),
    currency: selectionMember('SelectedCurrency', cryptoCurrencies),
  }),
});
export type PayTokenSelectionRequest = t.TypeOf<typeof PayTokenSelectionRequest>;

/**
 * The token a payer chose, which must be one of the order's allowed ids; a pair naming no token
 * at all is outside them too, so the payer sees one message for every choice the page did not offer.
 */
const selectPayToken = (
  selection: PayTokenSelectionRequest,
  allowedPayCurrencies: readonly PayTokenId[],
): E.Either<PayrailError, PayToken> => {
  const token = payTokenFor(selection.network, selection.currency);
  return token !== undefined && allowedPayCurrencies.includes(token.id)
    ? E.right(token)
    : E.left(payrailError('network_currency_not_allowed'));
};

/** Decodes the checkout page's choice and checks it against the order's allowed ids. */
export const decodePayTokenSelection = (
  input: unknown,
  allowedPayCurrencies: readonly PayTokenId[],
): E.Either<PayrailError, PayToken> =>
  pipe(
    decodeWith(PayTokenSelectionRequest)(input),
    E.chain((selection) => selectPayToken(selection, allowedPayCurrencies)),
  );

// ---------------------------------------------------------------------------------------------
// Rules that need the account

/** What the engine knows of the account when an order is created. */
export interface AccountPayTokens {
  readonly enabledPayTokens: readonly PayTokenId[];
  readonly defaultPayTokens: readonly PayTokenId[];
}

/**
 * The order's allowed tokens (docs/spec/decisions.md §4). Precedence: no enabled token at all ->
 * `no available pay tokens for current account`; list omitted and no default that is enabled ->
 * `allowed_pay_currencies required` (defaults that are no longer enabled are skipped); a listed id
 * not enabled -> `unsupported network/currency: <network>/<currency>` (first in list order); a
 * network/currency pair not enabled -> the same message; a pair outside the resolved defaults ->
 * `network/currency not allowed by order`.
 */
export const resolveOrderPayTokens = (
  request: Pick<AcquiringOrderCreateRequest, 'allowed_pay_currencies' | 'network' | 'currency'>,
  account: AccountPayTokens,
): E.Either<PayrailError, readonly PayTokenId[]> => {
  const enabled = account.enabledPayTokens;
  if (enabled.length === 0) return E.left(payrailError('no_available_pay_tokens'));
  let allowed: readonly PayTokenId[];
  if (request.allowed_pay_currencies === undefined) {
    allowed = [...new Set(account.defaultPayTokens.filter((id) => enabled.includes(id)))];
    if (allowed.length === 0) return E.left(payrailError('allowed_pay_currencies_required'));
  } else {
    for (const id of request.allowed_pay_currencies) {
      const token = resolvePayToken(id, enabled);
      if (E.isLeft(token)) return token;
    }
    allowed = request.allowed_pay_currencies;
  }
  if (request.network !== undefined && request.currency !== undefined) {
    const token = resolvePayToken(`${request.network}_${request.currency}`, enabled);
    if (E.isLeft(token)) return token;
    if (!allowed.includes(token.right.id)) {
      return E.left(payrailError('network_currency_not_allowed'));
    }
  }
  return E.right(allowed);
};

/** The event types an order's notify webhook must receive at least one of. */
const acquiringEventTypes = ['acquiring.order.updated', 'acquiring.payment.updated'] as const;

/** Whether a webhook's patterns cover an acquiring event (`acquiring.*` and the exact names). */
const isSubscribedToAcquiring = (events: readonly string[]): boolean =>
  events.some((pattern) =>
    acquiringEventTypes.some((eventType) => matchesEventPattern(pattern, eventType)),
  );

/**
 * The webhook named by notify_webhook_id, as loaded by the engine (`undefined` when it does not
 * exist or belongs to another merchant): missing or not active -> `notify_webhook_id invalid or
 * inactive`; without an acquiring pattern -> `notify_webhook_id not subscribed to acquiring events`.
 */
export const validateNotifyWebhook = <
  W extends { readonly status: string; readonly events: readonly string[] },
>(
  webhook: W | undefined,
): E.Either<PayrailError, W> => {
  if (webhook === undefined || webhook.status !== 'active') {
    return E.left(payrailError('notify_webhook_id_invalid'));
  }
  return isSubscribedToAcquiring(webhook.events)
    ? E.right(webhook)
    : E.left(payrailError('notify_webhook_id_not_subscribed'));
};
