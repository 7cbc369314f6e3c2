/**
 * The acquiring request bodies: order create (the interface's "Acquiring order (create request)"
 * plus decisions §4's mode, checkout_type and network/currency), order close, and the checkout
 * page's token selection. What needs the account (enabled and default tokens, the webhook named
 * by notify_webhook_id) is checked by the pure functions at the end, which the engine calls with
 * what it has loaded.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import {
  type CryptoCurrency,
  Decimal,
  formatAmount,
  isPositive,
  parseAmount,
} from '../money/money.js';
import {
  type ChainNetwork,
  type PayToken,
  type PayTokenId,
  payTokenFor,
  resolvePayToken,
} from '../money/pay-tokens.js';
import { matchesEventPattern } from '../webhooks/webhook-envelope.js';
import {
  codecFromCheck,
  codePointLength,
  isBlank,
  isJsonObject,
  type JsonObject,
  presentValue,
} from './beneficiary.codecs.js';
import { decodeWith, requestBody } from './codec-toolkit.js';
import { isAbsoluteHttpsUrl } from './webhook.codecs.js';

// ---------------------------------------------------------------------------------------------
// Field rules

/** How the payer pays: chooses on the hosted page (`checkout`), or gets an address at once. */
export const orderModes = ['checkout', 'direct'] as const;
export type OrderMode = (typeof orderModes)[number];

/** Checkout types this service offers; the interface names only the default. */
export const checkoutTypes = ['hosted'] as const;
export type CheckoutType = (typeof checkoutTypes)[number];

export const expireSecondsRange = { min: 60, max: 10800 } as const;

/** Lengths (code points) of the merchant's free texts: longer is `Validation Failed`. */
export const acquiringTextLimits = {
  out_trade_no: 64,
  notify_webhook_id: 128,
  remark: 256,
  reason: 256,
} as const;

type Check<A> = E.Either<PayrailError, A>;

const required = (field: string): Check<never> => E.left(payrailError('field_required', { field }));
const validationFailed = (): Check<never> => E.left(payrailError('validation_failed'));

const isMissing = (u: unknown): boolean => u === undefined || (typeof u === 'string' && isBlank(u));

/** A required merchant text: absent or blank -> `<field> required`; no control characters. */
const checkText = (u: unknown, field: keyof typeof acquiringTextLimits): Check<string> => {
  if (isMissing(u)) return required(field);
  return typeof u === 'string' &&
    codePointLength(u) <= acquiringTextLimits[field] &&
    !/\p{Cc}/u.test(u)
    ? E.right(u)
    : validationFailed();
};

const negativeDecimal = /^-(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * An amount of the order currency (USD, scale 2), answered at that scale ("10.5" -> "10.50").
 * A minus sign on an otherwise plain decimal is a range error, not a format error: the merchant
 * sent a number, just a negative one. "-0" is not negative, so for `>= 0` it stays a format error.
 */
const checkUsdAmount = (
  u: unknown,
  field: 'order_amount' | 'underpay_tolerance',
): Check<string> => {
  if (isMissing(u)) return required(field);
  if (typeof u === 'string' && negativeDecimal.test(u)) {
    if (field === 'order_amount') return E.left(payrailError('order_amount_positive'));
    if (!new Decimal(u).isZero()) return E.left(payrailError('underpay_tolerance_non_negative'));
  }
  const amount = parseAmount(u, 'USD', { field });
  if (E.isLeft(amount)) return amount;
  if (field === 'order_amount' && !isPositive(amount.right)) {
    return E.left(payrailError('order_amount_positive'));
  }
  return E.right(formatAmount(amount.right));
};

const checkOrderCurrency = (u: unknown): Check<'USD'> => {
  if (isMissing(u)) return required('order_currency');
  return u === 'USD' ? E.right(u) : E.left(payrailError('order_currency_only_usd'));
};

/**
 * Optional list of full token ids, duplicates dropped (first occurrence kept). An empty list
 * would allow no token at all, so it is answered like a missing one; a malformed id and an
 * unknown id get their own messages through `resolvePayToken`.
 */
const checkAllowedPayCurrencies = (u: unknown): Check<readonly PayTokenId[] | undefined> => {
  if (u === undefined) return E.right(undefined);
  if (!Array.isArray(u) || !u.every((id) => typeof id === 'string')) return validationFailed();
  if (u.length === 0) return E.left(payrailError('allowed_pay_currencies_required'));
  const ids: PayTokenId[] = [];
  for (const id of u) {
    const token = resolvePayToken(id);
    if (E.isLeft(token)) return token;
    if (!ids.includes(token.right.id)) ids.push(token.right.id);
  }
  return E.right(ids);
};

/** Any value that is not a whole number of seconds in range answers the range message. */
const checkExpireSeconds = (u: unknown): Check<number> => {
  if (u === undefined) return required('expire_seconds');
  return typeof u === 'number' &&
    Number.isInteger(u) &&
    u >= expireSecondsRange.min &&
    u <= expireSecondsRange.max
    ? E.right(u)
    : E.left(payrailError('expire_seconds_range'));
};

/** A path on our own origin: one leading `/`, never `//` or a backslash (browsers read both as
 *  another host), printable ASCII only. */
export const isSameOriginPath = (value: unknown): value is string =>
  typeof value === 'string' &&
  value.length <= 2048 &&
  /^\/(?![/\\])[!-~]*$/.test(value) &&
  !value.includes('\\');

const checkOptional = <A>(
  u: unknown,
  ok: (u: unknown) => u is A,
  error: () => PayrailError,
): Check<A | undefined> => (u === undefined || ok(u) ? E.right(u) : E.left(error()));

/** An enumerated field: its default when absent, its own message for any other value. */
const checkChoice = <A>(
  u: unknown,
  ok: (u: unknown) => u is A,
  fallback: A,
  error: () => PayrailError,
): Check<A> => (u === undefined ? E.right(fallback) : ok(u) ? E.right(u) : E.left(error()));

/** An optional note: blank is the same as not sent. */
const checkRemark = (u: unknown): Check<string | undefined> =>
  isMissing(u) ? E.right(undefined) : checkText(u, 'remark');

const isOrderMode = (u: unknown): u is OrderMode => (orderModes as readonly unknown[]).includes(u);
const isCheckoutType = (u: unknown): u is CheckoutType =>
  (checkoutTypes as readonly unknown[]).includes(u);

/** A JSON boolean, absent or `null` meaning false; `"true"`, `1` and the like are shape errors. */
const checkFlag = (u: unknown): Check<boolean> =>
  u === undefined ? E.right(false) : typeof u === 'boolean' ? E.right(u) : validationFailed();

/** A pair member: absent or blank counts as not sent; any other non-string is a shape error. */
const checkPairMember = (u: unknown): Check<string | undefined> => {
  if (isMissing(u)) return E.right(undefined);
  return typeof u === 'string' ? E.right(u) : validationFailed();
};

// ---------------------------------------------------------------------------------------------
// Order create

export interface AcquiringOrderCreateRequest {
  readonly out_trade_no: string;
  readonly order_currency: 'USD';
  /** At the USD scale: "10.50". */
  readonly order_amount: string;
  /** Absent: the account's default tokens apply (`resolveOrderPayTokens`). */
  readonly allowed_pay_currencies?: readonly PayTokenId[];
  readonly expire_seconds: number;
  /** At the USD scale: "0.00". */
  readonly underpay_tolerance: string;
  readonly notify_webhook_id: string;
  readonly redirect_url?: string;
  readonly logo_url?: string;
  readonly remark?: string;
  readonly mode: OrderMode;
  readonly checkout_type: CheckoutType;
  /** Sent together or not at all; in `direct` mode always there. */
  readonly network?: ChainNetwork;
  readonly currency?: CryptoCurrency;
  /**
   * The hosted page sends the payer to redirect_url by itself once the order completes (ADR
   * 0021); beyond the interface, default false.
   */
  readonly redirect_automatically: boolean;
}

/** The optional keys of the create request, which the decoded value leaves out when not sent. */
type OptionalOrderKey =
  | 'allowed_pay_currencies'
  | 'redirect_url'
  | 'logo_url'
  | 'remark'
  | 'network'
  | 'currency';

/** An order while it is checked: every optional key there, `undefined` when not sent. */
type CheckedOrder<Network, Currency> = Omit<AcquiringOrderCreateRequest, OptionalOrderKey> & {
  readonly allowed_pay_currencies: readonly PayTokenId[] | undefined;
  readonly redirect_url: string | undefined;
  readonly logo_url: string | undefined;
  readonly remark: string | undefined;
  readonly network: Network | undefined;
  readonly currency: Currency | undefined;
};
type OrderFields = CheckedOrder<string, string>;

/** Field rules in the interface's table order, then decisions §4's added fields, then ours. */
const checkOrderFields = (u: JsonObject): Check<OrderFields> => {
  const v = (key: string) => presentValue(u, key);
  return pipe(
    E.Do,
    E.bind('out_trade_no', () => checkText(v('out_trade_no'), 'out_trade_no')),
    E.bind('order_currency', () => checkOrderCurrency(v('order_currency'))),
    E.bind('order_amount', () => checkUsdAmount(v('order_amount'), 'order_amount')),
    E.bind('allowed_pay_currencies', () => checkAllowedPayCurrencies(v('allowed_pay_currencies'))),
    E.bind('expire_seconds', () => checkExpireSeconds(v('expire_seconds'))),
    E.bind('underpay_tolerance', () =>
      checkUsdAmount(v('underpay_tolerance'), 'underpay_tolerance'),
    ),
    E.bind('notify_webhook_id', () => checkText(v('notify_webhook_id'), 'notify_webhook_id')),
    E.bind('redirect_url', () =>
      checkOptional(
        v('redirect_url'),
        (url): url is string => isAbsoluteHttpsUrl(url) || isSameOriginPath(url),
        () => payrailError('redirect_url_invalid'),
      ),
    ),
    E.bind('logo_url', () =>
      checkOptional(v('logo_url'), isAbsoluteHttpsUrl, () => payrailError('logo_url_invalid')),
    ),
    E.bind('remark', () => checkRemark(v('remark'))),
    E.bind('mode', () =>
      checkChoice(v('mode'), isOrderMode, 'checkout', () => payrailError('mode_invalid')),
    ),
    E.bind('checkout_type', () =>
      checkChoice(v('checkout_type'), isCheckoutType, 'hosted', () =>
        payrailError('checkout_type_unsupported'),
      ),
    ),
    E.bind('network', () => checkPairMember(v('network'))),
    E.bind('currency', () => checkPairMember(v('currency'))),
    E.bind('redirect_automatically', () => checkFlag(v('redirect_automatically'))),
  );
};

/**
 * The network/currency pair: one without the other, or `direct` mode without the pair ->
 * `network/currency required`; a pair that names no known token ->
 * `unsupported network/currency: <network>/<currency>`; a pair outside a sent
 * allowed_pay_currencies -> `network/currency not allowed by order`. In `checkout` mode a sent
 * pair is the payer's preselection and follows the same rules.
 */
const checkOrderPair = (fields: OrderFields): Check<CheckedOrder<ChainNetwork, CryptoCurrency>> => {
  const { network, currency } = fields;
  if (network === undefined && currency === undefined) {
    return fields.mode === 'direct'
      ? E.left(payrailError('network_currency_required'))
      : E.right({ ...fields, network: undefined, currency: undefined });
  }
  if (network === undefined || currency === undefined) {
    return E.left(payrailError('network_currency_required'));
  }
  const token = payTokenFor(network, currency);
  if (token === undefined) {
    return E.left(payrailError('network_currency_unsupported', { network, currency }));
  }
  const allowed = fields.allowed_pay_currencies;
  if (allowed !== undefined && !allowed.includes(token.id)) {
    return E.left(payrailError('network_currency_not_allowed'));
  }
  return E.right({ ...fields, network: token.network, currency: token.currency });
};

/** Leaves out the optional keys that were not sent, so a decoded order decodes to itself. */
const toOrderRequest = ({
  allowed_pay_currencies,
  redirect_url,
  logo_url,
  remark,
  network,
  currency,
  ...required
}: CheckedOrder<ChainNetwork, CryptoCurrency>): AcquiringOrderCreateRequest => ({
  ...required,
  ...(allowed_pay_currencies === undefined ? {} : { allowed_pay_currencies }),
  ...(redirect_url === undefined ? {} : { redirect_url }),
  ...(logo_url === undefined ? {} : { logo_url }),
  ...(remark === undefined ? {} : { remark }),
  ...(network === undefined || currency === undefined ? {} : { network, currency }),
});

/**
 * `POST /payment/acquiring/orders`. Precedence, when several rules break at once (the first
 * broken rule is the answer):
 *  1. body not a JSON object -> `request required`;
 *  2. each field in the interface's table order, then decisions §4's: out_trade_no,
 *     order_currency, order_amount, allowed_pay_currencies (first bad id in list order),
 *     expire_seconds, underpay_tolerance, notify_webhook_id, redirect_url, logo_url, remark, mode,
 *     checkout_type, network, currency, then redirect_automatically (ADR 0021); within a field:
 *     absent/blank (`<field> required`) before its type, format and range;
 *  3. the network/currency pair (see `checkOrderPair`).
 * A field with a message of its own (order_currency, amounts, expire_seconds, the URLs, mode,
 * checkout_type) answers it for any bad value, a wrong JSON type included; the others answer
 * `Validation Failed` for a wrong type or an over-long text (redirect_automatically: anything but
 * a JSON boolean, so `"true"` and `1` too; absent or `null` is false). Keys the interface does not define
 * (a per-order notify_url among them) are ignored; `null` is read as absent.
 */
export const AcquiringOrderCreateRequest = requestBody(
  codecFromCheck<AcquiringOrderCreateRequest>('AcquiringOrderCreateRequest', (u) =>
    isJsonObject(u)
      ? pipe(checkOrderFields(u), E.chain(checkOrderPair), E.map(toOrderRequest))
      : validationFailed(),
  ),
);

export const decodeAcquiringOrderCreate: (
  input: unknown,
) => E.Either<PayrailError, AcquiringOrderCreateRequest> = decodeWith(AcquiringOrderCreateRequest);

// ---------------------------------------------------------------------------------------------
// Close and token selection

export interface AcquiringOrderCloseRequest {
  readonly reason: string;
}

/** `POST .../orders/{order_id}/close {reason}`: the reason is kept with the order, so required. */
export const AcquiringOrderCloseRequest = requestBody(
  codecFromCheck<AcquiringOrderCloseRequest>('AcquiringOrderCloseRequest', (u) =>
    isJsonObject(u)
      ? pipe(
          checkText(presentValue(u, 'reason'), 'reason'),
          E.map((reason) => ({ reason })),
        )
      : validationFailed(),
  ),
);

export const decodeAcquiringOrderClose: (
  input: unknown,
) => E.Either<PayrailError, AcquiringOrderCloseRequest> = decodeWith(AcquiringOrderCloseRequest);

export interface PayTokenSelectionRequest {
  readonly network: string;
  readonly currency: string;
}

/** The checkout page's choice `{network, currency}`: both or `network/currency required`. */
export const PayTokenSelectionRequest = requestBody(
  codecFromCheck<PayTokenSelectionRequest>('PayTokenSelectionRequest', (u) => {
    if (!isJsonObject(u)) return validationFailed();
    const network = presentValue(u, 'network');
    const currency = presentValue(u, 'currency');
    if (isMissing(network) || isMissing(currency)) {
      return E.left(payrailError('network_currency_required'));
    }
    return typeof network === 'string' && typeof currency === 'string'
      ? E.right({ network, currency })
      : validationFailed();
  }),
);

/**
 * The token a payer chose, which must be one of the order's allowed ids; a pair naming no token
 * at all is outside them too, so the payer sees one message for every choice the page did not offer.
 */
export const selectPayToken = (
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
 * The order's allowed tokens (decisions §4). Precedence: no enabled token at all ->
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
export const isSubscribedToAcquiring = (events: readonly string[]): boolean =>
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
