/**
 * Refunds of pay-ins and resolutions of exception orders (issue 21, ADR 0044), as the merchant,
 * the operator and the executor drive them. Every answer is judged against what the model expects
 * (`refund-rules.ts`): a grant of the amount the model computed, or exactly the catalogue message
 * of the first rule broken; anything else fails the step.
 */
import { Decimal, payrailError } from '@payrail/core';
import { bootstrapOperator } from '@payrail/engine';
import * as E from 'fp-ts/lib/Either.js';
import { type Action, type Answer, type Context, pickApplicable } from './action-kit.js';
import type { RefundAsk, SimMerchant, SimOrder, SimRefund } from './model.js';
import {
  addressFor,
  afterGrant,
  expectRefund,
  expectRepeat,
  expectReport,
  expectResolution,
  expectReview,
  leftOf,
  type OrderNow,
  orderNow,
  refundAddresses,
  refused,
  type StatusVerdict,
  storedRefund,
  storedRefundStatus,
  type Verdict,
} from './refund-rules.js';

/** The part of `data.refund` the simulation reads. */
interface RefundAnswer {
  readonly refund: {
    readonly refund_id: string;
    readonly order_id: string;
    readonly token_id: string;
    readonly currency: string;
    readonly amount: string;
    readonly status: string;
  };
}

const simulatedTokens = ['TRON_USDT', 'ETH_USDC'] as const;

/** Orders a merchant may refund: completed, underpaid, paid late, or refused by an operator. */
const refundable = (o: SimOrder): boolean =>
  o.status === 'completed' ||
  o.status === 'underpaid' ||
  o.anomaly === 'expired_paid' ||
  o.resolution === 'refuse';

/** A partial amount: mostly within what is left, sometimes all of it, above it, or the least. */
const partialAmount = (ctx: Context, left: Decimal): string => {
  const kind = ctx.random.pick(['part', 'part', 'part', 'all', 'above', 'least'] as const);
  const least = new Decimal('0.000001');
  const amount =
    kind === 'part'
      ? left.times(ctx.random.int(1, 99)).dividedBy(100).toDecimalPlaces(6, Decimal.ROUND_DOWN)
      : kind === 'all'
        ? left
        : kind === 'above'
          ? left.plus(new Decimal(ctx.random.int(1, 5_000_000)).dividedBy(1_000_000))
          : least;
  return Decimal.max(amount, least).toFixed(6);
};

/**
 * A refund request of a random type: mostly in a token the order was paid in, sometimes naming
 * none or one it was not paid in; sometimes to an address of another network or of none.
 */
const refundAsk = (ctx: Context, order: SimOrder, now: OrderNow): RefundAsk => {
  // In token order: the order payments are kept in is the store's (PostgreSQL reorders JSON keys).
  const credited = [...now.credited.keys()].sort();
  const refundType = ctx.random.pick(['full', 'partial', 'partial', 'overpaid'] as const);
  const roll = ctx.random.int(1, 100);
  const token =
    credited.length > 0 && roll <= 65
      ? ctx.random.pick(credited)
      : roll <= 88
        ? undefined
        : ctx.random.pick(simulatedTokens);
  const addressed = token ?? credited[0] ?? order.allowed[0] ?? 'TRON_USDT';
  const wrong = ctx.random.chance(0.12);
  const address =
    wrong && ctx.random.chance(0.25) ? refundAddresses.garbage : addressFor(addressed, !wrong);
  const left = leftOf(now, addressed);
  return {
    refund_type: refundType,
    ...(refundType === 'partial'
      ? { amount: partialAmount(ctx, left.greaterThan(0) ? left : new Decimal(order.payAmount)) }
      : {}),
    ...(token === undefined ? {} : { token_id: token }),
    address,
    ...(ctx.random.chance(0.3) ? { reason: 'the customer sent it back' } : {}),
  };
};

const askLine = (ask: RefundAsk) =>
  `${ask.refund_type}${ask.amount === undefined ? '' : ` ${ask.amount}`} ${ask.token_id ?? '-'}` +
  (ask.client_refund_id === undefined ? '' : ` as ${ask.client_refund_id}`);

/** Why `answer` is not what `verdict` expects, or undefined when it is. */
const mismatchOf = (
  answer: Answer<RefundAnswer>,
  verdict: Verdict,
  merchant: SimMerchant,
): string | undefined => {
  if ('refused' in verdict) {
    const expected = verdict.refused.join("' or '");
    if (E.isRight(answer)) {
      return `granted ${answer.right.refund.amount}, the model expected '${expected}'`;
    }
    return verdict.refused.includes(answer.left.message)
      ? undefined
      : `refused '${answer.left.message}', the model expected '${expected}'`;
  }
  if ('repeat' in verdict) {
    if (E.isLeft(answer)) {
      return `refused '${answer.left.message}', the model expected ${verdict.repeat} again`;
    }
    return answer.right.refund.refund_id === verdict.repeat
      ? undefined
      : `answered ${answer.right.refund.refund_id}, the model expected ${verdict.repeat} again`;
  }
  const { tokenId, amount } = verdict.granted;
  if (E.isLeft(answer)) {
    return `refused '${answer.left.message}', the model expected ${amount.toFixed(6)} ${tokenId}`;
  }
  const r = answer.right.refund;
  const status = merchant.autoApprove ? 'approved' : 'requested';
  return r.token_id === tokenId && amount.equals(r.amount) && r.status === status
    ? undefined
    : `granted ${r.amount} ${r.token_id} ${r.status}, the model expected ${amount.toFixed(6)} ${tokenId} ${status}`;
};

const clientKey = (merchant: SimMerchant, clientRefundId: string) =>
  `${merchant.accountId}|${clientRefundId}`;

/** What `order`'s merchant must be answered for `ask`: its repeat, if it is one, else the order's. */
const expectAsk = (ctx: Context, order: SimOrder, now: OrderNow, ask: RefundAsk): Verdict => {
  const earlier =
    ask.client_refund_id === undefined
      ? undefined
      : ctx.model.clientRefunds.get(clientKey(order.merchant, ask.client_refund_id));
  return earlier === undefined ? expectRefund(now, ask) : expectRepeat(earlier, order.orderId, ask);
};

/** The model learns a refund the engine granted, and the `client_refund_id` it was asked under. */
const learn = (
  ctx: Context,
  order: SimOrder,
  answer: Answer<RefundAnswer>,
  ask?: RefundAsk,
): void => {
  if (E.isLeft(answer)) return;
  const r = answer.right.refund;
  if (ctx.model.refunds.has(r.refund_id)) return;
  const refund: SimRefund = {
    refundId: r.refund_id,
    order,
    tokenId: r.token_id,
    currency: r.currency,
    amount: r.amount,
    status: r.status,
  };
  ctx.model.refunds.set(r.refund_id, refund);
  if (ask?.client_refund_id !== undefined) {
    ctx.model.clientRefunds.set(clientKey(order.merchant, ask.client_refund_id), { refund, ask });
  }
};

const answerLine = (answer: Answer<RefundAnswer>): string =>
  E.isRight(answer)
    ? `ok ${answer.right.refund.refund_id} ${answer.right.refund.amount} ${answer.right.refund.status}`
    : `refused: ${answer.left.message}`;

/** A fresh `client_refund_id`, or another request's `client_refund_id` the account used. */
const withClientId = (ctx: Context, ask: RefundAsk, reused: string | undefined): RefundAsk => {
  if (reused !== undefined) return { ...ask, client_refund_id: reused };
  if (!ctx.random.chance(0.3)) return ask;
  ctx.serial += 1;
  return { ...ask, client_refund_id: `refund-${ctx.serial}` };
};

const refundCreate: Action = {
  name: 'refund.create',
  weight: 5,
  run: async (ctx) => {
    // Now and then a request under a client_refund_id used before: the same one again (a retry),
    // or another one (refused).
    const earlier = [...ctx.model.clientRefunds.values()];
    const repeat =
      earlier.length > 0 && ctx.random.chance(0.12) ? ctx.random.pick(earlier) : undefined;
    const order =
      repeat?.refund.order ?? pickApplicable(ctx, ctx.model.orders.values(), refundable);
    if (order === undefined) return undefined;
    const now = await orderNow(ctx.world, ctx.model, order);
    const ask =
      repeat !== undefined && ctx.random.chance(0.6)
        ? repeat.ask
        : withClientId(ctx, refundAsk(ctx, order, now), repeat?.ask.client_refund_id);
    // Now and then another merchant's key, which must not find the order.
    const others = ctx.model.merchants.filter((m) => m !== order.merchant);
    const stranger =
      others.length > 0 && ctx.random.chance(0.05) ? ctx.random.pick(others) : undefined;
    const caller = (stranger ?? order.merchant).callers[0];
    const answer = await ctx.world.engine.acquiring.refund(caller, order.orderId, ask);
    const verdict: Verdict =
      stranger === undefined
        ? expectAsk(ctx, order, now, ask)
        : refused(payrailError('order_not_found'));
    const wrong = mismatchOf(answer, verdict, order.merchant);
    const line = `${order.orderId} ${askLine(ask)}${stranger === undefined ? '' : ' (stranger)'}`;
    if (wrong !== undefined) return `VIOLATION: refund of ${line}: ${wrong}`;
    learn(ctx, order, answer, ask);
    return `${line} -> ${answerLine(answer)}`;
  },
};

/** Whether two answers are the same refund, or the same refusal. */
const sameAnswer = (a: Answer<RefundAnswer>, b: Answer<RefundAnswer>): boolean =>
  E.isRight(a) && E.isRight(b)
    ? a.right.refund.refund_id === b.right.refund.refund_id
    : E.isLeft(a) && E.isLeft(b) && a.left.message === b.left.message;

/** The two answers fit the requests decided one after the other, in either order. */
const twiceMismatch = (
  ctx: Context,
  order: SimOrder,
  now: OrderNow,
  asks: readonly [RefundAsk, RefundAsk],
  answers: readonly [Answer<RefundAnswer>, Answer<RefundAnswer>],
): string | undefined => {
  const [first, second] = asks;
  const [a, b] = answers;
  const mismatch = (answer: Answer<RefundAnswer>, verdict: Verdict) =>
    mismatchOf(answer, verdict, order.merchant);
  if (first.client_refund_id !== undefined && first === second) {
    // One request sent twice under one client_refund_id: one refund (or one refusal), twice.
    const wrong = mismatch(a, expectAsk(ctx, order, now, first));
    return wrong ?? (sameAnswer(a, b) ? undefined : 'the same request was answered two ways');
  }
  const firstFirst = expectRefund(now, first);
  const inOrder = [firstFirst, expectRefund(afterGrant(now, firstFirst), second)] as const;
  const secondFirst = expectRefund(now, second);
  const reversed = [expectRefund(afterGrant(now, secondFirst), first), secondFirst] as const;
  const fits = (verdicts: readonly [Verdict, Verdict]) =>
    mismatch(a, verdicts[0]) === undefined && mismatch(b, verdicts[1]) === undefined;
  if (fits(inOrder) || fits(reversed)) return undefined;
  return [mismatch(a, inOrder[0]), mismatch(b, inOrder[1])].filter(Boolean).join('; ');
};

/**
 * Two refunds of one order asked at once (a double click, or two of the merchant's systems),
 * sometimes one request twice under one client_refund_id: the stores run units of work one after
 * another, so the answers are the two requests decided in one order or the other, never both
 * granted from the same remainder, and one request under one id makes one refund.
 */
const refundTwice: Action = {
  name: 'refund.create_twice',
  weight: 2,
  compound: true,
  run: async (ctx) => {
    const order = pickApplicable(ctx, ctx.model.orders.values(), refundable);
    if (order === undefined) return undefined;
    const now = await orderNow(ctx.world, ctx.model, order);
    const asked = refundAsk(ctx, order, now);
    const twice = ctx.random.chance(0.5);
    ctx.serial += 1;
    const first =
      twice && ctx.random.chance(0.5)
        ? { ...asked, client_refund_id: `refund-${ctx.serial}` }
        : asked;
    const second = twice ? first : refundAsk(ctx, order, now);
    const [caller, other] = order.merchant.callers;
    const settled = await Promise.allSettled([
      ctx.world.engine.acquiring.refund(caller, order.orderId, first),
      ctx.world.engine.acquiring.refund(
        ctx.random.chance(0.5) ? other : caller,
        order.orderId,
        second,
      ),
    ]);
    const asks = [first, second] as const;
    settled.forEach((s, i) => {
      if (s.status === 'fulfilled') learn(ctx, order, s.value, asks[i]);
    });
    const answers = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const thrown = settled.find((s) => s.status === 'rejected');
    // An injected abort: the other answer counts, but neither can be judged against a sequence.
    if (thrown !== undefined) throw thrown.reason;
    const [a, b] = answers;
    if (a === undefined || b === undefined) return 'VIOLATION: two refunds asked, fewer answered';
    const line = `${order.orderId} ${askLine(first)} + ${askLine(second)}`;
    const wrong = twiceMismatch(ctx, order, now, asks, [a, b]);
    if (wrong !== undefined) return `VIOLATION: refunds at once of ${line}: ${wrong}`;
    return `${line} -> ${answerLine(a)} + ${answerLine(b)}`;
  },
};

/** Why a refund's status answer is not what the model expects, or undefined when it is. */
const statusMismatch = (
  answer: Answer<RefundAnswer>,
  verdict: StatusVerdict,
): string | undefined => {
  if (typeof verdict === 'string') {
    if (E.isLeft(answer)) return `refused '${answer.left.message}', the model expected ${verdict}`;
    return answer.right.refund.status === verdict
      ? undefined
      : `answered ${answer.right.refund.status}, the model expected ${verdict}`;
  }
  if (E.isRight(answer)) {
    return `answered ${answer.right.refund.status}, the model expected '${verdict.refused.join("' or '")}'`;
  }
  return verdict.refused.includes(answer.left.message)
    ? undefined
    : `refused '${answer.left.message}', the model expected '${verdict.refused.join("' or '")}'`;
};

const pickRefund = (
  ctx: Context,
  statuses: readonly string[],
  otherwise?: number,
): SimRefund | undefined =>
  pickApplicable(ctx, ctx.model.refunds.values(), (r) => statuses.includes(r.status), otherwise);

const refundReview: Action = {
  name: 'refund.review',
  weight: 5,
  run: async (ctx) => {
    const refund = pickRefund(ctx, ['requested']);
    if (refund === undefined) return undefined;
    const stored = await storedRefund(ctx.world, refund.refundId);
    const action = ctx.random.chance(0.04)
      ? undefined
      : ctx.random.pick(['approve', 'approve', 'reject'] as const);
    const operator = ctx.random.pick(ctx.model.operators);
    const body = action === undefined ? {} : { action, reason: `simulated ${action}` };
    const answer = await ctx.world.engine.admin.reviewRefund(operator, refund.refundId, body);
    const wrong = statusMismatch(answer, expectReview(stored, action, operator.operator_id));
    const line = `${refund.refundId} (${stored.status}) ${action ?? 'no action'} by ${operator.name}`;
    if (wrong !== undefined) return `VIOLATION: review of ${line}: ${wrong}`;
    return `${line} -> ${answerLine(answer)}`;
  },
};

/**
 * The executor's word on a refund, through its door or the sandbox's act: mostly an outcome that
 * moves it, sometimes the one it already has (a retried report), and now and then `returned`,
 * which a refund never is.
 */
const refundExecution: Action = {
  name: 'refund.execution',
  weight: 6,
  run: async (ctx) => {
    // When none is with the executor, often one that ended (a late or repeated report).
    const refund = pickRefund(ctx, ['approved', 'processing'], 0.5);
    if (refund === undefined) return undefined;
    const status = await storedRefundStatus(ctx.world, refund.refundId);
    const again = ['processing', 'completed', 'failed'].includes(status) && ctx.random.chance(0.25);
    const outcome = ctx.random.chance(0.04)
      ? 'returned'
      : again
        ? (status as 'processing' | 'completed' | 'failed')
        : ctx.random.pick(['processing', 'completed', 'completed', 'failed'] as const);
    const door = ctx.random.chance(0.5) ? 'sandbox' : 'executor';
    const reason = 'the address refused the transfer';
    const { engine } = ctx.world;
    const answer: Answer<RefundAnswer> =
      door === 'sandbox'
        ? await engine.admin.sandboxRefundExecution(bootstrapOperator, refund.refundId, {
            outcome,
            ...(outcome === 'failed' || outcome === 'returned' ? { reason } : {}),
          })
        : await engine.executions.reportRefund(
            refund.refundId,
            outcome === 'failed' || outcome === 'returned'
              ? { status: outcome, reason }
              : { status: outcome },
          );
    const wrong = statusMismatch(answer, expectReport(status, outcome));
    const line = `${refund.refundId} (${status}) ${outcome} by the ${door}`;
    if (wrong !== undefined) return `VIOLATION: report of ${line}: ${wrong}`;
    return `${line} -> ${answerLine(answer)}`;
  },
};

/** An exception an operator may resolve: underpaid, expired, or paid late and not completed. */
const exception = (o: SimOrder): boolean =>
  o.resolution === undefined &&
  (o.status === 'underpaid' ||
    o.status === 'expired' ||
    (o.anomaly === 'expired_paid' && o.status !== 'completed'));

interface ResolveAnswer {
  readonly order: { readonly status: string };
  readonly refunds?: readonly RefundAnswer['refund'][] | undefined;
}

/** Why a resolution's answer is not what the model expects, or undefined when it is. */
const resolutionMismatch = (
  answer: E.Either<{ readonly message: string }, ResolveAnswer>,
  verdict: ReturnType<typeof expectResolution>,
): string | undefined => {
  if ('refused' in verdict) {
    const expected = verdict.refused.join("' or '");
    if (E.isRight(answer)) return `resolved it, the model expected '${expected}'`;
    return verdict.refused.includes(answer.left.message)
      ? undefined
      : `refused '${answer.left.message}', the model expected '${expected}'`;
  }
  if (E.isLeft(answer)) {
    return `refused '${answer.left.message}', the model expected ${verdict.status}`;
  }
  const refunds = answer.right.refunds ?? [];
  const made = refunds.map((r) => `${r.token_id} ${r.amount} ${r.status}`).sort();
  const expected = verdict.refunds
    .map((r) => `${r.tokenId} ${r.amount.toFixed(6)} requested`)
    .sort();
  if (answer.right.order.status !== verdict.status || made.join() !== expected.join()) {
    return `answered ${answer.right.order.status} with refunds [${made.join(', ')}], the model expected ${verdict.status} with [${expected.join(', ')}]`;
  }
  return undefined;
};

const resolveOrder: Action = {
  name: 'order.resolve',
  weight: 3,
  run: async (ctx) => {
    const order = pickApplicable(ctx, ctx.model.orders.values(), exception);
    if (order === undefined) return undefined;
    const now = await orderNow(ctx.world, ctx.model, order);
    const action = ctx.random.pick(['accept', 'refuse'] as const);
    const paidIn = [...now.credited.keys()].sort()[0] ?? order.allowed[0] ?? 'TRON_USDT';
    const roll = ctx.random.int(1, 100);
    const address =
      roll <= 85 ? addressFor(paidIn, true) : roll <= 95 ? addressFor(paidIn, false) : undefined;
    const operator = ctx.random.pick(ctx.model.operators);
    const answer = await ctx.world.engine.admin.resolveOrder(operator, order.orderId, {
      action,
      reason: `simulated ${action}`,
      ...(address === undefined ? {} : { refund_address: address }),
    });
    const wrong = resolutionMismatch(answer, expectResolution(now, action, address));
    const line = `${order.orderId} (${now.status}) ${action} by ${operator.name}${address === undefined ? ' without an address' : ''}`;
    if (wrong !== undefined) return `VIOLATION: resolution of ${line}: ${wrong}`;
    if (E.isLeft(answer)) return `${line} -> refused: ${answer.left.message}`;
    order.resolution = action;
    // In token order, so the model's history does not depend on the order the engine made them.
    const refunds = [...(answer.right.refunds ?? [])].sort((x, y) =>
      x.token_id.localeCompare(y.token_id),
    );
    for (const refund of refunds) learn(ctx, order, E.right({ refund }));
    const made = refunds.map((r) => `${r.token_id} ${r.amount}`).join(', ');
    return `${line} -> ok ${answer.right.order.status}${made === '' ? '' : `, refunds ${made}`}`;
  },
};

/** The actions of refunds and resolutions, for the simulation's table. */
export const refundActions: readonly Action[] = [
  refundCreate,
  refundTwice,
  refundReview,
  refundExecution,
  resolveOrder,
];
