/**
 * The model-based run: random sequences of operations go to the store under test and to a fresh
 * reference store (the memory store, passed in as `createModel`), each in its own unit of work,
 * some inside a unit of work that aborts. Every answer (results, refusal reasons, pages,
 * balances, claims) must agree, and at the end so must everything the two oracles see and each
 * account's whole ledger in posting order.
 */
import assert from 'node:assert/strict';
import {
  balancesOf,
  depositJournal,
  type Journal,
  type MerchantBucket,
  merchantBuckets,
  money,
  type OutboxDestination,
  payoutHoldJournal,
  payoutReleaseJournal,
  type RecordType,
  type StoreTransaction,
} from '@payrail/core';
import fc from 'fast-check';
import { refusalOf, t0 } from './conformance-context.js';
import { samplePayout } from './fixtures.js';
import type { ConformanceOptions, StoreHarness } from './harness.js';

const accounts = ['acc_0', 'acc_1'] as const;
const statuses = ['pending', 'processing', 'completed'] as const;
const destinations: readonly OutboxDestination[] = [
  { kind: 'webhook', webhookId: 'wh_0' },
  { kind: 'notify_url', url: 'https://merchant.example/notify' },
];
const workers = ['w0', 'w1'] as const;

type Account = 0 | 1;
type Status = (typeof statuses)[number];

type WriteOp =
  | {
      readonly kind: 'insertPayout';
      readonly id: number;
      readonly account: Account;
      readonly ref: number;
      readonly crid: number | null;
      readonly createdAt: number;
      readonly status: Status;
    }
  | {
      readonly kind: 'updatePayout';
      readonly id: number;
      readonly stale: boolean;
      readonly status: Status;
      readonly ref: number | null;
      readonly crid: number | null | 'keep';
    }
  | {
      readonly kind: 'post';
      readonly movement: 'deposit' | 'hold' | 'release';
      readonly account: Account;
      readonly amount: string;
      readonly business: number;
      readonly at: number;
    }
  | {
      readonly kind: 'enqueue';
      readonly event: number;
      readonly destination: 0 | 1;
      readonly business: number;
      readonly createdAt: number;
      readonly availableAt: number;
    }
  | {
      readonly kind: 'claim';
      readonly worker: 0 | 1;
      readonly now: number;
      readonly limit: number;
      readonly lease: number;
    }
  | {
      readonly kind: 'settle';
      readonly how: 'complete' | 'retry' | 'fail';
      readonly worker: 0 | 1;
      readonly outbox: number;
      readonly availableAt: number;
    }
  | { readonly kind: 'setTimer'; readonly business: number; readonly dueAt: number }
  | { readonly kind: 'clearTimer'; readonly business: number }
  | {
      readonly kind: 'claimTimers';
      readonly worker: 0 | 1;
      readonly now: number;
      readonly limit: number;
    }
  | { readonly kind: 'completeTimer'; readonly worker: 0 | 1; readonly business: number }
  | { readonly kind: 'putIdempotency'; readonly scope: Account; readonly key: number };

/** What a list read asks for beside its filters: from when, in which order, which page. */
interface PageAsked {
  readonly createdFrom: number | null;
  readonly sort: 'asc' | 'desc' | null;
  readonly limit: number;
  readonly offset: number;
}

type ReadOp =
  | { readonly kind: 'getPayout'; readonly id: number; readonly scope: Account | null }
  | {
      readonly kind: 'findPayout';
      readonly account: Account;
      readonly by: 'reference' | 'client_request_id';
      readonly value: number | null;
    }
  | (PageAsked & {
      readonly kind: 'listPayouts';
      readonly scope: Account | null;
      readonly status: Status | null;
      readonly ref: number | null;
      readonly crid: number | null | 'any';
      readonly createdTo: number | null;
    })
  | { readonly kind: 'balances'; readonly account: Account }
  | (PageAsked & {
      readonly kind: 'entries';
      readonly account: Account;
      readonly recordType: RecordType | null;
      readonly bucket: MerchantBucket | null;
    })
  | { readonly kind: 'getOutbox'; readonly outbox: number }
  | { readonly kind: 'getTimer'; readonly business: number }
  | { readonly kind: 'getIdempotency'; readonly scope: Account; readonly key: number };

type Op = WriteOp | ReadOp | { readonly kind: 'aborted'; readonly ops: readonly WriteOp[] };

const small = (max: number) => fc.integer({ min: 0, max });
const account = fc.constantFrom<Account>(0, 1);
const accountOfPayout = (id: number): Account => (id % 2 === 0 ? 0 : 1);
const worker = fc.constantFrom<0 | 1>(0, 1);
const second = small(6).map((s) => t0 + s * 10);
/** Journals share few seconds, so ties (listed in posting order, not id order) are common. */
const postingSecond = small(2).map((s) => t0 + s * 10);
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });

const writeOp: fc.Arbitrary<WriteOp> = fc.oneof(
  // An id belongs to one account (ids are generated unique; a store keyed by account, ADR 0053,
  // does not refuse one id under two accounts), so the id picks it: payouts of both accounts
  // still collide on their references and client request ids.
  fc
    .record({
      kind: fc.constant('insertPayout' as const),
      id: small(5),
      ref: small(2),
      crid: optional(small(1)),
      createdAt: second,
      status: fc.constantFrom(...statuses),
    })
    .map((op) => ({ ...op, account: accountOfPayout(op.id) })),
  fc.record({
    kind: fc.constant('updatePayout' as const),
    id: small(5),
    stale: fc.boolean(),
    status: fc.constantFrom(...statuses),
    ref: optional(small(2)),
    crid: fc.oneof(fc.constant('keep' as const), optional(small(1))),
  }),
  {
    // Weighted up so a run often holds several journals of an account within one second, and
    // the order `entries` lists them in (posting order, not id order) is really compared.
    arbitrary: fc.record({
      kind: fc.constant('post' as const),
      movement: fc.constantFrom('deposit' as const, 'hold' as const, 'release' as const),
      account,
      amount: fc.constantFrom('0.01', '1.00', '2.50', '4.00'),
      business: small(3),
      at: postingSecond,
    }),
    weight: 4,
  },
  fc.record({
    kind: fc.constant('enqueue' as const),
    event: small(4),
    destination: fc.constantFrom<0 | 1>(0, 1),
    business: small(2),
    createdAt: second,
    availableAt: second,
  }),
  fc.record({
    kind: fc.constant('claim' as const),
    worker,
    now: second,
    limit: fc.integer({ min: 1, max: 3 }),
    lease: fc.constantFrom(5, 20),
  }),
  fc.record({
    kind: fc.constant('settle' as const),
    how: fc.constantFrom('complete' as const, 'retry' as const, 'fail' as const),
    worker,
    outbox: small(6),
    availableAt: second,
  }),
  fc.record({ kind: fc.constant('setTimer' as const), business: small(3), dueAt: second }),
  fc.record({ kind: fc.constant('clearTimer' as const), business: small(3) }),
  fc.record({
    kind: fc.constant('claimTimers' as const),
    worker,
    now: second,
    limit: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({ kind: fc.constant('completeTimer' as const), worker, business: small(3) }),
  fc.record({ kind: fc.constant('putIdempotency' as const), scope: account, key: small(2) }),
);

const sort = optional(fc.constantFrom('asc' as const, 'desc' as const));

const readOp: fc.Arbitrary<ReadOp> = fc.oneof(
  fc.record({ kind: fc.constant('getPayout' as const), id: small(5), scope: optional(account) }),
  fc.record({
    kind: fc.constant('findPayout' as const),
    account,
    by: fc.constantFrom('reference' as const, 'client_request_id' as const),
    value: optional(small(2)),
  }),
  fc.record({
    kind: fc.constant('listPayouts' as const),
    scope: optional(account),
    status: optional(fc.constantFrom(...statuses)),
    ref: optional(small(2)),
    crid: fc.oneof(fc.constant('any' as const), optional(small(1))),
    createdFrom: optional(second),
    createdTo: optional(second),
    sort,
    limit: fc.integer({ min: 1, max: 4 }),
    offset: small(3),
  }),
  fc.record({ kind: fc.constant('balances' as const), account }),
  fc.record({
    kind: fc.constant('entries' as const),
    account,
    recordType: optional(fc.constantFrom<RecordType>('deposit', 'payout_hold', 'payout_release')),
    bucket: optional(fc.constantFrom<MerchantBucket>(...merchantBuckets)),
    createdFrom: optional(second),
    sort,
    limit: fc.integer({ min: 1, max: 4 }),
    offset: small(2),
  }),
  fc.record({ kind: fc.constant('getOutbox' as const), outbox: small(6) }),
  fc.record({ kind: fc.constant('getTimer' as const), business: small(3) }),
  fc.record({ kind: fc.constant('getIdempotency' as const), scope: account, key: small(2) }),
);

const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: writeOp, weight: 6 },
  { arbitrary: readOp, weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant('aborted' as const),
      ops: fc.array(writeOp, { minLength: 1, maxLength: 4 }),
    }),
    weight: 1,
  },
);

const payoutId = (id: number) => `po_${id}`;
const timerId = (business: number) => `order.expiry:ord_${business}`;

/** A business object belongs to one account, as the engine's do, so its journal ids too. */
const journalOf = (o: Extract<WriteOp, { kind: 'post' }>): Journal => {
  const head = { accountId: accounts[o.account], businessId: `biz_${o.account}_${o.business}` };
  const amount = money('USD', o.amount);
  if (o.movement === 'deposit') return depositJournal(head, amount);
  if (o.movement === 'hold') return payoutHoldJournal(head, amount);
  return payoutReleaseJournal(head, amount);
};

/** Runs one operation; `enqueued` numbers outbox ids the same way on both stores. */
const applyWrite = async (
  tx: StoreTransaction,
  o: WriteOp,
  enqueued: { next: number },
): Promise<unknown> => {
  switch (o.kind) {
    case 'insertPayout':
      return tx.payouts.insert(
        samplePayout(
          { n: o.id, scope: accounts[o.account], createdAt: o.createdAt },
          {
            payout_id: payoutId(o.id),
            reference: `ref_${o.ref}`,
            client_request_id: o.crid === null ? null : `crq_${o.crid}`,
            status: o.status,
          },
        ),
      );
    case 'updatePayout': {
      const current = await tx.payouts.get(payoutId(o.id));
      const base =
        current ??
        samplePayout(
          { n: o.id, scope: accounts[0], createdAt: t0 },
          {
            payout_id: payoutId(o.id),
          },
        );
      return tx.payouts.update({
        ...base,
        version: (current?.version ?? 1) + (o.stale ? 1 : 0),
        status: o.status,
        updated_at: base.updated_at + 1,
        ...(o.ref === null ? {} : { reference: `ref_${o.ref}` }),
        ...(o.crid === 'keep'
          ? {}
          : { client_request_id: o.crid === null ? null : `crq_${o.crid}` }),
      });
    }
    case 'post':
      return tx.ledger.post(journalOf(o), o.at);
    case 'enqueue':
      return tx.outbox.enqueue([
        {
          outbox_id: `ob_${enqueued.next++}`,
          event_id: `evt_${o.event}`,
          account_id: accounts[0],
          business_type: 'payout',
          business_id: `po_${o.business}`,
          event_type: `payout.event_${o.event}`,
          destination: destinations[o.destination] ?? { kind: 'webhook', webhookId: 'wh_0' },
          payload: { event: o.event },
          available_at: o.availableAt,
          created_at: o.createdAt,
        },
      ]);
    case 'claim':
      return tx.outbox.claim({
        worker: workers[o.worker],
        now: o.now,
        limit: o.limit,
        leaseSeconds: o.lease,
      });
    case 'settle': {
      const id = `ob_${o.outbox}`;
      const w = workers[o.worker];
      if (o.how === 'complete') return tx.outbox.complete(id, w);
      if (o.how === 'fail') return tx.outbox.fail(id, w);
      return tx.outbox.retry(id, w, o.availableAt);
    }
    case 'setTimer':
      return tx.timers.set({
        timer_id: timerId(o.business),
        name: 'order.expiry',
        business_type: 'acquiring',
        business_id: `ord_${o.business}`,
        account_id: accounts[0],
        due_at: o.dueAt,
      });
    case 'clearTimer':
      return tx.timers.clear(timerId(o.business));
    case 'claimTimers':
      return tx.timers.claimDue({
        worker: workers[o.worker],
        now: o.now,
        limit: o.limit,
        leaseSeconds: 15,
      });
    case 'completeTimer':
      return tx.timers.complete(timerId(o.business), workers[o.worker]);
    case 'putIdempotency':
      return tx.idempotency.put({
        scope: accounts[o.scope],
        key: `key_${o.key}`,
        request_hash: `hash_${o.key}`,
        resource_id: `po_${o.key}`,
        created_at: t0,
      });
  }
};

const applyRead = (tx: StoreTransaction, o: ReadOp): Promise<unknown> => {
  switch (o.kind) {
    case 'getPayout':
      return o.scope === null
        ? tx.payouts.get(payoutId(o.id))
        : tx.payouts.get(payoutId(o.id), accounts[o.scope]);
    case 'findPayout':
      return o.by === 'reference'
        ? tx.payouts.findUnique({ account_id: accounts[o.account], reference: `ref_${o.value}` })
        : tx.payouts.findUnique({
            account_id: accounts[o.account],
            client_request_id: o.value === null ? null : `crq_${o.value}`,
          });
    case 'listPayouts':
      return tx.payouts.list({
        ...(o.scope === null ? {} : { scope: accounts[o.scope] }),
        where: {
          ...(o.status === null ? {} : { status: o.status }),
          ...(o.ref === null ? {} : { reference: `ref_${o.ref}` }),
          ...(o.crid === 'any'
            ? {}
            : { client_request_id: o.crid === null ? null : `crq_${o.crid}` }),
        },
        ...(o.createdFrom === null ? {} : { createdFrom: o.createdFrom }),
        ...(o.createdTo === null ? {} : { createdTo: o.createdTo }),
        ...(o.sort === null ? {} : { sort: o.sort }),
        limit: o.limit,
        offset: o.offset,
      });
    case 'balances':
      return tx.ledger.balances(accounts[o.account]);
    case 'entries':
      return tx.ledger.entries({
        accountId: accounts[o.account],
        ...(o.recordType === null ? {} : { recordType: o.recordType }),
        ...(o.bucket === null ? {} : { bucket: o.bucket }),
        ...(o.createdFrom === null ? {} : { createdFrom: o.createdFrom }),
        ...(o.sort === null ? {} : { sort: o.sort }),
        limit: o.limit,
        offset: o.offset,
      });
    case 'getOutbox':
      return tx.outbox.get(`ob_${o.outbox}`);
    case 'getTimer':
      return tx.timers.get(timerId(o.business));
    case 'getIdempotency':
      return tx.idempotency.get(accounts[o.scope], `key_${o.key}`);
  }
};

class Abort extends Error {}

/** What a store answered to one operation, in a form both stores can be compared on. */
const answer = async (
  harness: StoreHarness,
  o: Op,
  enqueued: { next: number },
): Promise<unknown> => {
  if (o.kind === 'aborted') {
    const seen: unknown[] = [];
    try {
      await harness.store.transaction(async (tx) => {
        // After a refusal the unit of work must end (the port's rule), so stop at the first.
        for (const inner of o.ops) seen.push(await applyWrite(tx, inner, enqueued));
        throw new Abort();
      });
    } catch (error) {
      if (error instanceof Abort) return { aborted: seen };
      return { aborted: seen, refused: refusalOf(error) };
    }
    throw new Error('an aborted unit of work committed');
  }
  try {
    const value = await harness.store.transaction((tx) =>
      isRead(o) ? applyRead(tx, o) : applyWrite(tx, o, enqueued),
    );
    return { ok: value };
  } catch (error) {
    return { refused: refusalOf(error) };
  }
};

const readKinds = new Set<Op['kind']>([
  'getPayout',
  'findPayout',
  'listPayouts',
  'balances',
  'entries',
  'getOutbox',
  'getTimer',
  'getIdempotency',
]);
const isRead = (o: Op): o is ReadOp => readKinds.has(o.kind);

const byJson = (a: unknown, b: unknown) => {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * Every record of the account, oldest first: ties in posting order, as a replay reads them,
 * with the signed amount and the bucket's balance after it.
 */
const ledgerOf = (harness: StoreHarness, accountId: string) =>
  harness.store.transaction(async (tx) =>
    (await tx.ledger.entries({ accountId, sort: 'asc', limit: 1000, offset: 0 })).items.map(
      (entry) => [
        entry.created_at,
        entry.journal_id,
        entry.bucket,
        entry.amount,
        entry.balance_after,
      ],
    ),
  );

/**
 * Everything an oracle sees, in an order that does not depend on the store, and each account's
 * whole ledger through the store (posting order is not something an oracle can see).
 */
const observed = async (harness: StoreHarness) => {
  const postings = await harness.oracle.postings();
  return {
    ledgers: await Promise.all(accounts.map((a) => ledgerOf(harness, a))),
    payouts: await Promise.all(
      [0, 1, 2, 3, 4, 5].map((id) => harness.oracle.record('payouts', payoutId(id))),
    ),
    payoutCount: await harness.oracle.count('payouts'),
    journalIds: [...(await harness.oracle.journalIds())].sort(),
    postings: [...postings].sort(byJson),
    balances: accounts.map((a) => balancesOf(a, postings)),
    outbox: [...(await harness.oracle.outbox())].sort((a, b) => byJson(a.outbox_id, b.outbox_id)),
    timers: [...(await harness.oracle.timers())].sort((a, b) => byJson(a.timer_id, b.timer_id)),
    idempotency: await harness.oracle.idempotencyCount(),
  };
};

export const modelConformance = (
  options: ConformanceOptions,
  createModel: () => Promise<StoreHarness>,
): void => {
  options.it(
    'random operation sequences answer exactly as the reference store does',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 40, size: 'max' }), async (ops) => {
          const subject = await options.createHarness();
          const model = await createModel();
          try {
            const counters = { subject: { next: 0 }, model: { next: 0 } };
            for (const [i, o] of ops.entries()) {
              const expected = await answer(model, o, counters.model);
              const actual = await answer(subject, o, counters.subject);
              assert.deepStrictEqual(actual, expected, `operation ${i}: ${JSON.stringify(o)}`);
            }
            const [actual, expected] = [await observed(subject), await observed(model)];
            assert.deepStrictEqual(
              actual,
              expected,
              'what the oracles and the ledgers show at the end',
            );
            for (const balances of actual.balances) {
              for (const b of balances) {
                assert.ok(
                  !b.available.startsWith('-') && !b.held.startsWith('-'),
                  'never negative',
                );
              }
            }
            for (const [i, a] of accounts.entries()) {
              const stored = await subject.store.transaction((tx) => tx.ledger.balances(a));
              const summed = [...(actual.balances[i] ?? [])].sort((x, y) =>
                byJson(x.currency, y.currency),
              );
              assert.deepStrictEqual(stored, summed, `balances of ${a} equal the sum of postings`);
            }
          } finally {
            await subject.close();
            await model.close();
          }
        }),
        options.modelRuns === undefined ? {} : { numRuns: options.modelRuns },
      );
    },
    600_000,
  );
};
