/**
 * A whole sandbox engine on the memory store, for the operators' and the audit trail's tests:
 * a merchant funded with USD 1000.00, keys of every permission, and operators of each role.
 */
import type { Store } from '@payrail/core';
import { createMemoryStore, type MemoryStore } from '@payrail/store-memory';
import * as E from 'fp-ts/lib/Either.js';
import { permissions } from '../access/access-control.policy.js';
import type { Outcome } from '../command/command.handler.js';
import type { Caller, Engine, Operator } from '../engine.api.js';
import { adjustableClock } from '../engine.deps.js';
import { createEngine } from '../engine.wiring.js';
import { seedSandboxCatalogue } from '../payouts/sandbox-catalogue.use-cases.js';
import { bootstrapOperator } from './operators.use-cases.js';

export const start = 1_800_000_000;

export const rightOf = <T>(outcome: Outcome<T>): T => {
  if (E.isLeft(outcome)) throw new Error(`expected success, got "${outcome.left.message}"`);
  return outcome.right;
};

export const messageOf = <T>(outcome: Outcome<T>): string | undefined =>
  E.isLeft(outcome) ? outcome.left.message : undefined;

export const payoutBody = (n: number, amount = '10.00') => ({
  currency: 'USD',
  amount,
  method_id: 1,
  reference: `ref-${n}`,
  notify_url: 'https://merchant.example/payouts/notify',
  beneficiary: { name: 'Alice Example', fields: { payee_id: `payee${n}` } },
  beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'alice@example.com' } },
});

export interface OperatorsWorld {
  readonly engine: Engine;
  readonly store: Store;
  /** The memory store under `store`'s wrapper, for an oracle's reads. */
  readonly raw: MemoryStore;
  readonly clock: ReturnType<typeof adjustableClock>;
  /** A key of the merchant holding every permission, under `key_id`. */
  keyOf(keyId: string): Caller;
  readonly merchant: { readonly account_id: string; readonly merchant_id: string };
  /** A named operator of `role`, as its credential authenticates it. */
  operator(name: string, role: Operator['role']): Promise<Operator & { readonly token: string }>;
}

/** `store` is wrapped by `wrapStore` when given (a fault injector). */
export const operatorsWorld = async (
  wrapStore: (store: Store) => Store = (store) => store,
): Promise<OperatorsWorld> => {
  const raw = createMemoryStore();
  const store = wrapStore(raw);
  let now = start;
  const clock = adjustableClock({ now: () => now });
  let n = 0;
  const ids = { next: (prefix: string) => `${prefix}_${++n}` };
  const engine = createEngine({
    store,
    clock,
    ids,
    settings: {
      environment: 'sandbox',
      checkoutBaseUrl: 'https://pay.example/checkout',
      allowInsecureWebhooks: false,
      keySecret: new Uint8Array(32).fill(7),
    },
  });
  await seedSandboxCatalogue(raw, ids, clock);
  const { merchant } = rightOf(await engine.admin.createMerchant(bootstrapOperator, { name: 'M' }));
  rightOf(
    await engine.admin.credit(bootstrapOperator, merchant.account_id, {
      currency: 'USD',
      amount: '1000.00',
    }),
  );
  now += 1;
  const keyOf = (keyId: string): Caller => ({
    merchant_id: merchant.merchant_id,
    account_id: merchant.account_id,
    key_id: keyId,
    permissions,
    env: 'sandbox',
  });
  const operator = async (name: string, role: Operator['role']) => {
    if (role === 'bootstrap') return { ...bootstrapOperator, token: '' };
    const { operator: created } = rightOf(
      await engine.admin.createOperator(bootstrapOperator, { name, role }),
    );
    const signedIn = rightOf(
      await engine.auth.authenticateOperator({ token: created.token, ip: '198.51.100.7' }),
    );
    return { ...signedIn, token: created.token };
  };
  return { engine, store, raw, clock, keyOf, merchant, operator };
};

/** A store whose `auditRecords.insert` fails: the fault between an act and its record. */
export const failingAuditInsert = (store: Store): Store => ({
  ...store,
  transaction: (work) =>
    store.transaction((tx) =>
      work(
        new Proxy(tx, {
          get: (target, key) =>
            key === 'auditRecords'
              ? {
                  ...target.auditRecords,
                  insert: () => Promise.reject(new Error('injected: the disk is full')),
                }
              : Reflect.get(target, key),
        }),
      ),
    ),
  claimEnvironment: (environment) => store.claimEnvironment(environment),
  close: () => store.close(),
});

/**
 * A store that loses every unit of work after its last write, before the commit (a crash of
 * the process or of the database at that instant): whatever the work wrote is rolled back.
 */
export const crashBeforeCommit = (store: Store): Store => ({
  ...store,
  transaction: (work) =>
    store.transaction(async (tx) => {
      await work(tx);
      throw new Error('injected: the process died before COMMIT');
    }),
  claimEnvironment: (environment) => store.claimEnvironment(environment),
  close: () => store.close(),
});
