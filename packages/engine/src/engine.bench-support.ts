/**
 * What the engine benchmarks run on: the whole engine (`createEngine`) over the memory store,
 * the sandbox catalogue, one merchant made through the admin use cases, funded, with a webhook
 * for its orders. Random ids and a fixed clock, as a running sandbox would have them.
 */
import type { Store } from '@payrail/core';
import { createMemoryStore } from '@payrail/store-memory';
import * as E from 'fp-ts/lib/Either.js';
import { permissions } from './access/access-control.policy.js';
import type { Outcome } from './command/command.handler.js';
import type { Caller, Data, Engine } from './engine.api.js';
import { adjustableClock, randomIds } from './engine.deps.js';
import { createEngine } from './engine.wiring.js';
import { bootstrapOperator } from './operators/operators.use-cases.js';
import { seedSandboxCatalogue } from './payouts/sandbox-catalogue.use-cases.js';

const benchNow = 1_800_000_000;

/** The answer's data; a refusal stops the benchmark, which would measure the wrong path. */
export const dataOf = <T>(outcome: Outcome<T>): T => {
  if (E.isLeft(outcome)) throw new Error(`refused: ${outcome.left.message}`);
  return outcome.right;
};

/** `data[key][field]` as a string, e.g. `idOf(answer, 'payout', 'payout_id')`. */
export const idOf = (outcome: Outcome<Data>, key: string, field: string): string =>
  String((dataOf(outcome)[key] as Readonly<Record<string, unknown>>)[field]);

export interface BenchBed {
  readonly engine: Engine;
  readonly store: Store;
  readonly caller: Caller;
  readonly webhookId: string;
}

export const benchBed = async (store: Store = createMemoryStore()): Promise<BenchBed> => {
  const clock = adjustableClock({ now: () => benchNow });
  const ids = randomIds;
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
  await seedSandboxCatalogue(store, ids, clock);
  const created = await engine.admin.createMerchant(bootstrapOperator, { name: 'Bench Merchant' });
  const caller: Caller = {
    merchant_id: idOf(created, 'merchant', 'merchant_id'),
    account_id: idOf(created, 'merchant', 'account_id'),
    key_id: 'key_bench',
    permissions,
    env: 'sandbox',
  };
  dataOf(
    await engine.admin.credit(bootstrapOperator, caller.account_id, {
      currency: 'USD',
      amount: '1000000000.00',
    }),
  );
  const webhookId = idOf(
    await engine.webhooks.create(caller, {
      url: 'https://merchant.example/hooks/acquiring',
      events: ['acquiring.*'],
    }),
    'webhook',
    'webhook_id',
  );
  return { engine, store, caller, webhookId };
};

/** A quick payout to a WALLETA wallet through the sandbox's USD method, inline beneficiary. */
export const quickPayout = (reference: string) => ({
  client_request_id: `cr-${reference}`,
  currency: 'USD',
  amount: '25.00',
  method_id: 1,
  reference,
  notify_url: 'https://merchant.example/payouts/notify',
  beneficiary: { name: 'Jane Doe', fields: { payee_id: 'jane01', country: 'US' } },
  beneficiary_account: { network_code: 'WALLETA', fields: { walleta_email: 'jane@example.com' } },
});

/** A 10.00 USD order payable in TRON USDT, notifying the bed's webhook. */
export const order = (outTradeNo: string, webhookId: string) => ({
  out_trade_no: outTradeNo,
  order_currency: 'USD',
  order_amount: '10.00',
  expire_seconds: 600,
  underpay_tolerance: '0',
  notify_webhook_id: webhookId,
  allowed_pay_currencies: ['TRON_USDT'],
});
