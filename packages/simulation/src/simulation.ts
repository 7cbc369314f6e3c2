/**
 * The deterministic simulation (docs/reliability.md): one seed draws a history of merchants,
 * payouts, orders, crypto batches, provider events, webhook deliveries, refunds, resolutions and
 * statements (`refund-actions.ts`, `statement-actions.ts`), with faults injected at rates the
 * seed also draws, and checks every invariant (`invariants.ts`) after every step.
 * The same seed replays the same steps with the same answers: every choice comes from the seed
 * (`prng.ts`), the clock is virtual, ids are seeded and no step runs concurrently with another
 * (within one, `refund.create_twice` asks two refunds at once: the stores run their units of
 * work one after another, in the order asked).
 */
import { isStoreFailure } from '@payrail/core';
import { bootstrapOperator, type Caller, permissions } from '@payrail/engine';
import { signSandboxUpstream } from '@payrail/sandbox';
import type { OutboundResponse, Transport } from '@payrail/webhooks';
import * as E from 'fp-ts/lib/Either.js';
import {
  type Action,
  type ActionResult,
  amountOf,
  type Context,
  type FaultRates,
  live,
  pickMerchant,
  pickOrder,
  pickWhere,
  said,
} from './action-kit.js';
import { InjectedAbort } from './faulty-store.js';
import { checkInvariants, fingerprint } from './invariants.js';
import {
  emptyModel,
  type SimMerchant,
  type SimOrder,
  type SimPayout,
  type UpstreamReport,
} from './model.js';
import { type Random, seededRandom } from './prng.js';
import { refundActions } from './refund-actions.js';
import { statementActions } from './statement-actions.js';
import {
  openWorld,
  type StoreKind,
  type StoreWrapper,
  upstreamSecret,
  upstreamSource,
  type World,
} from './world.js';

export interface SeedOptions {
  readonly seed: number;
  readonly steps: number;
  readonly store: StoreKind;
  /** Wraps the store the engine sees: the harness's own test breaks an invariant with it. */
  readonly wrapStore?: StoreWrapper;
}

export interface SeedResult {
  readonly seed: number;
  readonly store: StoreKind;
  readonly steps: number;
  /** One line per step: `#<n> <action>: <what was answered>`. */
  readonly log: readonly string[];
  /** How many times each action ran (applicable, whatever it answered). */
  readonly actions: Readonly<Record<string, number>>;
  readonly rates: FaultRates;
  readonly violation: SimulationViolation | undefined;
}

/** An invariant broken at one step of one seed: everything needed to replay it. */
export class SimulationViolation extends Error {
  constructor(
    readonly seed: number,
    readonly store: StoreKind,
    readonly step: number,
    readonly problems: readonly string[],
  ) {
    super(
      `invariant violated: seed ${seed} (${store}), step ${step}:\n${problems
        .map((p) => `  - ${p}`)
        .join('\n')}\nreplay: pnpm simulate --seed ${seed} --store ${store} --verbose`,
    );
    this.name = 'SimulationViolation';
  }
}

const pickPayout = (ctx: Context, ...states: readonly string[]): SimPayout | undefined =>
  pickWhere(ctx, ctx.model.payouts.values(), (p) => states.includes(p.state));

const drawRates = (random: Random): FaultRates => ({
  duplicate: random.int(0, 50) / 100,
  reorder: random.int(0, 50) / 100,
  lost: random.int(0, 30) / 100,
  failing: random.int(0, 30) / 100,
  slow: random.int(0, 30) / 100,
  abort: random.int(0, 15) / 100,
  restart: random.int(0, 8) / 100,
});

// ---------------------------------------------------------------------------------------------
// Merchants and money

const createMerchant: Action = {
  name: 'merchant.create',
  weight: 2,
  compound: true,
  run: async (ctx) => {
    if (ctx.model.merchants.length >= 3) return undefined;
    const { engine } = ctx.world;
    const n = ctx.model.merchants.length + 1;
    const created = await engine.admin.createMerchant(bootstrapOperator, { name: `Merchant ${n}` });
    if (E.isLeft(created)) return `refused: ${created.left.message}`;
    const accountId = created.right.account.account_id;
    const callers: Caller[] = [];
    for (const _ of [1, 2]) {
      const issued = await engine.admin.issueApiKey(bootstrapOperator, accountId, {
        permissions: [...permissions],
      });
      if (E.isLeft(issued)) return `key refused: ${issued.left.message}`;
      const caller = await engine.auth.authenticate({
        token: issued.right.api_key.token,
        ip: '203.0.113.7',
      });
      if (E.isLeft(caller)) return `authenticate refused: ${caller.left.message}`;
      callers.push(caller.right);
    }
    const [first, second] = callers as [Caller, Caller];
    const webhook = await engine.webhooks.create(first, {
      url: `https://merchant${n}.example/hooks`,
      events: ['acquiring.*', 'payout.*'],
    });
    if (E.isLeft(webhook)) return `webhook refused: ${webhook.left.message}`;
    const merchant: SimMerchant = {
      merchantId: created.right.merchant.merchant_id,
      accountId,
      callers: [first, second],
      webhookId: webhook.right.webhook.webhook_id,
      verification: false,
      autoApprove: false,
    };
    ctx.model.merchants.push(merchant);
    ctx.model.creates.push({ kind: 'merchant', id: accountId, merchant });
    ctx.model.creates.push({ kind: 'webhook', id: merchant.webhookId, merchant });
    return `ok ${accountId}`;
  },
};

const updateAccount: Action = {
  name: 'account.update',
  weight: 2,
  run: async (ctx) => {
    const merchant = pickMerchant(ctx);
    if (merchant === undefined) return undefined;
    const verification = ctx.random.chance(0.5);
    const autoApprove = ctx.random.chance(0.3);
    const answer = await ctx.world.engine.admin.updateAccount(
      bootstrapOperator,
      merchant.accountId,
      {
        verification_enabled: verification,
        auto_approve: autoApprove,
      },
    );
    if (E.isRight(answer)) {
      merchant.verification = verification;
      merchant.autoApprove = autoApprove;
    }
    return said(answer, () => `verification ${verification}, auto_approve ${autoApprove}`);
  },
};

const credit: Action = {
  name: 'credit',
  weight: 4,
  run: async (ctx) => {
    const merchant = pickMerchant(ctx);
    if (merchant === undefined) return undefined;
    const currency = ctx.random.pick(['USD', 'USD', 'USDT', 'USDC'] as const);
    const amount = amountOf(ctx.random, currency === 'USD' ? 2 : 6, 400);
    const answer = await ctx.world.engine.admin.credit(bootstrapOperator, merchant.accountId, {
      currency,
      amount,
    });
    if (E.isRight(answer)) {
      ctx.model.creates.push({ kind: 'deposit', id: answer.right.deposit.record_id, merchant });
    }
    return said(answer, (d) => `${currency} ${amount} -> ${d.balance.available}`);
  },
};

// ---------------------------------------------------------------------------------------------
// Payouts

const payoutBody = (ctx: Context, merchant: SimMerchant) => {
  ctx.serial += 1;
  const n = ctx.serial;
  return {
    client_request_id: `req-${n}`,
    currency: 'USD',
    amount: amountOf(ctx.random, 2, ctx.random.chance(0.2) ? 2000 : 150),
    method_id: 1,
    reference: `ref-${n}`,
    notify_url: `https://${merchant.accountId.replace('_', '-')}.example/payouts`,
    submit: ctx.random.chance(0.75),
    beneficiary: { name: 'Alice Example', fields: { payee_id: `alice${n % 4}`, country: 'US' } },
    beneficiary_account: {
      network_code: 'WALLETA',
      fields: { walleta_email: `alice${n % 4}@example.com` },
    },
  };
};

const createPayout: Action = {
  name: 'payout.create',
  weight: 8,
  run: async (ctx) => {
    const merchant = pickMerchant(ctx);
    if (merchant === undefined) return undefined;
    const repeats = [...ctx.model.clientRequests].filter(([key]) =>
      key.startsWith(`${merchant.accountId}|`),
    );
    // An identical repeat answers the first payout; a repeat with another body is refused; a
    // taken reference is refused.
    const repeat =
      repeats.length > 0 && ctx.random.chance(0.15) ? ctx.random.pick(repeats) : undefined;
    let body: Record<string, unknown> = payoutBody(ctx, merchant);
    if (repeat !== undefined && ctx.random.chance(0.6)) body = repeat[1].body as typeof body;
    else if (repeat !== undefined) {
      const old = repeat[1].body as Record<string, unknown>;
      body = ctx.random.chance(0.5)
        ? { ...body, client_request_id: old.client_request_id }
        : { ...body, reference: old.reference };
    }
    const answer = await ctx.world.engine.payouts.create(merchant.callers[0], body);
    if (E.isRight(answer)) {
      const id = answer.right.payout.payout_id;
      const key = `${merchant.accountId}|${String(body.client_request_id)}`;
      const first = ctx.model.clientRequests.get(key);
      if (first !== undefined && first.payoutId !== id) {
        return `VIOLATION: client_request_id ${String(body.client_request_id)} answered ${id}, first ${first.payoutId}`;
      }
      if (first === undefined) ctx.model.clientRequests.set(key, { payoutId: id, body });
      if (!ctx.model.payouts.has(id)) {
        ctx.model.payouts.set(id, { payoutId: id, merchant, currency: 'USD', state: '' });
        ctx.model.creates.push({ kind: 'payout', id, merchant });
      }
    }
    return said(answer, (d) => `${d.payout.payout_id} ${d.payout.status} ${String(body.amount)}`);
  },
};

const payoutStatusLine = (p: { status: string; review_status: string; execution_status: string }) =>
  `${p.status} ${p.review_status}/${p.execution_status}`;

const updatePayout: Action = {
  name: 'payout.update',
  weight: 2,
  run: async (ctx) => {
    const payout = pickPayout(ctx, 'draft/init', 'returned/init');
    if (payout === undefined) return undefined;
    const amount = amountOf(ctx.random, 2, 120);
    const answer = await ctx.world.engine.payouts.update(
      payout.merchant.callers[0],
      payout.payoutId,
      {
        amount,
      },
    );
    return said(answer, (d) => `${payout.payoutId} ${amount} ${payoutStatusLine(d.payout)}`);
  },
};

const submitPayout: Action = {
  name: 'payout.submit',
  weight: 3,
  run: async (ctx) => {
    const payout = pickPayout(ctx, 'draft/init', 'returned/init');
    if (payout === undefined) return undefined;
    const answer = await ctx.world.engine.payouts.submit(
      payout.merchant.callers[0],
      payout.payoutId,
    );
    return said(answer, (d) => `${payout.payoutId} ${payoutStatusLine(d.payout)}`);
  },
};

const cancelPayout: Action = {
  name: 'payout.cancel',
  weight: 2,
  run: async (ctx) => {
    const payout = pickPayout(ctx, 'draft/init', 'returned/init', 'pending_review/init');
    if (payout === undefined) return undefined;
    const answer = await ctx.world.engine.payouts.cancel(
      payout.merchant.callers[0],
      payout.payoutId,
    );
    return said(answer, (d) => `${payout.payoutId} ${payoutStatusLine(d.payout)}`);
  },
};

const reviewPayout: Action = {
  name: 'payout.review',
  weight: 5,
  run: async (ctx) => {
    const payout = pickPayout(ctx, 'pending_review/init');
    if (payout === undefined) return undefined;
    const action = ctx.random.pick(['approve', 'approve', 'approve', 'return', 'reject'] as const);
    const answer = await ctx.world.engine.admin.reviewPayout(bootstrapOperator, payout.payoutId, {
      action,
      reason: `simulated ${action}`,
    });
    return said(answer, (d) => `${payout.payoutId} ${action} ${payoutStatusLine(d.payout)}`);
  },
};

const executePayout: Action = {
  name: 'payout.execution',
  weight: 6,
  run: async (ctx) => {
    const payout = pickPayout(ctx, 'approved/init', 'approved/processing');
    if (payout === undefined) return undefined;
    const outcome = ctx.random.pick(['processing', 'completed', 'completed', 'failed'] as const);
    const { engine } = ctx.world;
    const answer = ctx.random.chance(0.5)
      ? await engine.admin.sandboxExecution(bootstrapOperator, payout.payoutId, {
          outcome,
          ...(outcome === 'failed' ? { reason: 'recipient wallet closed' } : {}),
        })
      : await engine.executions.report(
          payout.payoutId,
          outcome === 'failed' ? { status: 'failed', reason: 'bank said no' } : { status: outcome },
        );
    return said(answer, (d) => `${payout.payoutId} ${outcome} ${payoutStatusLine(d.payout)}`);
  },
};

/** A completed payout comes back (ADR 0043): through the sandbox's act or the executor's door. */
const returnPayout: Action = {
  name: 'payout.return',
  weight: 3,
  run: async (ctx) => {
    const payout = pickPayout(ctx, 'approved/completed');
    if (payout === undefined) return undefined;
    const { engine } = ctx.world;
    const reason = 'recipient bank bounced it';
    const answer = ctx.random.chance(0.5)
      ? await engine.admin.sandboxExecution(bootstrapOperator, payout.payoutId, {
          outcome: 'returned',
          reason,
        })
      : await engine.executions.report(payout.payoutId, { status: 'returned', reason });
    return said(answer, (d) => `${payout.payoutId} returned ${payoutStatusLine(d.payout)}`);
  },
};

const answerVerification: Action = {
  name: 'payout.verification',
  weight: 2,
  run: async (ctx) => {
    const payout = pickPayout(ctx, 'pending_review/init');
    if (payout === undefined) return undefined;
    const verified = ctx.random.pick([true, false, null] as const);
    const attempt = ctx.random.int(1, 9);
    const answer = await ctx.world.engine.callbacks.verificationAnswered(
      payout.payoutId,
      verified,
      attempt,
    );
    return said(
      answer,
      (d) => `${payout.payoutId} ${String(verified)} #${attempt} ${payoutStatusLine(d.payout)}`,
    );
  },
};

// ---------------------------------------------------------------------------------------------
// Acquiring orders

const tokens = {
  TRON_USDT: { network: 'TRON', currency: 'USDT' },
  ETH_USDC: { network: 'ETH', currency: 'USDC' },
} as const;
type SimToken = keyof typeof tokens;

const createOrder: Action = {
  name: 'order.create',
  weight: 5,
  run: async (ctx) => {
    const merchant = pickMerchant(ctx);
    if (merchant === undefined) return undefined;
    ctx.serial += 1;
    const amount = `${ctx.random.int(5, 200)}.00`;
    const allowed: SimToken[] = ctx.random.chance(0.5) ? ['TRON_USDT'] : ['TRON_USDT', 'ETH_USDC'];
    const answer = await ctx.world.engine.acquiring.create(merchant.callers[0], {
      out_trade_no: `order-${ctx.serial}`,
      order_currency: 'USD',
      order_amount: amount,
      expire_seconds: ctx.random.pick([300, 900, 3600]),
      underpay_tolerance: ctx.random.chance(0.5) ? '0.00' : '1.00',
      notify_webhook_id: merchant.webhookId,
      allowed_pay_currencies: allowed,
    });
    if (E.isRight(answer)) {
      const order = answer.right.order;
      ctx.model.orders.set(order.order_id, {
        orderId: order.order_id,
        merchant,
        payAmount: order.pay_amount,
        allowed,
        status: order.status,
        anomaly: '',
      });
      ctx.model.creates.push({ kind: 'order', id: order.order_id, merchant });
    }
    return said(answer, (d) => `${d.order.order_id} ${d.order.pay_amount}`);
  },
};

const selectToken: Action = {
  name: 'order.select_token',
  weight: 4,
  run: async (ctx) => {
    const order = pickOrder(ctx);
    if (order === undefined) return undefined;
    const tokenId = ctx.random.pick(order.allowed) as SimToken;
    const answer = await ctx.world.engine.checkout.selectToken(order.orderId, tokens[tokenId]);
    if (E.isRight(answer) && answer.right.order.selected_token !== null) {
      const selected = answer.right.order.selected_token;
      order.address = {
        network: selected.network,
        tokenId: selected.token_id,
        address: selected.address,
      };
    }
    return said(answer, (d) => `${order.orderId} ${tokenId} ${d.order.status}`);
  },
};

/** An amount near the order's: partial, exact or over. */
const payAmountFor = (ctx: Context, order: SimOrder): string => {
  const due = Number(order.payAmount);
  const kind = ctx.random.pick(['partial', 'exact', 'exact', 'over'] as const);
  const value =
    kind === 'exact'
      ? due
      : kind === 'partial'
        ? Math.max(1, Math.floor(due * ctx.random.int(20, 80)) / 100)
        : due + ctx.random.int(1, 20);
  return value.toFixed(6);
};

const sandboxPayment: Action = {
  name: 'order.sandbox_payment',
  weight: 3,
  run: async (ctx) => {
    const order = pickOrder(ctx);
    if (order === undefined) return undefined;
    ctx.serial += 1;
    const tokenId = ctx.random.pick(order.allowed);
    const amount = payAmountFor(ctx, order);
    const status = ctx.random.pick(['processing', 'confirming', 'confirmed', 'confirmed'] as const);
    const answer = await ctx.world.engine.admin.sandboxPayment(bootstrapOperator, order.orderId, {
      token_id: tokenId,
      amount,
      status,
      tx_hash: `0x${ctx.serial.toString(16).padStart(8, '0')}`,
    });
    return said(answer, (d) => `${order.orderId} ${amount} ${status} -> ${d.payment.status}`);
  },
};

/** A transfer to an order's address, reported by the chain watcher in several events. */
const reportTransfer: Action = {
  name: 'upstream.transfer',
  weight: 5,
  run: async (ctx) => {
    const order = pickOrder(ctx, (o) => o.address !== undefined && live(o));
    if (order === undefined) return undefined;
    if (order.address === undefined) {
      const withAddress = [...ctx.model.orders.values()].filter((o) => o.address !== undefined);
      if (withAddress.length === 0) return undefined;
      return reportTo(ctx, ctx.random.pick(withAddress));
    }
    return reportTo(ctx, order);
  },
};

const reportTo = (ctx: Context, order: SimOrder): string => {
  {
    if (order.address === undefined) return 'no address';
    ctx.serial += 1;
    const { network, tokenId, address } = order.address;
    const transfer = {
      network,
      address,
      token_id: tokenId,
      tx_hash: `tx${ctx.serial.toString(16).padStart(10, '0')}`,
      amount: payAmountFor(ctx, order),
      payment_id: `chain-${ctx.serial}`,
    };
    const ends = ctx.random.chance(0.15) ? 'failed' : 'confirmed';
    const statuses = ['processing', ...(ctx.random.chance(0.5) ? ['confirming'] : []), ends];
    for (const status of statuses) {
      ctx.model.upstreamQueue.push({ orderId: order.orderId, event: { ...transfer, status } });
    }
    return `queued ${transfer.payment_id} ${transfer.amount} ${statuses.join(',')}`;
  }
};

/** The chain watcher delivers 1-3 queued events, maybe out of order, maybe twice. */
const deliverUpstream: Action = {
  name: 'upstream.deliver',
  weight: 7,
  run: async (ctx) => {
    const queue = ctx.model.upstreamQueue;
    if (queue.length === 0) return undefined;
    const events: UpstreamReport[] = [];
    const count = Math.min(queue.length, ctx.random.int(1, 3));
    for (let i = 0; i < count; i += 1) {
      const index = ctx.random.chance(ctx.rates.reorder) ? ctx.random.int(0, queue.length - 1) : 0;
      const [report] = ctx.random.chance(ctx.rates.duplicate)
        ? [queue[index] as UpstreamReport]
        : queue.splice(index, 1);
      if (report !== undefined) events.push(report);
      if (queue.length === 0) break;
    }
    ctx.serial += 1;
    const body = JSON.stringify({ events: events.map((r) => r.event) });
    const headers = signSandboxUpstream(upstreamSecret, body, {
      id: `msg_${ctx.serial}`,
      timestamp: ctx.world.clock.now(),
    });
    const answer = await ctx.world.engine.upstream.receive('sandbox', {
      ip: upstreamSource,
      body,
      headers: { ...headers, 'content-type': 'application/json' },
    });
    return said(answer, (d) =>
      d.events
        .map((e) => `${e.payment_id}:${e.payment_status}/${e.order_status}${e.changed ? '' : '='}`)
        .join(' '),
    );
  },
};

const closeOrder: Action = {
  name: 'order.close',
  weight: 2,
  run: async (ctx) => {
    const order = pickOrder(ctx);
    if (order === undefined) return undefined;
    const answer = await ctx.world.engine.acquiring.close(
      order.merchant.callers[0],
      order.orderId,
      {
        reason: 'customer left',
      },
    );
    return said(answer, (d) => `${order.orderId} ${d.order.status}`);
  },
};

// ---------------------------------------------------------------------------------------------
// Crypto batches

const batchItem = (ctx: Context, n: number) => {
  ctx.serial += 1;
  const hex = (ctx.serial * 2654435761).toString(16).padStart(8, '0').slice(-8);
  return {
    order_no: `B${ctx.serial}-${n}`,
    amount: amountOf(ctx.random, 6, 40),
    beneficiary_account: { address: `0x${hex.repeat(5)}`, display_name: `Payee ${n}` },
  };
};

const createBatch: Action = {
  name: 'batch.create',
  weight: 2,
  run: async (ctx) => {
    const merchant = pickMerchant(ctx);
    if (merchant === undefined) return undefined;
    const currency = ctx.random.pick(['USDT', 'USDC'] as const);
    const items = Array.from(
      { length: ctx.random.chance(0.1) ? 0 : ctx.random.int(1, 3) },
      (_, i) => batchItem(ctx, i),
    );
    const answer = await ctx.world.engine.batches.create(merchant.callers[0], {
      currency,
      method_id: 2,
      items,
      ...(ctx.random.chance(0.3) ? { submit: false } : {}),
    });
    if (E.isRight(answer)) {
      const id = answer.right.batch.batch_id;
      ctx.model.batches.set(id, {
        batchId: id,
        merchant,
        currency,
        status: answer.right.batch.status,
      });
      ctx.model.creates.push({ kind: 'batch', id, merchant });
    }
    return said(answer, (d) => `${d.batch.batch_id} ${currency} ${d.batch.item_count} items`);
  },
};

const pickBatch = (ctx: Context, ...statuses: readonly string[]) =>
  pickWhere(ctx, ctx.model.batches.values(), (b) => statuses.includes(b.status));

const addBatchItems: Action = {
  name: 'batch.add_items',
  weight: 2,
  run: async (ctx) => {
    const batch = pickBatch(ctx, 'draft');
    if (batch === undefined) return undefined;
    const items = Array.from({ length: ctx.random.int(1, 2) }, (_, i) => batchItem(ctx, i));
    const answer = await ctx.world.engine.batches.addItems(
      batch.merchant.callers[0],
      batch.batchId,
      { items },
    );
    return said(answer, (d) => `${batch.batchId} ${d.batch.item_count} items ${d.batch.status}`);
  },
};

/** The batch's payouts join the model, so they are driven and checked like the others. */
const adoptBatchPayouts = async (ctx: Context, batchId: string, merchant: SimMerchant) => {
  const page = await ctx.world.store.transaction((tx) =>
    tx.payouts.list({
      scope: merchant.accountId,
      where: { batch_id: batchId },
      limit: 100,
      offset: 0,
    }),
  );
  for (const payout of page.items) {
    if (ctx.model.payouts.has(payout.payout_id)) continue;
    ctx.model.payouts.set(payout.payout_id, {
      payoutId: payout.payout_id,
      merchant,
      currency: payout.currency,
      state: '',
    });
    ctx.model.creates.push({ kind: 'payout', id: payout.payout_id, merchant });
  }
};

const approveBatch: Action = {
  name: 'batch.approve',
  weight: 2,
  run: async (ctx) => {
    const batch = pickBatch(ctx, 'draft');
    if (batch === undefined) return undefined;
    // Mostly another key (four eyes); sometimes the creator's, which must be refused.
    const who = ctx.random.chance(0.85) ? batch.merchant.callers[1] : batch.merchant.callers[0];
    // The approver approves the version it read (issue 35, M3); now and then one read before
    // the batch's last change, which must be refused.
    const read = await ctx.world.engine.batches.get(who, batch.batchId);
    const seen = E.isRight(read) ? read.right.batch.version : 0;
    const version = ctx.random.chance(0.1) ? seen - 1 : seen;
    const answer = await ctx.world.engine.batches.approve(who, batch.batchId, { version });
    if (E.isRight(answer)) await adoptBatchPayouts(ctx, batch.batchId, batch.merchant);
    return said(answer, (d) => `${batch.batchId} ${d.batch.status}`);
  },
};

const submitBatch: Action = {
  name: 'batch.submit',
  weight: 2,
  run: async (ctx) => {
    const batch = pickBatch(ctx, 'approved');
    if (batch === undefined) return undefined;
    const answer = await ctx.world.engine.batches.submit(batch.merchant.callers[0], batch.batchId);
    if (E.isRight(answer)) await adoptBatchPayouts(ctx, batch.batchId, batch.merchant);
    return said(answer, (d) => `${batch.batchId} ${d.batch.status}`);
  },
};

// ---------------------------------------------------------------------------------------------
// Time, background work, restarts

const advanceClock: Action = {
  name: 'clock.advance',
  weight: 4,
  compound: true,
  run: async (ctx) => {
    const seconds = ctx.random.pick([5, 30, 120, 400, 1000, 4000, 20_000]);
    if (ctx.random.chance(0.5)) {
      // The sandbox's clock: fires due timers and runs the dispatcher after.
      const answer = await ctx.world.engine.admin.advanceClock(bootstrapOperator, { seconds });
      return said(answer, (d) => `sandbox clock +${seconds}s -> ${d.clock.now}`);
    }
    ctx.world.clock.advance(seconds);
    const fired = await ctx.world.engine.workers.runDueTimers('sim-timers');
    return `+${seconds}s, ${fired} timers fired`;
  },
};

const runTimers: Action = {
  name: 'timers.run',
  weight: 2,
  compound: true,
  run: async (ctx) => `${await ctx.world.engine.workers.runDueTimers('sim-timers')} timers fired`,
};

const dispatch: Action = {
  name: 'webhooks.dispatch',
  weight: 6,
  compound: true,
  run: async (ctx) => `${await ctx.world.dispatcher.runOnce()} attempts`,
};

const restart: Action = {
  name: 'restart',
  weight: 0,
  compound: true,
  run: async (ctx) => {
    ctx.world.restart();
    return `engine and dispatcher rebuilt (${ctx.world.restarts})`;
  },
};

const actions: readonly Action[] = [
  createMerchant,
  updateAccount,
  credit,
  createPayout,
  updatePayout,
  submitPayout,
  cancelPayout,
  reviewPayout,
  executePayout,
  returnPayout,
  answerVerification,
  createOrder,
  selectToken,
  sandboxPayment,
  reportTransfer,
  deliverUpstream,
  closeOrder,
  createBatch,
  addBatchItems,
  approveBatch,
  submitBatch,
  ...refundActions,
  ...statementActions,
  advanceClock,
  runTimers,
  dispatch,
];

/** Every action a run can take, the injected faults included, by name. */
export const actionNames: readonly string[] = [
  ...actions.map((a) => a.name),
  restart.name,
  'fault.abort',
];

const totalWeight = actions.reduce((total, a) => total + a.weight, 0);

const drawAction = (random: Random): Action => {
  let roll = random.int(1, totalWeight);
  for (const action of actions) {
    roll -= action.weight;
    if (roll <= 0) return action;
  }
  return actions[actions.length - 1] as Action;
};

// ---------------------------------------------------------------------------------------------
// Webhook receivers

/**
 * The merchants' receivers, as the dispatcher's transport: each attempt may be lost, answered
 * 5xx, or slow (the virtual clock moves while it waits, past the claim's lease at worst). A
 * verification request (the bare payload, no `event_type`) is answered verified, not verified,
 * with garbage, or undecided.
 */
const receivers =
  (random: Random, rates: () => FaultRates, clock: () => World['clock']): Transport =>
  async (request): Promise<OutboundResponse> => {
    const r = rates();
    if (random.chance(r.slow)) clock().advance(random.pick([2, 20, 90]));
    if (random.chance(r.lost)) {
      return { statusCode: null, body: '', error: 'timeout after 15000 ms', latencyMs: 15_000 };
    }
    if (random.chance(r.failing)) {
      return { statusCode: random.pick([500, 502, 503]), body: 'down', error: null, latencyMs: 5 };
    }
    const isVerification = !request.body.includes('"event_type"');
    if (!isVerification) return { statusCode: 200, body: 'ok', error: null, latencyMs: 3 };
    const body = random.pick([
      '{"verified":true}',
      '{"verified":true}',
      '{"verified":false}',
      '{"verified":"yes"}',
      'not json',
      '{}',
    ]);
    return { statusCode: 200, body, error: null, latencyMs: 4 };
  };

// ---------------------------------------------------------------------------------------------
// One seed

/** An answer the engine threw instead of answering: a fault we injected, or a defect. */
const thrownBy = async (
  run: () => Promise<ActionResult>,
): Promise<{ result: ActionResult; thrown: unknown }> => {
  try {
    return { result: await run(), thrown: undefined };
  } catch (error) {
    return { result: undefined, thrown: error };
  }
};

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** Whether `error` is (or wraps) the abort we injected. */
const isInjected = (error: unknown): boolean => {
  for (
    let e: unknown = error;
    e !== undefined && e !== null;
    e = (e as { cause?: unknown }).cause
  ) {
    if (e instanceof InjectedAbort) return true;
    if (e instanceof AggregateError && e.errors.some(isInjected)) return true;
  }
  return false;
};

/**
 * The platform's operators: the bootstrap and a reviewer (not an admin, so the bootstrap keeps
 * its permissions), so a refund one asks for when refusing an order can be approved by the other.
 */
const addReviewer = async (ctx: Context): Promise<void> => {
  const made = await ctx.world.engine.admin.createOperator(bootstrapOperator, {
    name: 'Rita Reviewer',
    role: 'reviewer',
  });
  if (E.isLeft(made)) throw new Error(`the reviewer was refused: ${made.left.message}`);
  const { operator_id, name, role } = made.right.operator;
  ctx.model.operators.push(bootstrapOperator, { operator_id, name, role });
};

export const runSeed = async (options: SeedOptions): Promise<SeedResult> => {
  const random = seededRandom(options.seed);
  const rates = drawRates(random);
  const transportRandom = random.fork();
  let worldRef: World | undefined;
  // The drain at the end turns the receivers' faults off.
  let receiverRates = rates;
  const world = await openWorld({
    kind: options.store,
    random: random.fork(),
    transport: receivers(
      transportRandom,
      () => receiverRates,
      () => (worldRef as World).clock,
    ),
    ...(options.wrapStore === undefined ? {} : { wrapStore: options.wrapStore }),
  });
  worldRef = world;
  const ctx: Context = { world, model: emptyModel(), random, rates, serial: 0 };
  const log: string[] = [];
  const counts: Record<string, number> = {};
  const count = (name: string) => {
    counts[name] = (counts[name] ?? 0) + 1;
  };
  let violation: SimulationViolation | undefined;
  const fail = (step: number, problems: readonly string[]) => {
    violation = new SimulationViolation(options.seed, options.store, step, problems);
  };

  try {
    await addReviewer(ctx);
    for (let step = 1; step <= options.steps && violation === undefined; step += 1) {
      if (random.chance(rates.restart)) {
        count(restart.name);
        log.push(`#${step} restart: ${await restart.run(ctx)}`);
      }
      // The first step makes a merchant, so every history has someone to act for.
      let action = step === 1 ? createMerchant : drawAction(random);
      for (let tries = 0; tries < 20; tries += 1) {
        // A dry run would draw from the seed; instead, actions that do not apply answer undefined
        // and another is drawn (each draw is itself from the seed).
        const abortAt = random.chance(rates.abort) ? random.int(1, 12) : undefined;
        const before =
          abortAt !== undefined && action.compound !== true
            ? await fingerprint(world, ctx.model)
            : undefined;
        if (abortAt !== undefined) world.faults.arm(abortAt);
        const { result, thrown } = await thrownBy(() => action.run(ctx));
        const fired = abortAt !== undefined && world.faults.fired();
        world.faults.disarm();
        if (result === undefined && thrown === undefined) {
          action = drawAction(random);
          continue;
        }
        count(action.name);
        if (fired) count('fault.abort');
        if (thrown !== undefined && !(fired && isInjected(thrown))) {
          const stored = isStoreFailure(thrown) ? ' (a store refusal reached the caller)' : '';
          fail(step, [`${action.name} threw instead of answering${stored}: ${describe(thrown)}`]);
        }
        const line = thrown !== undefined ? `aborted at statement ${abortAt}` : (result as string);
        log.push(`#${step} ${action.name}: ${line}`);
        if (line.startsWith('VIOLATION')) fail(step, [line]);
        if (fired && before !== undefined && thrown !== undefined) {
          const after = await fingerprint(world, ctx.model);
          if (after !== before) {
            fail(step, [
              `${action.name} aborted at statement ${abortAt} but the store kept part of it`,
            ]);
          }
        }
        break;
      }
      if (violation === undefined) {
        const problems = await checkInvariants(world, ctx.model);
        if (problems.length > 0) fail(step, problems);
      }
    }
    if (violation === undefined) {
      receiverRates = { ...rates, lost: 0, failing: 0, slow: 0 };
      const problems = await drain(ctx, log);
      if (problems.length > 0) fail(options.steps + 1, problems);
    }
  } catch (error) {
    fail(log.length + 1, [`the harness failed: ${describe(error)}`]);
  } finally {
    await world.close();
  }
  return {
    seed: options.seed,
    store: options.store,
    steps: log.length,
    log,
    actions: counts,
    rates,
    violation,
  };
};

/**
 * The end of a history: faults off (the caller quieted the receivers), the clock runs on until every timer fired and the outbox is
 * drained; then every message is delivered or failed for good, and the invariants still hold.
 */
const drain = async (ctx: Context, log: string[]): Promise<string[]> => {
  const { world } = ctx;
  for (let round = 0; round < 40; round += 1) {
    const next = await world.store.transaction(async (tx) => [
      await tx.outbox.nextAvailableAt(),
      await tx.timers.nextDueAt(),
    ]);
    const due = next.filter((t): t is number => t !== undefined);
    if (due.length === 0) break;
    const wait = Math.max(0, Math.min(...due) - world.clock.now());
    world.clock.advance(wait + 1);
    await world.engine.workers.runDueTimers('sim-timers');
    await world.dispatcher.runOnce();
  }
  const problems = await checkInvariants(world, ctx.model);
  const stuck = (await world.oracle.outbox()).filter((m) => m.status === 'pending');
  problems.push(
    ...stuck.map(
      (m) =>
        `outbox ${m.outbox_id} (${m.event_type}) still pending after the drain (${m.attempts} attempts)`,
    ),
  );
  log.push(`#end drain: ${stuck.length} pending, clock ${world.clock.now()}`);
  return problems;
};
