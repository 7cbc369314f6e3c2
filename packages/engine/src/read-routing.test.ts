/**
 * Which use cases a read replica may answer (ADR 0054), checked over every use case the engine
 * has: the table below names each one `replica` or `primary`, and a new use case fails the first
 * test until it is named, so nothing reaches the replica without a decision. Each use case then
 * runs once on a store whose `read` is a spy that hands the work the reads and nothing else (as a
 * standby would): a `replica` use case reads through it and never through `transaction`; a
 * `primary` one (whatever moves money, checks a key, a permission, a balance or an idempotency
 * key, or writes while reading) never touches it. No read checks the caller's account on the
 * replica, whose copy lags: it checks the one the key check read on the primary, and a replica
 * that lags on the accounts neither refuses a new account nor serves a frozen one.
 */
import type {
  AccountRecord,
  Collection,
  RecordMeta,
  Store,
  StoreReads,
  StoreTransaction,
} from '@payrail/core';
import * as E from 'fp-ts/lib/Either.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { permissions } from './access/access-control.policy.js';
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
  // The account the key check read on the primary, as it answered the key check.
  'accounts.current': 'primary',
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

/** How the standby answers the account lookups (`accounts.get`). */
interface Standby {
  /** Told of every account lookup on the standby. */
  readonly onAccountGet?: () => void;
  /** The accounts the standby has replayed so far, as it has them: it lags the primary. */
  readonly replayedAccounts?: ReadonlyMap<string, AccountRecord>;
}

/** The transaction's reads and nothing else: what a read on a standby can do. */
const readsOf = (tx: StoreTransaction, standby: Standby = {}): StoreReads =>
  new Proxy(tx, {
    get: (target, key) => {
      if (key === 'ledger') {
        return { balances: target.ledger.balances, entries: target.ledger.entries };
      }
      if (key === 'outbox' || key === 'timers' || key === 'idempotency') return undefined;
      if (key === 'accounts') {
        const { onAccountGet, replayedAccounts } = standby;
        return {
          ...readsOnlyOf(target.accounts),
          get: (id: string, scope?: string) => {
            onAccountGet?.();
            if (replayedAccounts === undefined) return target.accounts.get(id, scope);
            const replayed = replayedAccounts.get(id);
            return Promise.resolve(
              scope === undefined || replayed?.merchant_id === scope ? replayed : undefined,
            );
          },
        };
      }
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'object' && value !== null && 'list' in value
        ? readsOnlyOf(value as Collection<RecordMeta>)
        : value;
    },
  });

interface Spy {
  reads: number;
  transactions: number;
  /** Account lookups on the replica. */
  accountGets: number;
}

/** `store` with a `read` that counts, as a store with a read replica has. */
const withReplicaSpy =
  (spy: Spy, standby: Standby = {}) =>
  (store: Store): Store => ({
    transaction: (work) => {
      spy.transactions += 1;
      return store.transaction(work);
    },
    read: (work) => {
      spy.reads += 1;
      return store.transaction((tx) =>
        work(
          readsOf(tx, {
            ...standby,
            onAccountGet: () => {
              spy.accountGets += 1;
            },
          }),
        ),
      );
    },
    claimEnvironment: (environment) => store.claimEnvironment(environment),
    close: () => store.close(),
  });

/** A key of `accountId` holding every permission, as the key check lets it in. */
const authenticatedKey = async (engine: Engine, accountId: string): Promise<Caller> => {
  const { api_key } = rightOf(
    await engine.admin.issueApiKey(bootstrapOperator, accountId, { permissions }),
  );
  return rightOf(await engine.auth.authenticate({ token: api_key.token, ip: '198.51.100.7' }));
};

const tronAddress = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

describe('where each use case reads (ADR 0054)', () => {
  const spy: Spy = { reads: 0, transactions: 0, accountGets: 0 };
  let w: OperatorsWorld;
  let key: Caller;
  let treasurer: Operator;
  let ids: Record<string, string>;

  beforeAll(async () => {
    w = await operatorsWorld(withReplicaSpy(spy));
    key = await authenticatedKey(w.engine, w.merchant.account_id);
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
      spy.accountGets = 0;
      const outcome = await call(useCase);
      expect(spy.reads).toBeGreaterThan(0);
      expect(spy.transactions).toBe(0);
      // The caller's account is the one the key check read on the primary, not the replica's.
      expect(spy.accountGets).toBe(0);
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
    const spy: Spy = { reads: 0, transactions: 0, accountGets: 0 };
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
    const key = await authenticatedKey(w.engine, w.merchant.account_id);
    spy.reads = 0;
    spy.transactions = 0;
    const listed = await engine.payouts.list(key, {});
    expect(E.isRight(listed)).toBe(true);
    expect(spy).toEqual({ reads: 1, transactions: 0, accountGets: 0 });
    expect(timed).toHaveLength(1);
  });
});

describe('a replica that lags on the accounts (ADR 0054)', () => {
  /** Reads that check the caller's account, and what each answers with. */
  const reads: Readonly<Record<string, (engine: Engine, caller: Caller) => Promise<unknown>>> = {
    'accounts.current': (engine, caller) => engine.accounts.current(caller),
    'accounts.balances': (engine, caller) => engine.accounts.balances(caller, {}),
    'payouts.list': (engine, caller) => engine.payouts.list(caller, {}),
  };

  /** A world whose replica has replayed the accounts as they stood once the merchant was made. */
  const laggingWorld = async () => {
    const spy: Spy = { reads: 0, transactions: 0, accountGets: 0 };
    const replayedAccounts = new Map<string, AccountRecord>();
    const w = await operatorsWorld(withReplicaSpy(spy, { replayedAccounts }));
    const account = await w.raw.transaction((tx) => tx.accounts.get(w.merchant.account_id));
    if (account === undefined) throw new Error('the merchant has no account');
    replayedAccounts.set(account.account_id, account);
    return w;
  };

  const messageOf = (outcome: unknown): string => {
    const answer = outcome as E.Either<{ readonly message: string }, unknown>;
    return E.isLeft(answer) ? answer.left.message : 'answered';
  };

  it.each(Object.keys(reads))(
    '%s serves an account the primary created and the replica has not replayed yet',
    async (useCase) => {
      const w = await laggingWorld();
      const { merchant } = rightOf(
        await w.engine.admin.createMerchant(bootstrapOperator, { name: 'New' }),
      );
      const read = reads[useCase];
      if (read === undefined) throw new Error(`${useCase} is not listed`);
      const key = await authenticatedKey(w.engine, merchant.account_id);
      expect(messageOf(await read(w.engine, key))).toBe('answered');
      // A caller made without the key check: its account is read on the primary.
      const made: Caller = {
        ...w.keyOf('key_new'),
        merchant_id: merchant.merchant_id,
        account_id: merchant.account_id,
      };
      expect(messageOf(await read(w.engine, made))).toBe('answered');
    },
  );

  it('refuses a read of payouts on an account the primary froze while the replica has it active', async () => {
    const w = await laggingWorld();
    rightOf(
      await w.engine.admin.updateAccount(bootstrapOperator, w.merchant.account_id, {
        status: 'frozen',
      }),
    );
    const key = w.keyOf('key_m');
    expect(messageOf(await w.engine.payouts.list(key, {}))).toBe('account frozen');
    expect(messageOf(await w.engine.accounts.balances(key, {}))).toBe('answered');
    // The key check refuses it too, on the primary.
    const signedIn = await w.engine.auth.authenticate({
      token: rightOf(
        await w.engine.admin.issueApiKey(bootstrapOperator, w.merchant.account_id, {
          permissions,
        }),
      ).api_key.token,
      ip: '198.51.100.7',
    });
    expect(messageOf(signedIn)).toBe('account frozen');
  });
});
