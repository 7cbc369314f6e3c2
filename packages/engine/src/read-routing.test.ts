/**
 * Which use cases a read replica may answer (ADR 0054), checked over every use case the engine
 * has: the table below names each one `replica` or `primary`, and a new use case fails the first
 * test until it is named, so nothing reaches the replica without a decision. Each use case then
 * runs once on a store whose `read` is a spy that hands the work the reads and nothing else (as a
 * standby would): a `replica` use case reads through it and never through `transaction`; a
 * `primary` one (whatever moves money, checks a key, a permission, a balance or an idempotency
 * key, or writes while reading) never touches it.
 */
import type { Collection, RecordMeta, Store, StoreReads, StoreTransaction } from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Caller, Engine, Operator, TextExport } from './engine.api.js';
import { createEngine } from './engine.wiring.js';
import {
  type OperatorsWorld,
  operatorsWorld,
  payoutBody,
  rightOf,
  start,
} from './operators/operators.test-support.js';
import { bootstrapOperator } from './operators/operators.use-cases.js';

type Route = 'replica' | 'primary';

/** Every use case of the engine, `<group>.<name>`, and where it reads. */
const routes: Readonly<Record<string, Route>> = {
  // The key check, the operator's credential: a disabled key or operator stops at once.
  'auth.authenticate': 'primary',
  'auth.authenticateOperator': 'primary',
  'accounts.current': 'replica',
  'accounts.list': 'replica',
  // What the merchant sees; the payouts' own balance checks read the primary in their unit of work.
  'accounts.balances': 'replica',
  'accounts.deposits': 'replica',
  'accounts.withdrawals': 'replica',
  'accounts.ledger': 'replica',
  'accounts.audit': 'primary',
  'statements.statement': 'replica',
  'statements.statementCsv': 'replica',
  // The catalogue the payouts decide with (its cache is shared with payout creation).
  'payoutSetup.methods': 'primary',
  'payoutSetup.networks': 'primary',
  'payoutSetup.networkSchema': 'primary',
  'payouts.create': 'primary',
  'payouts.get': 'replica',
  'payouts.list': 'replica',
  'payouts.update': 'primary',
  'payouts.submit': 'primary',
  'payouts.cancel': 'primary',
  'payouts.deliveries': 'replica',
  'beneficiaries.create': 'primary',
  'beneficiaries.get': 'primary',
  'beneficiaries.list': 'primary',
  'beneficiaries.update': 'primary',
  'beneficiaryAccounts.create': 'primary',
  'beneficiaryAccounts.get': 'primary',
  'beneficiaryAccounts.list': 'primary',
  'beneficiaryAccounts.update': 'primary',
  'acquiring.create': 'primary',
  // Authoritative reads that expire an order past its time in their own unit of work.
  'acquiring.get': 'primary',
  'acquiring.list': 'primary',
  'acquiring.payments': 'primary',
  'acquiring.close': 'primary',
  'acquiring.refund': 'primary',
  'acquiring.refunds': 'replica',
  'acquiring.getRefund': 'replica',
  'batches.create': 'primary',
  'batches.get': 'replica',
  'batches.items': 'replica',
  'batches.addItems': 'primary',
  'batches.approve': 'primary',
  'batches.submit': 'primary',
  'webhooks.create': 'primary',
  'webhooks.list': 'primary',
  'webhooks.get': 'primary',
  'webhooks.update': 'primary',
  'webhooks.remove': 'primary',
  'webhooks.rotateSecret': 'primary',
  'webhooks.deliveries': 'primary',
  'webhooks.redeliver': 'primary',
  'checkout.order': 'primary',
  'checkout.selectToken': 'primary',
  'upstream.receive': 'primary',
  'executions.report': 'primary',
  'executions.reportRefund': 'primary',
  'callbacks.verificationAnswered': 'primary',
  'callbacks.verificationRequestOpen': 'primary',
  'workers.runDueTimers': 'primary',
  ...Object.fromEntries(
    [
      'createOperator',
      'listOperators',
      'updateOperator',
      'rotateOperator',
      'audit',
      'settlementReport',
      'createMerchant',
      'updateAccount',
      'rotateNotifySecret',
      'issueApiKey',
      'listApiKeys',
      'rotateApiKey',
      'updateApiKey',
      'deleteApiKey',
      'reviewPayout',
      'getOrder',
      'resolveOrder',
      'reviewRefund',
      'listPayoutMethods',
      'createPayoutMethod',
      'updatePayoutMethod',
      'listPayoutNetworks',
      'createPayoutNetwork',
      'updatePayoutNetwork',
      'listRoutes',
      'createRoute',
      'updateRoute',
      'credit',
      'sandboxExecution',
      'sandboxRefundExecution',
      'sandboxPayment',
      'advanceClock',
    ].map((name) => [`admin.${name}`, 'primary' as const]),
  ),
};

/** Every use case the engine answers, as `<group>.<name>`. */
const useCasesOf = (engine: Engine): string[] =>
  Object.entries(engine).flatMap(([group, doors]) =>
    Object.keys(doors as object).map((name) => `${group}.${name}`),
  );

/** A collection as a standby gives it: reads answer, anything else is refused. */
const readsOnlyOf = <R extends RecordMeta>(collection: Collection<R>): Collection<R> => {
  const refused = (): never => {
    throw new Error('cannot execute a write in a read-only transaction');
  };
  return {
    get: (id, scope) => collection.get(id, scope),
    findUnique: (key) => collection.findUnique(key),
    list: (query) => collection.list(query),
    insert: refused,
    update: refused,
  };
};

/** The transaction's reads and nothing else: what a read on a standby can do. */
const readsOf = (tx: StoreTransaction): StoreReads =>
  new Proxy(tx, {
    get: (target, key) => {
      if (key === 'ledger') {
        return { balances: target.ledger.balances, entries: target.ledger.entries };
      }
      if (key === 'outbox' || key === 'timers' || key === 'idempotency') return undefined;
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'object' && value !== null && 'list' in value
        ? readsOnlyOf(value as Collection<RecordMeta>)
        : value;
    },
  });

interface Spy {
  reads: number;
  transactions: number;
}

/** `store` with a `read` that counts, as a store with a read replica has. */
const withReplicaSpy =
  (spy: Spy) =>
  (store: Store): Store => ({
    transaction: (work) => {
      spy.transactions += 1;
      return store.transaction(work);
    },
    read: (work) => {
      spy.reads += 1;
      return store.transaction((tx) => work(readsOf(tx)));
    },
    claimEnvironment: (environment) => store.claimEnvironment(environment),
    close: () => store.close(),
  });

const tronAddress = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

describe('where each use case reads (ADR 0054)', () => {
  const spy: Spy = { reads: 0, transactions: 0 };
  let w: OperatorsWorld;
  let key: Caller;
  let treasurer: Operator;
  let ids: Record<string, string>;

  beforeAll(async () => {
    w = await operatorsWorld(withReplicaSpy(spy));
    key = w.keyOf('key_m');
    treasurer = await w.operator('tess', 'treasurer');
    const { webhook } = rightOf(
      await w.engine.webhooks.create(key, {
        url: 'https://merchant.example/hooks',
        events: ['acquiring.*'],
      }),
    );
    const { payout } = rightOf(await w.engine.payouts.create(key, payoutBody(1)));
    const { order } = rightOf(
      await w.engine.acquiring.create(key, {
        out_trade_no: 'ORD-1',
        order_currency: 'USD',
        order_amount: '10',
        allowed_pay_currencies: ['TRON_USDT', 'ETH_USDC'],
        expire_seconds: 1800,
        underpay_tolerance: '0',
        notify_webhook_id: webhook.webhook_id,
      }),
    );
    rightOf(
      await w.engine.admin.sandboxPayment(treasurer, order.order_id, {
        token_id: 'TRON_USDT',
        amount: '15',
        status: 'confirmed',
      }),
    );
    const { refund } = rightOf(
      await w.engine.acquiring.refund(key, order.order_id, {
        refund_type: 'overpaid',
        address: tronAddress,
        reason: 'paid too much',
      }),
    );
    const { batch } = rightOf(
      await w.engine.batches.create(key, {
        currency: 'USDT',
        method_id: 2,
        items: [{ order_no: 'B1', amount: '10', beneficiary_account: { address: tronAddress } }],
      }),
    );
    ids = {
      webhook: webhook.webhook_id,
      payout: payout.payout_id,
      order: order.order_id,
      refund: refund.refund_id,
      batch: batch.batch_id,
    };
  });

  it('names every use case of the engine, and no other', () => {
    expect(useCasesOf(w.engine).sort()).toEqual(Object.keys(routes).sort());
  });

  /** Arguments that reach each use case's store work; the rest get plausible ones. */
  const argsOf = (useCase: string): readonly unknown[] => {
    const period = {
      currency: 'USD',
      start_at: String(start - 86_400),
      end_at: String(start + 86_400),
    };
    const [group = '', name = ''] = useCase.split('.');
    const given: Readonly<Record<string, readonly unknown[]>> = {
      'auth.authenticate': [{ token: 'not-a-key', ip: '198.51.100.7' }],
      'auth.authenticateOperator': [{ token: 'op_1.secret', ip: '198.51.100.7' }],
      'accounts.current': [key],
      'payouts.create': [key, payoutBody(2)],
      'payouts.get': [key, ids.payout],
      'payouts.update': [key, ids.payout, { amount: '11.00' }],
      'payouts.submit': [key, ids.payout],
      'payouts.cancel': [key, ids.payout],
      'payouts.deliveries': [key, ids.payout, {}],
      'payoutSetup.networkSchema': [key, 'WALLETA'],
      'acquiring.get': [key, ids.order],
      'acquiring.payments': [key, ids.order],
      'acquiring.refunds': [key, ids.order],
      'acquiring.getRefund': [key, ids.refund],
      'batches.get': [key, ids.batch],
      'batches.items': [key, ids.batch, {}],
      'webhooks.get': [key, ids.webhook],
      'webhooks.deliveries': [key, ids.webhook, {}],
      'statements.statement': [key, period],
      'statements.statementCsv': [key, period],
      'checkout.order': [ids.order],
      'upstream.receive': ['sandbox', { ip: '198.51.100.7', body: '', headers: {} }],
      'executions.report': [ids.payout, { status: 'processing' }],
      'executions.reportRefund': [ids.refund, { status: 'processing' }],
      'callbacks.verificationAnswered': [ids.payout, true, 1, 1],
      'callbacks.verificationRequestOpen': [ids.payout, w.merchant.account_id, 1],
      'workers.runDueTimers': ['worker-1'],
      'admin.credit': [
        bootstrapOperator,
        w.merchant.account_id,
        { currency: 'USD', amount: '5.00' },
      ],
    };
    const found = given[useCase];
    if (found !== undefined) return found;
    if (group === 'admin') return [bootstrapOperator, w.merchant.account_id, {}];
    const queries = ['list', 'balances', 'deposits', 'withdrawals', 'ledger', 'audit', 'methods'];
    return queries.includes(name) || name === 'networks' ? [key, {}] : [key, 'x', {}];
  };

  const call = (useCase: string): Promise<unknown> => {
    const [group = '', name = ''] = useCase.split('.');
    const doors: unknown = Reflect.get(w.engine, group);
    const door: unknown =
      typeof doors === 'object' && doors !== null ? Reflect.get(doors, name) : undefined;
    if (typeof door !== 'function') throw new Error(`${useCase} is not a use case`);
    return Promise.resolve(door(...argsOf(useCase)));
  };

  it.each(Object.entries(routes).filter(([, route]) => route === 'replica'))(
    '%s reads through the replica only, and answers from it',
    async (useCase) => {
      spy.reads = 0;
      spy.transactions = 0;
      const outcome = await call(useCase);
      expect(spy.reads).toBeGreaterThan(0);
      expect(spy.transactions).toBe(0);
      // It answered (a refusal would say the work did not run to its end on the reads alone).
      const answer = outcome as E.Either<{ readonly message: string }, unknown>;
      expect(E.isLeft(answer) ? answer.left.message : 'answered').toBe('answered');
      if (useCase === 'statements.statementCsv' && E.isRight(answer)) {
        // The export's records are read as the transport pulls them: from the replica too.
        const { chunks } = answer.right as TextExport;
        spy.reads = 0;
        const text: string[] = [];
        for await (const chunk of chunks) text.push(chunk);
        expect(text.join('')).toContain('opening');
        expect(spy.reads).toBeGreaterThan(0);
        expect(spy.transactions).toBe(0);
      }
    },
  );

  it.each(Object.entries(routes).filter(([, route]) => route === 'primary'))(
    '%s never reads through the replica',
    async (useCase) => {
      spy.reads = 0;
      await call(useCase).catch(() => undefined);
      expect(spy.reads).toBe(0);
    },
  );

  it('moves money and checks idempotency on the primary even while the replica answers reads', async () => {
    spy.reads = 0;
    spy.transactions = 0;
    const repeated = await w.engine.payouts.create(key, payoutBody(1));
    expect(E.isLeft(repeated) ? repeated.left.message : 'created again').not.toBe('created again');
    const credited = await w.engine.admin.credit(bootstrapOperator, w.merchant.account_id, {
      currency: 'USD',
      amount: '1.00',
    });
    expect(E.isRight(credited)).toBe(true);
    expect(spy.reads).toBe(0);
    expect(spy.transactions).toBeGreaterThan(0);
  });
});

describe('a watched engine (observer, inspector, audit trail)', () => {
  it('still sends its reads to the replica, and times them as units of work', async () => {
    const spy: Spy = { reads: 0, transactions: 0 };
    const timed: string[] = [];
    const w = await operatorsWorld(withReplicaSpy(spy));
    const engine = createEngine({
      store: withReplicaSpy(spy)(w.raw),
      clock: w.clock,
      ids: { next: (prefix) => `${prefix}_watched` },
      settings: {
        environment: 'sandbox',
        checkoutBaseUrl: 'https://pay.example/checkout',
        allowInsecureWebhooks: false,
        keySecret: new Uint8Array(32).fill(7),
      },
      observer: {
        unitOfWorkStarted: (useCase) => {
          timed.push(useCase);
          return () => undefined;
        },
      },
      inspect: () => undefined,
    });
    spy.reads = 0;
    spy.transactions = 0;
    const listed = await engine.payouts.list(w.keyOf('key_m'), {});
    expect(E.isRight(listed)).toBe(true);
    expect(spy).toEqual({ reads: 1, transactions: 0 });
    expect(timed).toHaveLength(1);
  });
});
