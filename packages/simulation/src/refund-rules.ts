/**
 * What the model expects of refunds, order resolutions, refund reviews and refund reports (ADR
 * 0044), written from the ADR rather than from the engine's rules: given the order as stored, the
 * refunds that count against it and the merchant's available balance, the answer a request must
 * get: what it grants, or the catalogue message that refuses it, first broken rule first.
 */
import {
  type AcquiringOrderContext,
  aggregateOrderStatus,
  balancesOf,
  Decimal,
  type OrderStatus,
  type PayrailError,
  type PayTokenId,
  payrailError,
  payTokens,
  restoreOrder,
  restoreRefund,
} from '@payrail/core';
import type { Model, RefundAsk, SimOrder, SimRefund } from './model.js';
import type { World } from './world.js';

/** Addresses the simulation sends refunds to: one of each format, and one of none. */
export const refundAddresses = {
  tron: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
  evm: '0x52908400098527886E0F7030069857D2E4169EE7',
  garbage: 'not-an-address',
} as const;

/** The address format each network of the simulated tokens takes. */
const formatOf = (network: string): 'tron' | 'evm' => (network === 'TRON' ? 'tron' : 'evm');

/** The right address for `tokenId`'s network, or one of another format. */
export const addressFor = (tokenId: string, right: boolean): string => {
  const format = formatOf(payTokens[tokenId as PayTokenId].network);
  if (right) return refundAddresses[format];
  return format === 'tron' ? refundAddresses.evm : refundAddresses.tron;
};

const fitsNetwork = (network: string, address: string): boolean =>
  address === refundAddresses[formatOf(network)];

/** An order as a refund or a resolution finds it: the model's reading of the stored order. */
export interface OrderNow {
  readonly context: AcquiringOrderContext;
  /** The status at the clock's now (an operator's resolution decides it for good). */
  readonly status: OrderStatus;
  /** Per token, what its payments completed on chain credited, in the order they came. */
  readonly credited: ReadonlyMap<string, Decimal>;
  /** Per token, the refunds of the order that count: neither rejected nor failed. */
  readonly counted: ReadonlyMap<string, Decimal>;
  /** The merchant's available balance per currency. */
  readonly available: ReadonlyMap<string, Decimal>;
}

const zero = new Decimal(0);
const of = (map: ReadonlyMap<string, Decimal>, key: string): Decimal => map.get(key) ?? zero;
const totalOf = (map: ReadonlyMap<string, Decimal>): Decimal =>
  [...map.values()].reduce((sum, v) => sum.plus(v), zero);
const adding = (map: ReadonlyMap<string, Decimal>, key: string, amount: Decimal) =>
  new Map(map).set(key, of(map, key).plus(amount));

/** What an order says its status is at `now`: its resolution, else the aggregation of docs/spec/decisions.md §4. */
const statusAt = (c: AcquiringOrderContext, now: number): OrderStatus => {
  if (c.resolution?.action === 'accept') return 'completed';
  if (c.resolution?.action === 'refuse') return 'closed';
  return aggregateOrderStatus({
    payments: Object.values(c.payments),
    payAmount: c.pay_amount,
    underpayTolerance: c.underpay_tolerance,
    expireTime: c.expire_time,
    now: Math.max(c.updated_at, now),
    closed: c.close_reason !== null,
  });
};

/** Statuses of a refund that no longer count against its order. */
export const isReleased = (status: string): boolean => status === 'rejected' || status === 'failed';

/** The stored status of a refund (through the oracle, around the fault switch). */
export const storedRefundStatus = async (world: World, refundId: string): Promise<string> =>
  (await storedRefund(world, refundId)).status;

/** The stored status of a refund and who asked for it. */
export const storedRefund = async (
  world: World,
  refundId: string,
): Promise<{ readonly status: string; readonly requestedBy: string }> => {
  const record = (await world.oracle.record('acquiringRefunds', refundId)) as
    | { readonly status: string; readonly snapshot: unknown }
    | undefined;
  if (record === undefined) return { status: 'missing', requestedBy: '' };
  return {
    status: record.status,
    requestedBy: restoreRefund(record.snapshot).context.requested_by,
  };
};

/** Reads `order` as a refund request would find it now, from the store's oracle. */
export const orderNow = async (world: World, model: Model, order: SimOrder): Promise<OrderNow> => {
  const record = (await world.oracle.record('acquiringOrders', order.orderId)) as {
    readonly snapshot: unknown;
  };
  const context = restoreOrder(record.snapshot).context;
  let credited = new Map<string, Decimal>();
  for (const payment of Object.values(context.payments)) {
    if (payment.chain_status === 'completed') {
      credited = adding(credited, payment.token_id, new Decimal(payment.amount));
    }
  }
  let counted = new Map<string, Decimal>();
  for (const refund of model.refunds.values()) {
    if (refund.order !== order) continue;
    if (isReleased(await storedRefundStatus(world, refund.refundId))) continue;
    counted = adding(counted, refund.tokenId, new Decimal(refund.amount));
  }
  const account = order.merchant.accountId;
  const balances = balancesOf(account, await world.oracle.postings());
  const available = new Map(balances.map((b) => [b.currency, new Decimal(b.available)]));
  return {
    context,
    status: statusAt(context, world.clock.now()),
    credited,
    counted,
    available,
  };
};

/**
 * What the model expects: granted (token and amount), the refund an earlier request under the
 * same `client_refund_id` made, or refused with one of `messages`.
 */
export type Verdict =
  | { readonly granted: { readonly tokenId: string; readonly amount: Decimal } }
  | { readonly repeat: string }
  | { readonly refused: readonly string[] };

/** Refused with the catalogue's message of one of `errors` (its code and parameters). */
export const refused = (...errors: PayrailError[]): { readonly refused: readonly string[] } => ({
  refused: errors.map((e) => e.message),
});

/** What a review or an execution report must answer: the refund's status after it, or refusals. */
export type StatusVerdict = string | { readonly refused: readonly string[] };

const isRefundable = (now: OrderNow): boolean =>
  now.status === 'completed' ||
  now.status === 'underpaid' ||
  now.context.anomaly_tag === 'expired_paid' ||
  now.context.resolution?.action === 'refuse';

/** What the order can still give back in `token`: what it credited less what counts. */
export const leftOf = (now: OrderNow, token: string): Decimal =>
  of(now.credited, token).minus(of(now.counted, token));

/** The part paid over pay_amount not given back yet: only a completed order has one. */
const overpaidLeft = (now: OrderNow): Decimal =>
  now.status === 'completed'
    ? Decimal.max(
        totalOf(now.credited).minus(now.context.pay_amount).minus(totalOf(now.counted)),
        0,
      )
    : zero;

const amountAsked = (now: OrderNow, ask: RefundAsk, left: Decimal): Verdict | Decimal => {
  if (left.lessThanOrEqualTo(0)) return refused(payrailError('nothing_to_refund'));
  if (ask.refund_type === 'full') return left;
  if (ask.refund_type === 'overpaid') {
    const over = Decimal.min(overpaidLeft(now), left);
    return over.greaterThan(0) ? over : refused(payrailError('nothing_to_refund'));
  }
  const amount = new Decimal(ask.amount ?? 0);
  return amount.lessThanOrEqualTo(left)
    ? amount
    : refused(payrailError('refund_exceeds_refundable', { refundable: left.toFixed(6) }));
};

/** The answer a merchant's refund request must get from the order as it is now. */
export const expectRefund = (now: OrderNow, ask: RefundAsk): Verdict => {
  if (ask.refund_type === 'partial' && !new Decimal(ask.amount ?? 0).greaterThan(0)) {
    return refused(payrailError('amount_must_be_positive'));
  }
  if (!isRefundable(now)) {
    return refused(payrailError('order_not_refundable'));
  }
  const tokens = [...now.credited.keys()];
  const token = ask.token_id ?? (tokens.length === 1 ? tokens[0] : undefined);
  if (token === undefined) return refused(payrailError('field_required', { field: 'token_id' }));
  if (!now.credited.has(token))
    return refused(payrailError('refund_token_not_paid', { token_id: token }));
  const { network, currency } = payTokens[token as PayTokenId];
  if (!fitsNetwork(network, ask.address))
    return refused(payrailError('invalid_refund_address', { network }));
  const amount = amountAsked(now, ask, leftOf(now, token));
  if (!(amount instanceof Decimal)) return amount;
  if (amount.greaterThan(of(now.available, currency)))
    return refused(payrailError('insufficient_balance'));
  return { granted: { tokenId: token, amount } };
};

/**
 * A request under a `client_refund_id` the account used before: the same request (order, type,
 * address, and token and amount when named) answers the refund it made; another is refused.
 */
export const expectRepeat = (
  earlier: { readonly refund: SimRefund; readonly ask: RefundAsk },
  orderId: string,
  ask: RefundAsk,
): Verdict => {
  const { refund } = earlier;
  const same =
    refund.order.orderId === orderId &&
    earlier.ask.refund_type === ask.refund_type &&
    earlier.ask.address === ask.address &&
    (ask.token_id === undefined || ask.token_id === refund.tokenId) &&
    (ask.amount === undefined || new Decimal(ask.amount).equals(refund.amount));
  return same
    ? { repeat: refund.refundId }
    : refused(payrailError('client_refund_id_already_used'));
};

/** The order after a refund it granted: the amount counts, and is held from available. */
export const afterGrant = (now: OrderNow, verdict: Verdict): OrderNow => {
  if (!('granted' in verdict)) return now;
  const { tokenId, amount } = verdict.granted;
  const currency = payTokens[tokenId as PayTokenId].currency;
  return {
    ...now,
    counted: adding(now.counted, tokenId, amount),
    available: adding(now.available, currency, amount.negated()),
  };
};

/** What a resolution must answer: the status and the refunds it makes, or its refusals. */
export type ResolutionVerdict =
  | {
      readonly status: 'completed' | 'closed';
      readonly refunds: readonly { readonly tokenId: string; readonly amount: Decimal }[];
    }
  | { readonly refused: readonly string[] };

/**
 * An operator's resolution: once only; of an exception only (underpaid, expired, or paid late and
 * not completed); accepting needs money the order keeps (credited less the refunds that count);
 * refusing refunds what each token can still give back to the one address named, each refund
 * waiting for another operator's approval. Tokens are refunded one by one in an order the model
 * does not fix, so when several would fail, any of their refusals is the answer.
 */
export const expectResolution = (
  now: OrderNow,
  action: 'accept' | 'refuse',
  address: string | undefined,
): ResolutionVerdict => {
  const c = now.context;
  if (c.resolution !== null) return refused(payrailError('order_already_resolved'));
  const late = c.anomaly_tag === 'expired_paid' && now.status !== 'completed';
  if (now.status !== 'underpaid' && now.status !== 'expired' && !late) {
    return refused(payrailError('order_not_resolvable'));
  }
  if (action === 'accept') {
    // What the order keeps: credited less the refunds that count.
    return totalOf(now.credited).minus(totalOf(now.counted)).lessThanOrEqualTo(0)
      ? refused(payrailError('nothing_to_accept'))
      : { status: 'completed', refunds: [] };
  }
  const refunds: { tokenId: string; amount: Decimal }[] = [];
  const failures: PayrailError[] = [];
  for (const token of now.credited.keys()) {
    const left = leftOf(now, token);
    if (left.lessThanOrEqualTo(0)) continue;
    const { network, currency } = payTokens[token as PayTokenId];
    if (address === undefined)
      failures.push(payrailError('field_required', { field: 'refund_address' }));
    else if (!fitsNetwork(network, address))
      failures.push(payrailError('invalid_refund_address', { network }));
    else if (left.greaterThan(of(now.available, currency)))
      failures.push(payrailError('insufficient_balance'));
    else refunds.push({ tokenId: token, amount: left });
  }
  return failures.length > 0 ? refused(...failures) : { status: 'closed', refunds };
};

/**
 * What an operator's review must answer: the refund's next status, or its refusal; an operator
 * never approves a refund it asked for (four eyes).
 */
export const expectReview = (
  refund: { readonly status: string; readonly requestedBy: string },
  action: string | undefined,
  operatorId: string,
): StatusVerdict => {
  if (action === undefined) return refused(payrailError('field_required', { field: 'action' }));
  if (refund.status !== 'requested') return refused(payrailError('invalid_refund_status'));
  if (action === 'reject') return 'rejected';
  return refund.requestedBy === `operator:${operatorId}`
    ? refused(payrailError('refund_approved_by_requester'))
    : 'approved';
};

/**
 * What an execution report must answer, through the executor's door or the sandbox's act alike:
 * a report the refund already reflects (the same outcome again, or `processing` after the end)
 * answers it as it is; else only a refund with the executor (approved or processing) moves; a
 * refund never comes back (`returned` is refused).
 */
export const expectReport = (
  status: string,
  outcome: 'processing' | 'completed' | 'failed' | 'returned',
): StatusVerdict => {
  if (outcome === 'returned') return refused(payrailError('invalid_refund_status'));
  const done = status === 'completed' || status === 'failed';
  if (status === outcome || (outcome === 'processing' && done)) return status;
  return status === 'approved' || status === 'processing'
    ? outcome
    : refused(payrailError('invalid_refund_status'));
};
