/**
 * The engine's use cases end to end on the memory store: each call is one or more units of work
 * with decoding, the machine, the record, the ledger, the outbox and the timers, but no HTTP and
 * no database. What is left is the engine's own cost.
 */
import { type BenchOptions, bench, describe } from 'vitest';
import {
  type BenchBed,
  benchBed,
  dataOf,
  idOf,
  order,
  quickPayout,
} from './engine.bench-support.js';
import { bootstrapOperator } from './operators/operators.use-cases.js';

const bed = await benchBed();
const { engine, caller } = bed;
let serial = 0;
const next = (prefix: string) => `${prefix}-${++serial}`;

const createPayout = async (): Promise<string> =>
  idOf(await engine.payouts.create(caller, quickPayout(next('REF'))), 'payout', 'payout_id');

/**
 * Options for a benchmark whose every iteration consumes one prepared object (a pending payout):
 * exactly `warmup` discarded runs, then `iterations` measured ones, each batch prepared before it
 * starts, outside the timing. The benchmark function must be `async`: Tinybench calls a plain
 * function once more, unmeasured, to find out whether it returns a promise.
 */
const consuming = (
  pool: string[],
  prepare: () => Promise<string>,
  iterations = 300,
  warmup = 30,
): BenchOptions => ({
  time: 0,
  iterations,
  warmupTime: 0,
  warmupIterations: warmup,
  setup: async (_task, mode) => {
    const wanted = mode === 'warmup' ? warmup : iterations;
    while (pool.length < wanted) pool.push(await prepare());
  },
});

/** Benchmarks that may grow the store run for a second after warm-up. */
const timed = { time: 1000 };

const take = (pool: string[]): string => {
  const id = pool.pop();
  if (id === undefined) throw new Error('the pool ran dry: more iterations than prepared');
  return id;
};

describe('payouts (memory store)', () => {
  bench(
    'create: inline beneficiary, a new reference each time',
    async () => {
      await createPayout();
    },
    timed,
  );

  const pending: string[] = [];
  bench(
    'approve + execution hand-off timer + processing + completed',
    async () => {
      const payoutId = take(pending);
      dataOf(await engine.admin.reviewPayout(bootstrapOperator, payoutId, { action: 'approve' }));
      if ((await engine.workers.runDueTimers('bench')) !== 1) throw new Error('no hand-off');
      dataOf(
        await engine.admin.sandboxExecution(bootstrapOperator, payoutId, { outcome: 'processing' }),
      );
      dataOf(
        await engine.admin.sandboxExecution(bootstrapOperator, payoutId, { outcome: 'completed' }),
      );
    },
    consuming(pending, createPayout),
  );
});

describe('acquiring orders (memory store)', () => {
  bench(
    'create + one confirmed payment (completed)',
    async () => {
      const orderId = idOf(
        await engine.acquiring.create(caller, order(next('OUT'), bed.webhookId)),
        'order',
        'order_id',
      );
      dataOf(
        await engine.admin.sandboxPayment(bootstrapOperator, orderId, {
          token_id: 'TRON_USDT',
          amount: '10.000000',
          status: 'confirmed',
          tx_hash: `0x${serial.toString(16).padStart(8, '0')}`,
        }),
      );
    },
    timed,
  );
});

/** A merchant of its own with `journals` deposits (plus the bed's one), for the balance read. */
const ledgerBed = async (journals: number): Promise<BenchBed> => {
  const own = await benchBed();
  for (let i = 0; i < journals; i += 1) {
    dataOf(
      await own.engine.admin.credit(bootstrapOperator, own.caller.account_id, {
        currency: 'USD',
        amount: '1.00',
      }),
    );
  }
  return own;
};

describe('ledger balances read (memory store)', async () => {
  for (const journals of [10, 1000]) {
    const own = await ledgerBed(journals);
    bench(
      `balances after ${journals + 1} journals`,
      async () => {
        dataOf(await own.engine.accounts.balances(own.caller, { currency: 'USD' }));
      },
      timed,
    );
  }
});
