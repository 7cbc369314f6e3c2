/**
 * A payout-side engine on the memory store, a fixed clock and counting ids, with two merchants
 * (A and B), the sandbox catalogue, and helpers to fund balances and read what a merchant would
 * notice: the answer's data or exact error, balances, ledger entries and outbox rows.
 */

import type { PayoutExecutor } from '@payrail/core';
import {
  type AccountRecord,
  type Currency,
  depositJournal,
  type IdGenerator,
  money,
  type OutboxMessage,
  type PayrailError,
} from '@payrail/core';
import { createMemoryStore, type MemoryStore } from '@payrail/store-memory';
import { memoryOracle } from '@payrail/store-memory/testing';
import * as E from 'fp-ts/lib/Either.js';
import { permissions } from '../access/access-control.policy.js';
import type { Outcome } from '../command/command.handler.js';
import type { Caller } from '../engine.api.js';
import type { EngineDeps } from '../engine.deps.js';
import { timerWorker } from '../workers/timer.worker.js';
import { payoutUseCases } from './payout.use-cases.js';
import { seedSandboxCatalogue } from './sandbox-catalogue.use-cases.js';

export const startTime = 1_800_000_000;

const fixedClock = (start = startTime) => {
  let now = start;
  return {
    now: () => now,
    advance: (seconds: number) => {
      now += seconds;
    },
  };
};

/** `po_1`, `po_2`, ... per prefix: predictable ids for exact assertions. */
const countingIds = (): IdGenerator => {
  const counts = new Map<string, number>();
  return {
    next: (prefix) => {
      const n = (counts.get(prefix) ?? 0) + 1;
      counts.set(prefix, n);
      return `${prefix}_${n}`;
    },
  };
};

const callerOf = (n: 'a' | 'b', granted: readonly string[] = permissions): Caller => ({
  merchant_id: `mch_${n}`,
  account_id: `acc_${n}`,
  key_id: `key_${n}`,
  permissions: granted,
  env: 'sandbox',
});

export const merchantA = callerOf('a');
export const merchantB = callerOf('b');
/** Merchant A's account through a key holding only `granted`. */
export const merchantAWith = (...granted: string[]): Caller => callerOf('a', granted);

export interface HarnessOptions {
  readonly verification_enabled?: boolean;
  readonly auto_approve?: boolean;
  readonly payout_product?: boolean;
  readonly environment?: 'sandbox' | 'live';
  readonly payoutExecutor?: PayoutExecutor;
  /** Wraps the store, e.g. to simulate a concurrent writer. */
  readonly wrapStore?: (store: MemoryStore) => MemoryStore;
}

const accountRecord = (n: 'a' | 'b', options: HarnessOptions): AccountRecord => ({
  account_id: `acc_${n}`,
  merchant_id: `mch_${n}`,
  status: 'active',
  currencies: ['USD', 'USDT', 'USDC'],
  verification_enabled: options.verification_enabled ?? false,
  auto_approve: options.auto_approve ?? false,
  products: { payout: options.payout_product ?? true, acquiring: true },
  enabled_pay_tokens: [],
  default_pay_tokens: [],
  notify_secret: `whsec_${n}`,
  version: 1,
  created_at: startTime,
  updated_at: startTime,
});

export const payoutHarness = async (options: HarnessOptions = {}) => {
  const memory = createMemoryStore();
  const store = options.wrapStore ? options.wrapStore(memory) : memory;
  const oracle = memoryOracle(memory);
  const clock = fixedClock();
  const ids = countingIds();
  const deps: EngineDeps = {
    store,
    clock,
    ids,
    settings: {
      environment: options.environment ?? 'sandbox',
      checkoutBaseUrl: 'https://pay.example.com/checkout',
      allowInsecureWebhooks: false,
      keySecret: new Uint8Array(32),
    },
    ...(options.payoutExecutor === undefined ? {} : { payoutExecutor: options.payoutExecutor }),
  };
  await memory.transaction(async (tx) => {
    for (const n of ['a', 'b'] as const) {
      await tx.merchants.insert({
        merchant_id: `mch_${n}`,
        name: `Merchant ${n.toUpperCase()}`,
        status: 'active',
        created_at: startTime,
        updated_at: startTime,
      });
      const { version: _, ...account } = accountRecord(n, options);
      await tx.accounts.insert(account);
    }
  });
  await seedSandboxCatalogue(memory, ids, clock);
  const engine = payoutUseCases(deps);
  const worker = timerWorker(deps, engine.timerHandlers);
  let deposits = 0;

  return {
    store: memory,
    oracle,
    clock,
    ids,
    deps,
    engine,
    /** Fires due timers as the server's loop would. */
    runTimers: () => worker.runDueTimers('test-worker'),
    /** Funds an account's available balance with a `deposit` journal. */
    credit: async (caller: Caller, currency: Currency, amount: string) => {
      deposits += 1;
      await memory.transaction((tx) =>
        tx.ledger.post(
          depositJournal(
            { accountId: caller.account_id, businessId: `dep_test_${deposits}` },
            money(currency, amount),
          ),
          clock.now(),
        ),
      );
    },
    balance: async (caller: Caller, currency: Currency) =>
      memory.transaction(async (tx) =>
        (await tx.ledger.balances(caller.account_id)).find((b) => b.currency === currency),
      ),
    ledger: async (caller: Caller) =>
      memory.transaction(async (tx) =>
        (
          await tx.ledger.entries({
            accountId: caller.account_id,
            sort: 'asc',
            limit: 100,
            offset: 0,
          })
        ).items.map((e) => [e.record_type, e.bucket, e.amount, e.balance_after, e.business_id]),
      ),
    /** The outbox rows of one business object, in enqueue order. */
    outboxOf: async (businessId: string): Promise<readonly OutboxMessage[]> =>
      (await oracle.outbox()).filter((m) => m.business_id === businessId),
    setAccount: (caller: Caller, patch: Partial<AccountRecord>) =>
      memory.transaction(async (tx) => {
        const account = await tx.accounts.get(caller.account_id);
        if (account === undefined) throw new Error('no account');
        await tx.accounts.update({ ...account, ...patch });
      }),
  };
};

export type PayoutHarness = Awaited<ReturnType<typeof payoutHarness>>;

/** The answer's data; fails the test with the error's message otherwise. */
export const dataOf = <T>(outcome: Outcome<T>): T => {
  if (E.isLeft(outcome)) throw new Error(`expected success, got: ${outcome.left.message}`);
  return outcome.right;
};

/** `[message, http status, code]` of a refused answer. */
export const errorOf = (outcome: Outcome<unknown>): [string, number, number] => {
  if (E.isRight(outcome))
    throw new Error(`expected an error, got ${JSON.stringify(outcome.right)}`);
  const error: PayrailError = outcome.left;
  return [error.message, error.httpStatus, error.code];
};

/** `data.payout` of an answer. */
export const payoutOf = <P>(outcome: Outcome<{ readonly payout: P }>): P => dataOf(outcome).payout;

export const notifyUrl = 'https://merchant.example.com/payout-callback';

/** A valid quick payout to a WALLETA e-mail wallet through the sandbox's USD method. */
export const walletaPayout = (overrides: Readonly<Record<string, unknown>> = {}) => ({
  client_request_id: 'req-1',
  currency: 'USD',
  amount: '100.00',
  method_id: 1,
  reference: 'ref-1',
  notify_url: notifyUrl,
  beneficiary: { name: 'Alice Example', fields: { payee_id: 'alice01', country: 'US' } },
  beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'alice@example.com' } },
  ...overrides,
});
