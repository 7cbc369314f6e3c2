/**
 * What an acquiring order can give back, and which of its exceptions an operator may resolve
 * (issue 21, ADR 0044): pure rules over the order's context, which the order machine applies to
 * `acquiring.order.refund` and `acquiring.order.resolve` and answers refusals with.
 *
 * An order refunds what it was credited: each payment whose transfer completed on chain (in time
 * or late) credited the merchant in its token (`pay_in`). Per token, the refundable amount is what
 * the token credited less the refunds that count (requested, on their way, or sent); a refund
 * that was rejected or failed is released and counts no more.
 */
import * as E from 'fp-ts/lib/Either.js';
import { isAddressOn } from '../codecs/addresses.js';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { Decimal } from '../money/money.js';
import { type PayTokenId, payTokens } from '../money/pay-tokens.js';
import type {
  AcquiringOrderContext,
  OrderRefund,
  OrderRefundEvent,
  ResolutionAction,
} from './acquiring-order.machine.js';
import { formatPayAmount, type OrderStatus } from './order-status.js';

const sumByToken = (
  entries: readonly { readonly token_id: PayTokenId; readonly amount: string }[],
): ReadonlyMap<PayTokenId, Decimal> => {
  const totals = new Map<PayTokenId, Decimal>();
  for (const { token_id, amount } of entries) {
    totals.set(token_id, (totals.get(token_id) ?? new Decimal(0)).plus(amount));
  }
  return totals;
};

const total = (amounts: ReadonlyMap<PayTokenId, Decimal>): Decimal =>
  [...amounts.values()].reduce((sum, amount) => sum.plus(amount), new Decimal(0));

/** What each token credited the merchant: the order's payments completed on chain. */
export const creditedByToken = (
  context: Pick<AcquiringOrderContext, 'payments'>,
): ReadonlyMap<PayTokenId, Decimal> =>
  sumByToken(Object.values(context.payments).filter((p) => p.chain_status === 'completed'));

const refundedByToken = (
  context: Pick<AcquiringOrderContext, 'refunds'>,
): ReadonlyMap<PayTokenId, Decimal> => sumByToken(Object.values(context.refunds));

/** `refunded_amount` of the order: the refunds that count, in tokens (6 decimals). */
export const refundedAmountOf = (context: Pick<AcquiringOrderContext, 'refunds'>): string =>
  formatPayAmount(total(refundedByToken(context)));

/** What `token` may still give back: what it credited less the refunds that count. */
export const refundableOf = (
  context: Pick<AcquiringOrderContext, 'payments' | 'refunds'>,
  token: PayTokenId,
): Decimal =>
  (creditedByToken(context).get(token) ?? new Decimal(0)).minus(
    refundedByToken(context).get(token) ?? 0,
  );

/**
 * Whether the order may be refunded at all: it completed, ended underpaid, was paid after expiry
 * or close (`expired_paid`), or an operator refused it (its money goes back).
 */
const isRefundable = (context: AcquiringOrderContext, status: OrderStatus): boolean =>
  status === 'completed' ||
  status === 'underpaid' ||
  context.anomaly_tag === 'expired_paid' ||
  context.resolution?.action === 'refuse';

/** The token the refund names, or the one token the order was credited in. */
const refundTokenOf = (
  event: OrderRefundEvent,
  credited: ReadonlyMap<PayTokenId, Decimal>,
): E.Either<PayrailError, PayTokenId> => {
  const [only, ...others] = credited.keys();
  const token = event.token_id ?? (others.length === 0 ? only : undefined);
  if (token === undefined) return E.left(payrailError('field_required', { field: 'token_id' }));
  return credited.has(token)
    ? E.right(token)
    : E.left(payrailError('refund_token_not_paid', { token_id: token }));
};

/**
 * The part paid over pay_amount that no refund gave back yet: only a completed order has one
 * (an operator's accepted resolution included), and late payments count in it.
 */
const overpaidLeft = (context: AcquiringOrderContext, status: OrderStatus): Decimal =>
  status === 'completed'
    ? Decimal.max(
        total(creditedByToken(context))
          .minus(context.pay_amount)
          .minus(total(refundedByToken(context))),
        0,
      )
    : new Decimal(0);

/** How much the refund gives back, by its type, within what its token can still refund. */
const refundAmountOf = (
  context: AcquiringOrderContext,
  status: OrderStatus,
  event: OrderRefundEvent,
  refundable: Decimal,
): E.Either<PayrailError, Decimal> => {
  if (refundable.lessThanOrEqualTo(0)) return E.left(payrailError('nothing_to_refund'));
  if (event.refund_type === 'full') return E.right(refundable);
  if (event.refund_type === 'overpaid') {
    const over = Decimal.min(overpaidLeft(context, status), refundable);
    return over.greaterThan(0) ? E.right(over) : E.left(payrailError('nothing_to_refund'));
  }
  const amount = new Decimal(event.amount ?? 0);
  return amount.lessThanOrEqualTo(refundable)
    ? E.right(amount)
    : E.left(
        payrailError('refund_exceeds_refundable', { refundable: formatPayAmount(refundable) }),
      );
};

/**
 * What the order grants a refund request, judged at the event's time, or why it refuses, in this
 * order: the order is not refundable; no token named while it was paid in several (`token_id
 * required`) or a token it was not credited in; an address not of the token's network; nothing
 * left to refund (or no overpaid part); a partial amount above what is left; and last the
 * merchant's available balance in the token's currency below the amount (`insufficient balance`).
 */
export const refundGrantOf = (
  context: AcquiringOrderContext,
  status: OrderStatus,
  event: OrderRefundEvent,
): E.Either<PayrailError, OrderRefund> => {
  if (!isRefundable(context, status)) return E.left(payrailError('order_not_refundable'));
  const token = refundTokenOf(event, creditedByToken(context));
  if (E.isLeft(token)) return token;
  const { network, currency } = payTokens[token.right];
  if (!isAddressOn(network, event.address)) {
    return E.left(payrailError('invalid_refund_address', { network }));
  }
  const amount = refundAmountOf(context, status, event, refundableOf(context, token.right));
  if (E.isLeft(amount)) return amount;
  if (amount.right.greaterThan(event.available[currency])) {
    return E.left(payrailError('insufficient_balance'));
  }
  return E.right({ token_id: token.right, amount: formatPayAmount(amount.right) });
};

/**
 * Why an operator may not resolve the order, or undefined when it may: it was resolved before
 * (`order already resolved`); it is not an exception (`underpaid`, `expired`, or paid after expiry
 * or close and not completed); or it is to be accepted as paid with nothing it keeps (nothing
 * credited, or all of it refunded or being refunded).
 */
export const resolutionRefusalOf = (
  context: AcquiringOrderContext,
  status: OrderStatus,
  action: ResolutionAction,
): PayrailError | undefined => {
  if (context.resolution !== null) return payrailError('order_already_resolved');
  const anomalous = context.anomaly_tag === 'expired_paid' && status !== 'completed';
  if (status !== 'underpaid' && status !== 'expired' && !anomalous) {
    return payrailError('order_not_resolvable');
  }
  // What the order keeps: credited less the refunds that count (an order refunded in full, or
  // while a refund is on its way, has nothing to accept as paid).
  const kept = total(creditedByToken(context)).minus(total(refundedByToken(context)));
  return action === 'accept' && kept.lessThanOrEqualTo(0)
    ? payrailError('nothing_to_accept')
    : undefined;
};
