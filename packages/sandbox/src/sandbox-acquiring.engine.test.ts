/**
 * The sandbox provider behind the real engine on the memory store: a merchant's direct order
 * paid through sandbox payloads, as a local chain watcher (or a person with curl) would send
 * them. The HTTP side is tested in @payrail/http (upstream.engine.test.ts).
 */
import type { IdGenerator, PayrailError } from '@payrail/core';
import {
  bootstrapOperator,
  type Caller,
  createEngine,
  type Data,
  type Outcome,
  permissions,
} from '@payrail/engine';
import { createMemoryStore } from '@payrail/store-memory';
import { memoryOracle } from '@payrail/store-memory/testing';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { sandboxAcquiringProvider } from './sandbox-acquiring.provider.js';
import {
  generateSandboxUpstreamSecret,
  signSandboxUpstream,
} from './sandbox-upstream-signature.js';

const t0 = 1_800_000_000;

const countingIds = (): IdGenerator => {
  let n = 0;
  return { next: (prefix) => `${prefix}_${++n}` };
};

const ok = (outcome: Outcome<Data>): Data => {
  if (E.isLeft(outcome)) throw new Error(`expected success, got ${outcome.left.message}`);
  return outcome.right;
};

const refusal = (outcome: Outcome<Data>): Pick<PayrailError, 'httpStatus' | 'code' | 'message'> => {
  if (E.isRight(outcome)) throw new Error('expected a refusal');
  const { httpStatus, code, message } = outcome.left;
  return { httpStatus, code, message };
};

const sandbox = async () => {
  const store = createMemoryStore();
  const secret = generateSandboxUpstreamSecret();
  let now = t0;
  const engine = createEngine({
    store,
    clock: { now: () => now },
    ids: countingIds(),
    settings: {
      environment: 'sandbox',
      checkoutBaseUrl: 'https://pay.example/checkout',
      allowInsecureWebhooks: false,
      keySecret: new Uint8Array(32).fill(3),
    },
    acquiringProviders: [
      sandboxAcquiringProvider({ allowedSources: ['127.0.0.1/32', '::1/128'], secret }),
    ],
  });
  const { merchant } = ok(
    await engine.admin.createMerchant(bootstrapOperator, { name: 'Acme' }),
  ) as {
    merchant: { merchant_id: string; account_id: string };
  };
  const caller: Caller = {
    merchant_id: merchant.merchant_id,
    account_id: merchant.account_id,
    key_id: 'key_test',
    permissions,
    env: 'sandbox',
  };
  const { webhook } = ok(
    await engine.webhooks.create(caller, {
      url: 'https://merchant.example/hooks',
      events: ['acquiring.*'],
    }),
  ) as { webhook: { webhook_id: string } };
  const data = ok(
    await engine.acquiring.create(caller, {
      out_trade_no: 'ORD-1',
      order_currency: 'USD',
      order_amount: '30.00',
      allowed_pay_currencies: ['TRON_USDT'],
      expire_seconds: 600,
      underpay_tolerance: '0',
      notify_webhook_id: webhook.webhook_id,
      mode: 'direct',
      network: 'TRON',
      currency: 'USDT',
    }),
  ) as { order: { order_id: string }; payment_address: { address: string } };
  /** A signed delivery, as the chain watcher sends it. */
  const send = (events: readonly Record<string, unknown>[], ip = '127.0.0.1') => {
    const body = JSON.stringify({ events });
    return engine.upstream.receive('sandbox', {
      ip,
      body,
      headers: { 'content-type': 'application/json', ...signSandboxUpstream(secret, body) },
    });
  };
  return {
    engine,
    caller,
    store,
    oracle: memoryOracle(store),
    orderId: data.order.order_id,
    address: data.payment_address.address,
    send,
    later: (seconds: number) => {
      now += seconds;
    },
  };
};

describe('the sandbox provider on the engine', () => {
  it('pays an order: processing, confirming, confirmed; a failed payment beside it counts nothing', async () => {
    const s = await sandbox();
    const payment = { network: 'TRON', address: s.address, token_id: 'TRON_USDT', tx_hash: 'ab12' };
    const statuses: string[] = [];
    for (const status of ['processing', 'confirming', 'confirmed']) {
      s.later(30);
      const data = ok(await s.send([{ ...payment, amount: '30', status }]));
      statuses.push((data.events as { order_status: string }[])[0]?.order_status ?? '');
    }
    expect(statuses).toEqual(['processing', 'confirming', 'completed']);
    ok(await s.send([{ ...payment, tx_hash: 'cd34', amount: '5', status: 'failed' }]));

    const order = ok(await s.engine.acquiring.get(s.caller, s.orderId)).order;
    expect(order).toMatchObject({ status: 'completed', paid_amount_total: '30.000000' });
    const items = ok(await s.engine.acquiring.payments(s.caller, s.orderId)).items as Record<
      string,
      unknown
    >[];
    expect(items.map((p) => [p.tx_hash, p.status, p.confirmations, p.amount])).toEqual([
      ['ab12', 'completed', 19, '30.000000'],
      ['cd34', 'failed', 0, '5.000000'],
    ]);
    expect(await s.oracle.journalIds()).toHaveLength(1);
    const balances = ok(await s.engine.accounts.balances(s.caller, {})).items as {
      currency: string;
      available: string;
    }[];
    expect(balances.find((b) => b.currency === 'USDT')?.available).toBe('30.000000');
  });

  it('answers the catalogue messages of the sandbox payload and of its sources', async () => {
    const s = await sandbox();
    expect(refusal(await s.send([], '10.1.2.3'))).toEqual({
      httpStatus: 403,
      code: 61,
      message: 'webhook ip not allowed',
    });
    expect(refusal(await s.send([]))).toEqual({
      httpStatus: 400,
      code: 51,
      message: 'empty upstream webhook event',
    });
    expect(refusal(await s.send([{ network: 'TRON' }]))).toEqual({
      httpStatus: 400,
      code: 51,
      message: 'invalid upstream merchant deposit payload',
    });
  });
});
