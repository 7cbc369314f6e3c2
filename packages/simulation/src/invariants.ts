/**
 * What must hold after every step, read two ways: through the store's oracle (its `/testing`
 * entry, around the ports) and through the engine as a merchant reads it. Each check answers
 * the violations it found, in words; an empty list means the step kept every invariant.
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
  type Posting,
  payoutStateKeyOf,
  restoreBatch,
  restoreOrder,
  restorePayout,
} from '@payrail/core';
import type { Caller } from '@payrail/engine';
import { maxDeliveryAttempts, retryDelaysSeconds } from '@payrail/webhooks';
import * as E from 'fp-ts/lib/Either.js';
import type { Model, SimMerchant } from './model.js';
import type { World } from './world.js';

type Stored = Posting & { readonly journal_id: string };

const zero = new Decimal(0);
const sum = (values: readonly string[]): Decimal =>
  values.reduce((total, v) => total.plus(v), zero);

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

/** Balances: none negative; the port's, the merchant's and the postings' agree; the ledger sums. */
const balancesHold = async (
  world: World,
  merchant: SimMerchant,
  postings: readonly Stored[],
): Promise<string[]> => {
  const problems: string[] = [];
  const account = merchant.accountId;
  const fromPostings = balancesOf(account, postings);
  const fromPort = await world.store.transaction((tx) => tx.ledger.balances(account));
  const caller = merchant.callers[0];
  const read = await world.engine.accounts.balances(caller, {});
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
  const ledger = new Map<string, Decimal>();
  let offset = 0;
  for (;;) {
    const page = await world.engine.accounts.ledger(caller, {
      limit: '100',
      offset: String(offset),
      sort_order: 'asc',
    });
    if (E.isLeft(page)) return [...problems, `${account}: ledger refused: ${page.left.message}`];
    for (const entry of page.right.items) {
      const key = keyOf(entry.currency, entry.bucket);
      const after = (ledger.get(key) ?? zero).plus(entry.amount);
      ledger.set(key, after);
      if (!after.equals(entry.balance_after)) {
        problems.push(
          `${account} ledger ${entry.transaction_id} ${entry.bucket}: balance_after ` +
            `${entry.balance_after}, its records sum to ${after}`,
        );
      }
    }
    offset += page.right.items.length;
    if (page.right.items.length === 0 || offset >= page.right.total) break;
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

export const checkInvariants = async (world: World, model: Model): Promise<string[]> => {
  const problems: string[] = [];
  const postings = await world.oracle.postings();
  const journalIds = await world.oracle.journalIds();
  problems.push(...journalsNetToZero(postings, journalIds));
  const journals = new Map<string, Stored[]>();
  for (const p of postings) journals.set(p.journal_id, [...(journals.get(p.journal_id) ?? []), p]);

  for (const merchant of model.merchants) {
    problems.push(...(await balancesHold(world, merchant, postings)));
  }

  // Payouts: the record, the snapshot and the merchant's read agree; money matches the state;
  // a final state stays final.
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
    const key = `payout:${id}`;
    const before = model.finals.get(key);
    if (before !== undefined && before !== pair) {
      problems.push(`payout ${id} left its final state ${before} for ${pair}`);
    }
    if (before === undefined && finalPair(record.review_status, record.execution_status)) {
      model.finals.set(key, pair);
    }
  }

  // Orders: the status is the aggregation of the payment records; every confirmed payment was
  // credited once, nothing else was; a live order has its expiry timer; final stays final.
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
    const aggregated = aggregateOrderStatus({
      payments,
      payAmount: c.pay_amount,
      underpayTolerance: c.underpay_tolerance,
      expireTime: c.expire_time,
      now: c.updated_at,
      closed: c.close_reason !== null,
    });
    if (record.status !== aggregated || snapshot.value !== aggregated) {
      problems.push(
        `order ${id}: status ${record.status} (snapshot ${String(snapshot.value)}), its payments aggregate to ${aggregated}`,
      );
    }
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
    const status = record.status as OrderStatus;
    order.status = status;
    if (!isFinalOrderStatus(status) && !timers.has(`order.expiry:${id}`)) {
      problems.push(`order ${id} is ${status} but its expiry timer is gone`);
    }
    const key = `order:${id}`;
    const before = model.finals.get(key);
    if (before !== undefined && before !== status) {
      problems.push(`order ${id} left its final status ${before} for ${status}`);
    }
    if (before === undefined && isFinalOrderStatus(status)) model.finals.set(key, status);
  }

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

  // The outbox: every message delivered, or pending with attempts left and a due time on the
  // schedule, or failed after its attempts (or given up with a reason in the log).
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

  problems.push(...(await createsFindable(world, model)));
  return problems;
};

/** Every create answered with code 0 is findable by the merchant that made it. */
const createsFindable = async (world: World, model: Model): Promise<string[]> => {
  const problems: string[] = [];
  const { engine } = world;
  for (const create of model.creates) {
    const caller: Caller | undefined = create.merchant?.callers[0];
    if (caller === undefined) continue;
    const found =
      create.kind === 'payout'
        ? await engine.payouts.get(caller, create.id)
        : create.kind === 'order'
          ? await engine.acquiring.get(caller, create.id)
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
