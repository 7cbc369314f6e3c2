/**
 * What must hold after every step, read two ways: through the store's oracle (its `/testing`
 * entry, around the ports) and through the engine as a merchant reads it. Each check answers
 * the violations it found, in words; an empty list means the step kept every invariant.
 *
 * Money (issue 21): every journal nets to zero; each merchant's buckets are its ledger's replay
 * (and its records' running balances); a payout's, a pay-in's and a refund's journals match
 * their state; a returned payout is credited once; an order never has more refunds counting
 * than its payments brought in, per token, and says so in `refunded_amount`; the pay-in clearing
 * holds what came in less what was refunded; a resolved order keeps its resolution's status; a
 * statement of an ended period keeps saying the same.
 */
import {
  aggregateOrderStatus,
  balancesOf,
  type CollectionName,
  collectionSpecs,
  Decimal,
  isFinalOrderStatus,
  isFinalPayout,
  type OrderStatus,
  type PayTokenId,
  type Posting,
  payoutStateKeyOf,
  payTokens,
  platformAccounts,
  refundStatusOf,
  restoreBatch,
  restoreOrder,
  restorePayout,
  restoreRefund,
} from '@payrail/core';
import { maxDeliveryAttempts, retryDelaysSeconds } from '@payrail/webhooks';
import * as E from 'fp-ts/lib/Either.js';
import type { Model, SimMerchant, SimOrder } from './model.js';
import { isReleased } from './refund-rules.js';
import { ledgerOf } from './statement-checks.js';
import type { World } from './world.js';

type Stored = Posting & { readonly journal_id: string };
type Journals = ReadonlyMap<string, readonly Stored[]>;
/** How many records of the merchants' ledgers each `<business id>|<record type>` has. */
type LedgerCounts = Map<string, number>;

const zero = new Decimal(0);
const sum = (values: readonly string[]): Decimal =>
  values.reduce((total, v) => total.plus(v), zero);
const adding = (map: Map<string, Decimal>, key: string, amount: Decimal | string) =>
  map.set(key, (map.get(key) ?? zero).plus(amount));

/** Every journal nets to zero in each currency, and every journal has postings. */
const journalsNetToZero = (
  postings: readonly Stored[],
  journalIds: readonly string[],
): string[] => {
  const totals = new Map<string, Decimal>();
  for (const p of postings) {
    const key = `${p.journal_id} ${p.currency}`;
    totals.set(key, (totals.get(key) ?? zero).plus(p.amount));
  }
  const found = [...totals].filter(([, total]) => !total.isZero());
  const withPostings = new Set(postings.map((p) => p.journal_id));
  return [
    ...found.map(([key, total]) => `journal ${key} nets to ${total.toString()}, not 0`),
    ...journalIds
      .filter((id) => !withPostings.has(id))
      .map((id) => `journal ${id} has no postings`),
  ];
};

const keyOf = (currency: string, bucket: string) => `${currency} ${bucket}`;

/**
 * Balances: none negative; the port's, the merchant's and the postings' agree; the ledger sums,
 * record by record, to the balance. Counts the ledger's records per business object and type.
 */
const balancesHold = async (
  world: World,
  merchant: SimMerchant,
  postings: readonly Stored[],
  counts: LedgerCounts,
): Promise<string[]> => {
  const problems: string[] = [];
  const account = merchant.accountId;
  const fromPostings = balancesOf(account, postings);
  const fromPort = await world.store.transaction((tx) => tx.ledger.balances(account));
  const read = await world.engine.accounts.balances(merchant.callers[0], {});
  if (E.isLeft(read)) return [`${account}: balances refused: ${read.left.message}`];
  const expected = new Map<string, Decimal>();
  for (const b of fromPostings) {
    for (const bucket of ['available', 'held'] as const) {
      const value = new Decimal(b[bucket]);
      if (value.isNegative()) problems.push(`${account} ${b.currency} ${bucket} is ${value}`);
      expected.set(keyOf(b.currency, bucket), value);
    }
  }
  const compare = (source: string, currency: string, bucket: string, value: string) => {
    const want = expected.get(keyOf(currency, bucket)) ?? zero;
    if (!want.equals(value)) {
      problems.push(
        `${account} ${currency} ${bucket}: ${source} says ${value}, its postings sum to ${want}`,
      );
    }
  };
  for (const b of fromPort) {
    compare('the store', b.currency, 'available', b.available);
    compare('the store', b.currency, 'held', b.held);
  }
  for (const b of read.right.items) {
    compare('GET /payment/balances', b.currency, 'available', b.available);
    compare('GET /payment/balances', b.currency, 'held', b.held);
  }
  // The ledger as the merchant pages through it sums to the balance, bucket by bucket.
  const records = await ledgerOf(world, merchant);
  if (E.isLeft(records)) return [...problems, records.left];
  const ledger = new Map<string, Decimal>();
  for (const entry of records.right) {
    const key = keyOf(entry.currency, entry.bucket);
    const after = (ledger.get(key) ?? zero).plus(entry.amount);
    ledger.set(key, after);
    if (!after.equals(entry.balance_after)) {
      problems.push(
        `${account} ledger ${entry.transaction_id} ${entry.bucket}: balance_after ` +
          `${entry.balance_after}, its records sum to ${after}`,
      );
    }
    const counted = `${entry.business_id}|${entry.record_type}`;
    counts.set(counted, (counts.get(counted) ?? 0) + 1);
  }
  for (const [key, want] of expected) {
    const got = ledger.get(key) ?? zero;
    if (!got.equals(want))
      problems.push(`${account} ${key}: the ledger sums to ${got}, not ${want}`);
  }
  return problems;
};

const finalPair = (review: string, execution: string): boolean =>
  review === 'rejected' || ['completed', 'failed', 'cancelled'].includes(execution);

/**
 * A payout's journals match its state: nothing before execution, a hold while processing, hold
 * and one settlement when completed (and, once it came back, one return of what was sent, the
 * fee kept: ADR 0043), nothing or hold and release when failed.
 */
const payoutMoney = (
  id: string,
  execution: string,
  returned: boolean,
  journals: ReadonlyMap<string, readonly Stored[]>,
): string[] => {
  const mine = (type: string) => journals.get(`${id}:${type}`);
  const hold = mine('payout_hold');
  const release = mine('payout_release');
  const settle = mine('payout');
  const fee = mine('payout_fee');
  const back = mine('payout_return');
  if ((back !== undefined) !== returned) {
    return [`payout ${id}: returned ${returned}, but a return journal ${back !== undefined}`];
  }
  const sent = sum(
    (settle ?? []).filter((p) => p.ledgerAccount.endsWith(':held')).map((p) => p.amount),
  ).negated();
  const net = (bucket: string) =>
    sum(
      [hold, release, settle, fee, back]
        .flatMap((j) => j ?? [])
        .filter(
          (p) => p.ledgerAccount.endsWith(`:${bucket}`) && p.ledgerAccount.startsWith('merchant:'),
        )
        .map((p) => p.amount),
    );
  const held = net('held');
  const available = net('available');
  const holdAmount = sum(
    (hold ?? []).filter((p) => p.ledgerAccount.endsWith(':held')).map((p) => p.amount),
  );
  const shape = `hold ${hold !== undefined}, release ${release !== undefined}, settle ${settle !== undefined}`;
  const wrong = (why: string) => [`payout ${id} (${execution}): ${why} (${shape})`];
  switch (execution) {
    case 'processing':
      if (hold === undefined || release || settle)
        return wrong('processing without exactly a hold');
      if (!held.equals(holdAmount)) return wrong(`held ${held}, hold ${holdAmount}`);
      return [];
    case 'completed':
      if (hold === undefined || release || settle === undefined)
        return wrong('completed not settled once');
      if (!held.isZero()) return wrong(`still holds ${held} after settlement`);
      if (!available.negated().equals(returned ? holdAmount.minus(sent) : holdAmount))
        return wrong(`took ${available.negated()}, held ${holdAmount}, sent ${sent}`);
      return [];
    case 'failed':
      if (settle || fee) return wrong('failed but settled');
      if ((hold === undefined) !== (release === undefined)) return wrong('hold without release');
      if (!held.isZero() || !available.isZero())
        return wrong(`failed but moved ${available}/${held}`);
      return [];
    default:
      if (hold || release || settle || fee) return wrong('money moved before execution');
      return [];
  }
};

/** Reads one stored record through the oracle. */
const recordOf = async <T>(world: World, collection: CollectionName, id: string) =>
  (await world.oracle.record(collection, id)) as T | undefined;

/** The status pair the model saw final must stay; `final` says whether `now` is final. */
const staysFinal = (
  model: Model,
  key: string,
  now: string,
  final: boolean,
  problem: (before: string) => string,
): string[] => {
  const before = model.finals.get(key);
  if (before === undefined && final) model.finals.set(key, now);
  return before !== undefined && before !== now ? [problem(before)] : [];
};

/**
 * Payouts: the record, the snapshot and the merchant's read agree; money matches the state; a
 * final state stays final; a returned payout stays returned, its return credited once (one
 * journal, one record on the merchant's ledger).
 */
const payoutsHold = async (
  world: World,
  model: Model,
  journals: Journals,
  counts: LedgerCounts,
): Promise<string[]> => {
  const problems: string[] = [];
  for (const payout of model.payouts.values()) {
    const id = payout.payoutId;
    const record = await recordOf<{
      status: string;
      review_status: string;
      execution_status: string;
      snapshot: unknown;
    }>(world, 'payouts', id);
    if (record === undefined) {
      problems.push(`payout ${id} was answered but is not stored`);
      continue;
    }
    const snapshot = restorePayout(record.snapshot);
    const pair = `${record.review_status}/${record.execution_status}`;
    payout.state = pair;
    if (isFinalPayout(snapshot) !== finalPair(record.review_status, record.execution_status)) {
      problems.push(`payout ${id}: the snapshot's finality disagrees with ${pair}`);
    }
    const read = await world.engine.payouts.get(payout.merchant.callers[0], id);
    if (E.isLeft(read))
      problems.push(`payout ${id}: the merchant cannot read it: ${read.left.message}`);
    else {
      const seen = `${read.right.payout.review_status}/${read.right.payout.execution_status}`;
      if (seen !== pair) problems.push(`payout ${id}: the merchant reads ${seen}, stored ${pair}`);
    }
    const returned = payoutStateKeyOf(snapshot) === 'approved.returned';
    problems.push(...payoutMoney(id, record.execution_status, returned, journals));
    const returns = counts.get(`${id}|payout_return`) ?? 0;
    if (returns !== (returned ? 1 : 0)) {
      problems.push(`payout ${id} (returned ${returned}): ${returns} payout_return ledger records`);
    }
    const returnedAt = returned ? String(snapshot.context.returned_at) : 'not returned';
    problems.push(
      ...staysFinal(
        model,
        `returned:${id}`,
        returnedAt,
        returned,
        (before) => `payout ${id} returned at ${before}, now ${returnedAt}: a return is for good`,
      ),
      ...staysFinal(
        model,
        `payout:${id}`,
        pair,
        finalPair(record.review_status, record.execution_status),
        (before) => `payout ${id} left its final state ${before} for ${pair}`,
      ),
    );
  }
  return problems;
};

/** The postings each journal of a refund of `amount` makes, by ledger account. */
const refundPostings = (account: string, amount: Decimal) => {
  const available = `merchant:${account}:available`;
  const held = `merchant:${account}:held`;
  return {
    refund_hold: [
      [available, amount.negated()],
      [held, amount],
    ],
    refund: [
      [held, amount.negated()],
      [platformAccounts.payInClearing, amount],
    ],
    refund_release: [
      [held, amount.negated()],
      [available, amount],
    ],
  } as const satisfies Record<string, readonly (readonly [string, Decimal])[]>;
};

/**
 * A refund's money matches its status: a hold from its creation; completed, the hold sent out to
 * the pay-in clearing (`refund`); rejected or failed, the hold released; each journal once, of
 * the refund's amount in its currency, each merchant posting one record of the merchant's ledger.
 */
const refundMoney = (
  id: string,
  status: string,
  refund: { readonly account: string; readonly currency: string; readonly amount: string },
  journals: Journals,
  counts: LedgerCounts,
): string[] => {
  const problems: string[] = [];
  const posted =
    status === 'completed'
      ? ['refund_hold', 'refund']
      : isReleased(status)
        ? ['refund_hold', 'refund_release']
        : ['refund_hold'];
  const expected = refundPostings(refund.account, new Decimal(refund.amount));
  for (const [type, postings] of Object.entries(expected)) {
    const journal = journals.get(`${id}:${type}`);
    const wanted = posted.includes(type);
    if (wanted !== (journal !== undefined)) {
      problems.push(
        `refund ${id} (${status}): its ${type} journal is ${wanted ? 'missing' : 'there'}`,
      );
    }
    const records = counts.get(`${id}|${type}`) ?? 0;
    const merchantPostings = postings.filter(([to]) => to.startsWith('merchant:')).length;
    if (records !== (wanted ? merchantPostings : 0)) {
      problems.push(
        `refund ${id} (${status}): ${records} ${type} records on the merchant's ledger`,
      );
    }
    if (journal === undefined) continue;
    const moved = new Map<string, Decimal>();
    for (const p of journal) adding(moved, `${p.currency} ${p.ledgerAccount}`, p.amount);
    const want = new Map(postings.map(([to, amount]) => [`${refund.currency} ${to}`, amount]));
    const same =
      moved.size === want.size && [...want].every(([k, v]) => moved.get(k)?.equals(v) === true);
    if (!same) {
      const shown = [...moved].map(([k, v]) => `${k} ${v}`).join(', ');
      problems.push(`refund ${id}: its ${type} journal moves ${shown}, not ${refund.amount}`);
    }
  }
  return problems;
};

/** What the refunds say, for the orders' and the clearing's checks. */
interface RefundTally {
  /** Per order, the refunds that count against it: id -> token and amount. */
  readonly counting: Map<string, Map<string, { tokenId: string; amount: string }>>;
  /** Per currency, what completed refunds sent out. */
  readonly sent: Map<string, Decimal>;
}

/**
 * Refunds: stored, with the amount, token and order they were answered with; the record, the
 * snapshot and the merchant's read agree; money matches the status; a final status stays.
 */
const refundsHold = async (
  world: World,
  model: Model,
  journals: Journals,
  counts: LedgerCounts,
): Promise<{ problems: string[]; tally: RefundTally }> => {
  const problems: string[] = [];
  const tally: RefundTally = { counting: new Map(), sent: new Map() };
  const stored = await world.oracle.count('acquiringRefunds');
  if (stored !== model.refunds.size) {
    problems.push(`${stored} refunds stored, the engine answered ${model.refunds.size}`);
  }
  for (const refund of model.refunds.values()) {
    const id = refund.refundId;
    const record = await recordOf<{ status: string; snapshot: unknown }>(
      world,
      'acquiringRefunds',
      id,
    );
    if (record === undefined) {
      problems.push(`refund ${id} was answered but is not stored`);
      continue;
    }
    const snapshot = restoreRefund(record.snapshot);
    const c = snapshot.context;
    const status = refundStatusOf(snapshot);
    refund.status = status;
    if (record.status !== status)
      problems.push(`refund ${id}: stored ${record.status}, snapshot ${status}`);
    if (
      c.order_id !== refund.order.orderId ||
      c.token_id !== refund.tokenId ||
      !new Decimal(c.amount).equals(refund.amount)
    ) {
      problems.push(
        `refund ${id}: now ${c.amount} ${c.token_id} of ${c.order_id}, answered ${refund.amount} ${refund.tokenId}`,
      );
    }
    const read = await world.engine.acquiring.getRefund(refund.order.merchant.callers[0], id);
    if (E.isLeft(read))
      problems.push(`refund ${id}: the merchant cannot read it: ${read.left.message}`);
    else if (read.right.refund.status !== status) {
      problems.push(
        `refund ${id}: the merchant reads ${read.right.refund.status}, stored ${status}`,
      );
    }
    const money = { account: c.account_id, currency: c.currency, amount: c.amount };
    problems.push(...refundMoney(id, status, money, journals, counts));
    const final = ['completed', 'failed', 'rejected'].includes(status);
    problems.push(
      ...staysFinal(
        model,
        `refund:${id}`,
        status,
        final,
        (b) => `refund ${id} left ${b} for ${status}`,
      ),
    );
    if (!isReleased(status)) {
      const mine = tally.counting.get(c.order_id) ?? new Map();
      tally.counting.set(c.order_id, mine.set(id, { tokenId: c.token_id, amount: c.amount }));
    }
    if (status === 'completed') adding(tally.sent, c.currency, c.amount);
  }
  return { problems, tally };
};

/** The status a resolution decides for good (ADR 0044). */
const resolvedStatus = { accept: 'completed', refuse: 'closed' } as const;

/**
 * An order's resolution: the status it decides, the one the model was answered, and for good
 * (the same resolution, the same status, whatever comes after).
 */
const resolutionHolds = (
  model: Model,
  order: SimOrder,
  resolution: { readonly action: 'accept' | 'refuse' } | null,
  status: string,
): string[] => {
  const id = order.orderId;
  if (resolution === null) {
    return order.resolution === undefined
      ? []
      : [`order ${id} lost its resolution (${order.resolution})`];
  }
  const problems: string[] = [];
  if (order.resolution !== resolution.action) {
    problems.push(
      `order ${id} is resolved ${resolution.action}, the engine answered ${order.resolution ?? 'none'}`,
    );
  }
  if (status !== resolvedStatus[resolution.action]) {
    problems.push(`order ${id} resolved ${resolution.action} is ${status}`);
  }
  const now = `${JSON.stringify(resolution)} ${status}`;
  return [
    ...problems,
    ...staysFinal(
      model,
      `resolved:${id}`,
      now,
      true,
      (b) => `order ${id} resolved as ${b}, now ${now}`,
    ),
  ];
};

/**
 * No refund above what was paid: per token, the refunds counting against the order (neither
 * rejected nor failed) add up to at most what its payments completed on chain brought in; the
 * order's own list of them is exactly those; `refunded_amount` (checked by the merchant's read)
 * is their sum.
 */
const refundsWithinPaid = (
  order: SimOrder,
  c: ReturnType<typeof restoreOrder>['context'],
  counting: ReadonlyMap<string, { tokenId: string; amount: string }>,
): string[] => {
  const problems: string[] = [];
  const paid = new Map<string, Decimal>();
  for (const p of Object.values(c.payments)) {
    if (p.chain_status === 'completed') adding(paid, p.token_id, p.amount);
  }
  const refunded = new Map<string, Decimal>();
  for (const r of counting.values()) adding(refunded, r.tokenId, r.amount);
  for (const [token, out] of refunded) {
    const came = paid.get(token) ?? zero;
    if (out.greaterThan(came)) {
      problems.push(`order ${order.orderId}: ${out} ${token} refunded, ${came} paid in`);
    }
  }
  const listed = Object.entries(c.refunds)
    .map(([id, r]) => `${id} ${r.token_id} ${new Decimal(r.amount).toFixed(6)}`)
    .sort();
  const counted = [...counting]
    .map(([id, r]) => `${id} ${r.tokenId} ${new Decimal(r.amount).toFixed(6)}`)
    .sort();
  if (listed.join() !== counted.join()) {
    problems.push(
      `order ${order.orderId} counts refunds [${listed.join(', ')}], its refunds say [${counted.join(', ')}]`,
    );
  }
  return problems;
};

/** What the orders say, for the merchants' reads and the clearing's check. */
interface OrderTally {
  /** Per order, the `refunded_amount` it must answer. */
  readonly refunded: Map<string, Decimal>;
  /** Per currency, what payments completed on chain brought in. */
  readonly paidIn: Map<string, Decimal>;
}

/** Every payment completed on chain was credited once, of its amount; no other was. */
const paymentsCredited = (
  id: string,
  payments: readonly { payment_id: string; chain_status: string; amount: string }[],
  journals: Journals,
): string[] => {
  const problems: string[] = [];
  for (const payment of payments) {
    const credited = journals.get(`${payment.payment_id}:pay_in`);
    const confirmed = payment.chain_status === 'completed';
    if (confirmed && credited === undefined) {
      problems.push(`order ${id}: payment ${payment.payment_id} confirmed but never credited`);
    }
    if (!confirmed && credited !== undefined) {
      problems.push(
        `order ${id}: payment ${payment.payment_id} ${payment.chain_status} but credited`,
      );
    }
    if (credited !== undefined) {
      const into = sum(
        credited.filter((p) => p.ledgerAccount.startsWith('merchant:')).map((p) => p.amount),
      );
      if (!into.equals(payment.amount)) {
        problems.push(
          `order ${id}: payment ${payment.payment_id} of ${payment.amount} credited ${into}`,
        );
      }
    }
  }
  return problems;
};

/**
 * Orders: the status is the aggregation of the payment records, or what a resolution decided;
 * every confirmed payment was credited once, nothing else was; a live order has its expiry
 * timer; final stays final but for one resolution, and a resolution for good; refunds within
 * what was paid.
 */
const ordersHold = async (
  world: World,
  model: Model,
  journals: Journals,
  counting: RefundTally['counting'],
): Promise<{ problems: string[]; tally: OrderTally }> => {
  const problems: string[] = [];
  const tally: OrderTally = { refunded: new Map(), paidIn: new Map() };
  const timers = new Set((await world.oracle.timers()).map((t) => t.timer_id));
  for (const order of model.orders.values()) {
    const id = order.orderId;
    const record = await recordOf<{ status: string; snapshot: unknown }>(
      world,
      'acquiringOrders',
      id,
    );
    if (record === undefined) {
      problems.push(`order ${id} was answered but is not stored`);
      continue;
    }
    const snapshot = restoreOrder(record.snapshot);
    const c = snapshot.context;
    const payments = Object.values(c.payments);
    const aggregated =
      c.resolution === null
        ? aggregateOrderStatus({
            payments,
            payAmount: c.pay_amount,
            underpayTolerance: c.underpay_tolerance,
            expireTime: c.expire_time,
            now: c.updated_at,
            closed: c.close_reason !== null,
          })
        : resolvedStatus[c.resolution.action];
    if (record.status !== aggregated || snapshot.value !== aggregated) {
      problems.push(
        `order ${id}: status ${record.status} (snapshot ${String(snapshot.value)}), its payments and resolution make it ${aggregated}`,
      );
    }
    problems.push(...paymentsCredited(id, payments, journals));
    for (const p of payments) {
      if (p.chain_status === 'completed') {
        adding(tally.paidIn, payTokens[p.token_id as PayTokenId].currency, p.amount);
      }
    }
    const mine = counting.get(id) ?? new Map();
    problems.push(...refundsWithinPaid(order, c, mine));
    tally.refunded.set(id, sum([...mine.values()].map((r) => r.amount)));
    const status = record.status as OrderStatus;
    order.status = status;
    order.anomaly = c.anomaly_tag;
    if (!isFinalOrderStatus(status) && !timers.has(`order.expiry:${id}`)) {
      problems.push(`order ${id} is ${status} but its expiry timer is gone`);
    }
    problems.push(...resolutionHolds(model, order, c.resolution, status));
    // A final status moves only by a resolution, once (resolutionHolds keeps it from then on).
    const key = `order:${id}`;
    const before = model.finals.get(key);
    if (before !== undefined && before !== status && c.resolution === null) {
      problems.push(`order ${id} left its final status ${before} for ${status}`);
    }
    if (before === undefined && isFinalOrderStatus(status)) model.finals.set(key, status);
  }
  for (const ref of counting.keys()) {
    if (!model.orders.has(ref))
      problems.push(`refunds of order ${ref}, which the model never made`);
  }
  return { problems, tally };
};

/**
 * Money is conserved through the platform's pay-in clearing: per currency it holds minus what
 * the orders' payments brought in plus what completed refunds sent back, to the smallest unit.
 */
const clearingHolds = (
  postings: readonly Stored[],
  paidIn: ReadonlyMap<string, Decimal>,
  sent: ReadonlyMap<string, Decimal>,
): string[] => {
  const clearing = new Map<string, Decimal>();
  for (const p of postings) {
    if (p.ledgerAccount === platformAccounts.payInClearing) adding(clearing, p.currency, p.amount);
  }
  const problems: string[] = [];
  for (const currency of new Set([...clearing.keys(), ...paidIn.keys(), ...sent.keys()])) {
    const want = (sent.get(currency) ?? zero).minus(paidIn.get(currency) ?? zero);
    const got = clearing.get(currency) ?? zero;
    if (!got.equals(want)) {
      problems.push(
        `the pay-in clearing holds ${got} ${currency}, pay-ins less refunds make ${want}`,
      );
    }
  }
  return problems;
};

/** Crypto batches: the record and the snapshot agree; submitted stays submitted. */
const batchesHold = async (world: World, model: Model): Promise<string[]> => {
  const problems: string[] = [];
  for (const batch of model.batches.values()) {
    const record = await recordOf<{ status: string; snapshot: unknown }>(
      world,
      'cryptoBatches',
      batch.batchId,
    );
    if (record === undefined) {
      problems.push(`batch ${batch.batchId} was answered but is not stored`);
      continue;
    }
    const restored = restoreBatch(record.snapshot);
    const status = String(restored.snapshot.value);
    if (status !== record.status) {
      problems.push(`batch ${batch.batchId}: stored ${record.status}, snapshot ${status}`);
    }
    batch.status = record.status;
    const key = `batch:${batch.batchId}`;
    const before = model.finals.get(key);
    if (before !== undefined && before !== record.status) {
      problems.push(`batch ${batch.batchId} left its final status ${before} for ${record.status}`);
    }
    if (record.status === 'submitted') model.finals.set(key, record.status);
  }
  return problems;
};

/**
 * The outbox: every message delivered, or pending with attempts left and a due time on the
 * schedule, or failed after its attempts (or given up with a reason in the log).
 */
const outboxHolds = async (world: World): Promise<string[]> => {
  const problems: string[] = [];
  const now = world.clock.now();
  const longest = Math.max(...retryDelaysSeconds);
  for (const message of await world.oracle.outbox()) {
    const name = `outbox ${message.outbox_id} (${message.event_type} of ${message.business_id})`;
    if (message.status === 'pending') {
      if (message.attempts >= maxDeliveryAttempts) {
        problems.push(`${name} pending after ${message.attempts} attempts`);
      }
      if (message.available_at > now + longest + 60) {
        problems.push(`${name} due at ${message.available_at}, beyond its schedule (now ${now})`);
      }
    } else if (message.status === 'delivered') {
      if (message.attempts < 1) problems.push(`${name} delivered without an attempt`);
    } else if (message.status !== 'failed') {
      problems.push(`${name} has status ${String(message.status)}`);
    }
  }
  return problems;
};

/** A statement of a period that had ended says the same whenever it is asked again. */
const statementsStay = async (world: World, model: Model): Promise<string[]> => {
  const problems: string[] = [];
  for (const { merchant, query, answer } of model.statements) {
    const again = await world.engine.statements.statement(merchant.callers[0], query);
    const name = `statement of ${merchant.accountId} ${query.currency} [${query.start_at}, ${query.end_at})`;
    if (E.isLeft(again)) problems.push(`${name} asked again: refused ${again.left.message}`);
    else if (JSON.stringify(again.right.statement) !== JSON.stringify(answer)) {
      problems.push(
        `${name} asked again says ${JSON.stringify(again.right.statement)}, first ${JSON.stringify(answer)}`,
      );
    }
  }
  return problems;
};

export const checkInvariants = async (world: World, model: Model): Promise<string[]> => {
  const problems: string[] = [];
  const postings = await world.oracle.postings();
  const journalIds = await world.oracle.journalIds();
  problems.push(...journalsNetToZero(postings, journalIds));
  const journals = new Map<string, Stored[]>();
  for (const p of postings) journals.set(p.journal_id, [...(journals.get(p.journal_id) ?? []), p]);
  const counts: LedgerCounts = new Map();
  for (const merchant of model.merchants) {
    problems.push(...(await balancesHold(world, merchant, postings, counts)));
  }
  problems.push(...(await payoutsHold(world, model, journals, counts)));
  const refunds = await refundsHold(world, model, journals, counts);
  problems.push(...refunds.problems);
  const orders = await ordersHold(world, model, journals, refunds.tally.counting);
  problems.push(...orders.problems);
  problems.push(...clearingHolds(postings, orders.tally.paidIn, refunds.tally.sent));
  problems.push(...(await batchesHold(world, model)));
  problems.push(...(await outboxHolds(world)));
  problems.push(...(await statementsStay(world, model)));
  problems.push(...(await createsFindable(world, model, orders.tally.refunded)));
  return problems;
};

/**
 * Every create answered with code 0 is findable by the merchant that made it; an order answers
 * the `refunded_amount` its refunds make.
 */
const createsFindable = async (
  world: World,
  model: Model,
  refunded: ReadonlyMap<string, Decimal>,
): Promise<string[]> => {
  const problems: string[] = [];
  const { engine } = world;
  for (const create of model.creates) {
    const caller = create.merchant?.callers[0];
    if (caller === undefined) continue;
    if (create.kind === 'order') {
      const order = await engine.acquiring.get(caller, create.id);
      if (E.isLeft(order)) {
        problems.push(`order ${create.id} was answered but is not found: ${order.left.message}`);
        continue;
      }
      const want = refunded.get(create.id) ?? zero;
      if (!want.equals(order.right.order.refunded_amount)) {
        problems.push(
          `order ${create.id}: refunded_amount ${order.right.order.refunded_amount}, its refunds make ${want}`,
        );
      }
      continue;
    }
    const found =
      create.kind === 'payout'
        ? await engine.payouts.get(caller, create.id)
        : create.kind === 'batch'
          ? await engine.batches.get(caller, create.id)
          : create.kind === 'webhook'
            ? await engine.webhooks.get(caller, create.id)
            : create.kind === 'merchant'
              ? await engine.accounts.current(caller)
              : await recordOf(world, 'deposits', create.id).then((r) =>
                  r === undefined ? E.left({ message: 'not stored' }) : E.right(r),
                );
    if (E.isLeft(found)) {
      problems.push(
        `${create.kind} ${create.id} was answered but is not found: ${found.left.message}`,
      );
    }
  }
  return problems;
};

/**
 * What the store holds, in one string: equal before and after a unit of work that was aborted,
 * or the store kept part of it.
 */
export const fingerprint = async (world: World, model: Model): Promise<string> => {
  const counts: Record<string, number> = {};
  for (const name of Object.keys(collectionSpecs) as CollectionName[]) {
    counts[name] = await world.oracle.count(name);
  }
  const records: unknown[] = [];
  for (const id of model.payouts.keys()) records.push(await world.oracle.record('payouts', id));
  for (const id of model.orders.keys())
    records.push(await world.oracle.record('acquiringOrders', id));
  for (const id of model.batches.keys())
    records.push(await world.oracle.record('cryptoBatches', id));
  for (const id of model.refunds.keys())
    records.push(await world.oracle.record('acquiringRefunds', id));
  const outbox = (await world.oracle.outbox()).map((m) => [m.outbox_id, m.status, m.attempts]);
  const timers = (await world.oracle.timers()).map((t) => [t.timer_id, t.due_at]);
  return JSON.stringify({
    counts,
    journals: [...(await world.oracle.journalIds())].sort(),
    postings: (await world.oracle.postings()).length,
    outbox,
    timers: timers.sort(),
    idempotency: await world.oracle.idempotencyCount(),
    records,
  });
};
