/**
 * Refunds and resolutions of acquiring orders (issue 21, ADR 0044): the merchant's refund
 * request, the operator's refund review and order resolution, and `data.refund`.
 *
 * Refund request precedence (the first broken rule is the answer): body not a JSON object
 * `request required`; `refund_type required`, then `refund_type must be full, partial or
 * overpaid`; `address required`, then not a string of at most 128 characters `Validation Failed`;
 * amount: for `partial` absent `amount required`, a decimal at the token scale (`amount must be a
 * decimal string with at most 6 decimal places`) greater than zero (`amount must be greater than
 * zero`), ignored for the other types; token_id: a malformed id `invalid pay currency: <id>`, an
 * unknown one `unsupported network/currency: <n>/<c>`; reason: a merchant text of at most 256
 * characters (`Validation Failed`), blank counting as not sent; client_refund_id likewise, of at
 * most 64. Whether the address fits the
 * token's network, and every amount rule of the order, is the order's to judge.
 */
import * as E from 'fp-ts/lib/Either.js';
import { pipe } from 'fp-ts/lib/function.js';
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { resolutionActions } from '../machines/acquiring-order.machine.js';
import { refundStatuses, refundTypes } from '../machines/acquiring-refund.machine.js';
import { formatPayAmount } from '../machines/order-status.js';
import { cryptoCurrencies, isPositive, parseAmount } from '../money/money.js';
import {
  chainNetworks,
  type PayTokenId,
  payTokenIds,
  resolvePayToken,
} from '../money/pay-tokens.js';
import {
  codePointLength,
  decodeWith,
  holdsControlCharacter,
  isBlank,
  isMissing,
  leaf,
  leafFrom,
  oneOfLeaf,
  present,
  request,
  requiredField,
  rule,
  withoutControlCharacters,
} from './codec-toolkit.js';
import {
  DecimalString,
  nullable,
  oneOf,
  timestamps,
  UnixSeconds,
} from './common-answers.codecs.js';

const required = (field: string): PayrailError => payrailError('field_required', { field });

/** A free text of at most `max` code points without control characters. */
const isShortText = (u: unknown, max: number): u is string =>
  typeof u === 'string' && codePointLength(u) <= max && !holdsControlCharacter(u);

/** An optional reason or note: blank is the same as not sent; longer than 256 `Validation Failed`. */
const OptionalReason = leafFrom<string | undefined>(
  'RefundReason',
  (u): u is string => isShortText(u, 256) && !isBlank(u),
  (u) =>
    isMissing(u)
      ? E.right(undefined)
      : isShortText(u, 256)
        ? E.right(u)
        : E.left(payrailError('validation_failed')),
  {
    type: 'string',
    maxLength: 256,
    pattern: withoutControlCharacters,
    description: 'blank is the same as not sent',
  },
);

/**
 * The merchant's idempotency key of a refund (as a payout's client_request_id): at most 64
 * characters; blank is the same as not sent.
 */
const ClientRefundId = leafFrom<string | undefined>(
  'ClientRefundId',
  (u): u is string => isShortText(u, 64) && !isBlank(u),
  (u) =>
    isMissing(u)
      ? E.right(undefined)
      : isShortText(u, 64)
        ? E.right(u)
        : E.left(payrailError('validation_failed')),
  {
    type: 'string',
    maxLength: 64,
    pattern: withoutControlCharacters,
    description: 'the same request again answers the refund it made; blank is not sent',
  },
);

/** A receiving address as sent; its format is judged against the token's network. */
const RefundAddress = leaf<string>(
  'RefundAddress',
  (u): u is string => isShortText(u, 128),
  'validation_failed',
  {
    type: 'string',
    minLength: 1,
    maxLength: 128,
    pattern: withoutControlCharacters,
    description: "on the token's network",
  },
);

const readRefundAmount = (u: unknown): E.Either<PayrailError, string> =>
  pipe(
    parseAmount(u, 'USDT', { field: 'amount' }),
    E.filterOrElse(isPositive, (): PayrailError => payrailError('amount_must_be_positive')),
    E.map((amount) => formatPayAmount(amount.value)),
  );

/** A partial refund's amount, in tokens at their scale (6 decimals), answered at that scale. */
const RefundAmount = leafFrom<string | undefined>(
  'RefundAmount',
  (u): u is string => {
    const read = readRefundAmount(u);
    return E.isRight(read) && read.right === u;
  },
  (u, sibling) =>
    sibling('refund_type') === 'partial' && !isMissing(u)
      ? readRefundAmount(u)
      : E.right(undefined),
  {
    type: 'string',
    pattern: '^(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$',
    description: 'tokens; required for refund_type partial, ignored otherwise',
  },
);

const RefundTokenId = leafFrom<PayTokenId | undefined>(
  'RefundTokenId',
  (u): u is PayTokenId => payTokenIds.some((id) => id === u),
  (u) =>
    isMissing(u)
      ? E.right(undefined)
      : pipe(
          resolvePayToken(u),
          E.map((token) => token.id),
        ),
  {
    type: 'string',
    enum: [...payTokenIds],
    description: 'omitted: the one token the order was paid in',
  },
);

/** `POST /payment/acquiring/orders/{order_id}/refunds`. */
const refundCreateFields = t.intersection([
  t.type({
    refund_type: requiredField(
      oneOfLeaf('RefundType', refundTypes, 'refund_type_invalid'),
      required('refund_type'),
    ),
    address: requiredField(RefundAddress, required('address')),
  }),
  t.partial({
    amount: RefundAmount,
    token_id: RefundTokenId,
    reason: OptionalReason,
    client_refund_id: ClientRefundId,
  }),
]);

export const AcquiringRefundCreateRequest = request('AcquiringRefundCreateRequest', {
  format: refundCreateFields,
  rules: [
    rule<t.TypeOf<typeof refundCreateFields>>(
      (refund) => refund.refund_type !== 'partial' || refund.amount !== undefined,
      () => required('amount'),
    ),
  ],
});
export type AcquiringRefundCreateRequest = t.TypeOf<typeof AcquiringRefundCreateRequest>;
export const decodeAcquiringRefundCreate = decodeWith(AcquiringRefundCreateRequest);

/** `POST /admin/acquiring/refunds/{refund_id}/review`: approve or reject, with a reason. */
export const RefundReviewRequest = request('RefundReviewRequest', {
  required: t.type({ action: present(required('action')) }),
  format: t.intersection([
    t.type({
      action: oneOfLeaf('RefundReviewAction', ['approve', 'reject'] as const, 'validation_failed'),
    }),
    t.partial({ reason: OptionalReason }),
  ]),
});
export type RefundReviewRequest = t.TypeOf<typeof RefundReviewRequest>;
export const decodeRefundReview = decodeWith(RefundReviewRequest);

/**
 * `POST /admin/acquiring/orders/{order_id}/resolve`: accept the order as paid, or refuse it and
 * give back what came in, to `refund_address` (required when the order was credited anything:
 * judged with the order). `action required` → not accept or refuse `Validation Failed` → `reason
 * required` → reason or address not a short text `Validation Failed`.
 */
export const OrderResolveRequest = request('OrderResolveRequest', {
  required: t.type({ action: present(required('action')), reason: present(required('reason')) }),
  format: t.intersection([
    t.type({
      action: oneOfLeaf('ResolutionAction', resolutionActions, 'validation_failed'),
      reason: leaf<string>(
        'ResolutionReason',
        (u): u is string => isShortText(u, 256),
        'validation_failed',
        { type: 'string', minLength: 1, maxLength: 256, pattern: withoutControlCharacters },
      ),
    }),
    t.partial({ refund_address: RefundAddress }),
  ]),
});
export type OrderResolveRequest = t.TypeOf<typeof OrderResolveRequest>;
export const decodeOrderResolve = decodeWith(OrderResolveRequest);

// ---------------------------------------------------------------------------------------------
// Answers

/** `data.refund`: a refund of an order as it stands. */
export const RefundView = t.strict({
  refund_id: t.string,
  order_id: t.string,
  account_id: t.string,
  out_trade_no: t.string,
  status: oneOf('RefundStatus', refundStatuses),
  refund_type: oneOf('RefundType', refundTypes),
  token_id: oneOf('PayTokenId', payTokenIds),
  network: t.keyof(chainNetworks),
  currency: oneOf('CryptoCurrency', cryptoCurrencies),
  /** Tokens, 6 decimals. */
  amount: DecimalString,
  address: t.string,
  reason: nullable(t.string),
  client_refund_id: nullable(t.string),
  review_required: t.boolean,
  /** `api_key:<key_id>` or `operator:<operator_id>`. */
  requested_by: t.string,
  reviewed_by: nullable(t.string),
  review_reason: nullable(t.string),
  fail_reason: nullable(t.string),
  completed_at: nullable(UnixSeconds),
  ...timestamps,
});
export type RefundView = t.TypeOf<typeof RefundView>;

/** The answer of a refund's create, get, review and execution: `{refund}`. */
export const RefundAnswer = t.strict({ refund: RefundView });
export type RefundAnswer = t.TypeOf<typeof RefundAnswer>;
