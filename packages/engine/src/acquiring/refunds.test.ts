/**
 * Refunds and resolutions of acquiring orders (issue 21, ADR 0044) through the whole engine: what
 * the merchant's answers, balance, ledger and webhooks show, and what the audit trail names.
 */
import { memoryOracle } from '@payrail/store-memory/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Caller, Engine, Operator } from '../engine.api.js';
import {
  messageOf,
  type OperatorsWorld,
  operatorsWorld,
  rightOf,
} from '../operators/operators.test-support.js';

const tronAddress = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';
const evmAddress = '0x52908400098527886E0F7030069857D2E4169EE7';

let w: OperatorsWorld;
let engine: Engine;
let key: Caller;
let reviewer: Operator;
let treasurer: Operator;
let webhookId: string;

const outboxOf = async (businessId: string) =>
  (await memoryOracle(w.raw).outbox())
    .filter((m) => m.business_id === businessId)
    .map((m) => m.event_type);

const balanceOf = async (currency: string) =>
  rightOf(await engine.accounts.balances(key, {})).items.find((b) => b.currency === currency);

/** An order of `amount` USD paid with `paid` TRON_USDT, confirmed. */
const paidOrder = async (n: number, amount: string, paid: string) => {
  const { order } = rightOf(
    await engine.acquiring.create(key, {
      out_trade_no: `ORD-${n}`,
      order_currency: 'USD',
      order_amount: amount,
      allowed_pay_currencies: ['TRON_USDT', 'ETH_USDC'],
      expire_seconds: 1800,
      underpay_tolerance: '0',
      notify_webhook_id: webhookId,
    }),
  );
  if (paid !== '0') {
    rightOf(
      await engine.admin.sandboxPayment(treasurer, order.order_id, {
        token_id: 'TRON_USDT',
        amount: paid,
        status: 'confirmed',
      }),
    );
  }
  return order.order_id;
};

beforeEach(async () => {
  w = await operatorsWorld();
  engine = w.engine;
  key = w.keyOf('key_m');
  reviewer = await w.operator('rita', 'reviewer');
  treasurer = await w.operator('tess', 'treasurer');
  const { webhook } = rightOf(
    await engine.webhooks.create(key, {
      url: 'https://merchant.example/hooks',
      events: ['acquiring.*'],
    }),
  );
  webhookId = webhook.webhook_id;
});

describe('a refund of a paid order', () => {
  it('holds the amount, waits for review, completes through the executor, and shows on the order', async () => {
    const orderId = await paidOrder(1, '25.00', '30');
    expect((await balanceOf('USDT'))?.available).toBe('30.000000');

    const { refund } = rightOf(
      await engine.acquiring.refund(key, orderId, {
        refund_type: 'overpaid',
        address: tronAddress,
        reason: 'paid too much',
      }),
    );
    expect(refund).toMatchObject({
      order_id: orderId,
      status: 'requested',
      refund_type: 'overpaid',
      token_id: 'TRON_USDT',
      amount: '5.000000',
      requested_by: 'api_key:key_m',
      review_required: true,
    });
    expect(await balanceOf('USDT')).toMatchObject({ available: '25.000000', held: '5.000000' });

    // a reviewer approves; the treasurer's sandbox act says the executor sent it
    const approved = rightOf(
      await engine.admin.reviewRefund(reviewer, refund.refund_id, { action: 'approve' }),
    );
    expect(approved.refund).toMatchObject({
      status: 'approved',
      reviewed_by: reviewer.operator_id,
    });
    const done = rightOf(
      await engine.admin.sandboxRefundExecution(treasurer, refund.refund_id, {
        outcome: 'completed',
      }),
    );
    expect(done.refund.status).toBe('completed');
    expect(await balanceOf('USDT')).toMatchObject({ available: '25.000000', held: '0.000000' });

    const read = rightOf(await engine.acquiring.get(key, orderId));
    expect(read.order.refunded_amount).toBe('5.000000');
    expect(read.refunds?.map((r) => [r.refund_id, r.status])).toEqual([
      [refund.refund_id, 'completed'],
    ]);
    expect(await outboxOf(refund.refund_id)).toEqual([
      'acquiring.refund.requested',
      'acquiring.refund.approved',
      'acquiring.refund.completed',
    ]);
    const ledger = rightOf(await engine.accounts.ledger(key, { sort_order: 'asc', limit: '100' }));
    expect(
      ledger.items
        .filter((e) => e.business_id === refund.refund_id)
        .map((e) => [e.record_type, e.bucket, e.amount]),
    ).toEqual([
      ['refund_hold', 'available', '-5.000000'],
      ['refund_hold', 'held', '5.000000'],
      ['refund', 'held', '-5.000000'],
    ]);
    // the executor's retried report changes nothing; a return is no refund's outcome
    expect(
      rightOf(await engine.executions.reportRefund(refund.refund_id, { status: 'completed' }))
        .refund.status,
    ).toBe('completed');
    expect(
      messageOf(
        await engine.executions.reportRefund(refund.refund_id, {
          status: 'returned',
          reason: 'x',
        }),
      ),
    ).toBe('invalid refund status');
  });

  it('never gives back more than was paid, concurrent refunds included', async () => {
    const orderId = await paidOrder(2, '30.00', '30');
    const ask = (amount: string) =>
      engine.acquiring.refund(key, orderId, {
        refund_type: 'partial',
        amount,
        address: tronAddress,
      });
    const answers = await Promise.all([ask('20'), ask('20'), ask('20')]);
    const granted = answers.filter((a) => a._tag === 'Right');
    expect(granted).toHaveLength(1);
    expect(answers.map(messageOf).filter((m) => m !== undefined)).toEqual([
      'refund amount exceeds refundable amount 10.000000',
      'refund amount exceeds refundable amount 10.000000',
    ]);
    rightOf(await ask('10'));
    expect(messageOf(await ask('0.000001'))).toBe('nothing left to refund');
    expect(rightOf(await engine.acquiring.get(key, orderId)).order.refunded_amount).toBe(
      '30.000000',
    );
  });

  it('answers a request repeated under its client_refund_id with the refund it made', async () => {
    const orderId = await paidOrder(10, '25.00', '25');
    const body = {
      refund_type: 'partial',
      amount: '5',
      address: tronAddress,
      client_refund_id: 'rf-1',
    };
    const first = rightOf(await engine.acquiring.refund(key, orderId, body)).refund;
    const again = rightOf(await engine.acquiring.refund(key, orderId, body)).refund;
    expect(again.refund_id).toBe(first.refund_id);
    expect(first.client_refund_id).toBe('rf-1');
    expect(rightOf(await engine.acquiring.refunds(key, orderId)).total).toBe(1);
    expect(messageOf(await engine.acquiring.refund(key, orderId, { ...body, amount: '6' }))).toBe(
      'client_refund_id already used',
    );
  });

  it('answers each refusal with the catalogue', async () => {
    const open = await paidOrder(3, '25.00', '0');
    const paid = await paidOrder(4, '25.00', '25');
    const body = { refund_type: 'full', address: tronAddress };
    expect(messageOf(await engine.acquiring.refund(key, open, body))).toBe(
      'only a completed, underpaid, expired_paid or refused order can be refunded',
    );
    expect(messageOf(await engine.acquiring.refund(key, paid, { address: tronAddress }))).toBe(
      'refund_type required',
    );
    expect(messageOf(await engine.acquiring.refund(key, paid, { ...body, refund_type: 'x' }))).toBe(
      'refund_type must be full, partial or overpaid',
    );
    expect(
      messageOf(await engine.acquiring.refund(key, paid, { ...body, refund_type: 'partial' })),
    ).toBe('amount required');
    expect(
      messageOf(await engine.acquiring.refund(key, paid, { ...body, token_id: 'ETH_USDC' })),
    ).toBe('token not paid on order: ETH_USDC');
    expect(
      messageOf(await engine.acquiring.refund(key, paid, { ...body, address: evmAddress })),
    ).toBe('invalid TRON refund address');
    expect(
      messageOf(await engine.acquiring.refund(key, paid, { ...body, refund_type: 'overpaid' })),
    ).toBe('nothing left to refund');
    const other = { ...key, account_id: 'acc_other', merchant_id: 'mch_other', key_id: 'key_o' };
    expect(messageOf(await engine.acquiring.refund(other, paid, body))).toBe('account not found');
    expect(messageOf(await engine.acquiring.getRefund(key, 'rfd_nope'))).toBe('refund not found');
  });

  it('gives the amount back to the balance and the order when it is rejected or fails', async () => {
    const orderId = await paidOrder(5, '25.00', '25');
    const full = { refund_type: 'full', address: tronAddress };
    const first = rightOf(await engine.acquiring.refund(key, orderId, full)).refund;
    rightOf(await engine.admin.reviewRefund(reviewer, first.refund_id, { action: 'reject' }));
    expect(await balanceOf('USDT')).toMatchObject({ available: '25.000000', held: '0.000000' });
    expect(rightOf(await engine.acquiring.get(key, orderId)).order.refunded_amount).toBe(
      '0.000000',
    );

    const second = rightOf(await engine.acquiring.refund(key, orderId, full)).refund;
    expect(second.amount).toBe('25.000000');
    rightOf(await engine.admin.reviewRefund(reviewer, second.refund_id, { action: 'approve' }));
    const failed = rightOf(
      await engine.admin.sandboxRefundExecution(treasurer, second.refund_id, {
        outcome: 'failed',
        reason: 'address rejected',
      }),
    ).refund;
    expect(failed).toMatchObject({ status: 'failed', fail_reason: 'address rejected' });
    expect(await balanceOf('USDT')).toMatchObject({ available: '25.000000', held: '0.000000' });
    expect(
      messageOf(await engine.admin.reviewRefund(reviewer, second.refund_id, { action: 'approve' })),
    ).toBe('invalid refund status');
    // a viewer may not review
    const viewer = await w.operator('vic', 'viewer');
    expect(
      messageOf(await engine.admin.reviewRefund(viewer, first.refund_id, { action: 'approve' })),
    ).toBe('forbidden');
  });
});

describe('an operator resolves an exception', () => {
  it('does not accept as paid what was refunded', async () => {
    const orderId = await paidOrder(9, '25.00', '10');
    w.clock.advance(1801);
    rightOf(
      await engine.acquiring.refund(key, orderId, { refund_type: 'full', address: tronAddress }),
    );
    expect(
      messageOf(
        await engine.admin.resolveOrder(reviewer, orderId, { action: 'accept', reason: 'x' }),
      ),
    ).toBe('order has no confirmed payment to accept');
  });

  it('accepts an order paid after expiry as paid, and the trail names the operator', async () => {
    const orderId = await paidOrder(6, '25.00', '0');
    w.clock.advance(1801);
    rightOf(
      await engine.admin.sandboxPayment(treasurer, orderId, {
        token_id: 'TRON_USDT',
        amount: '25',
        status: 'confirmed',
      }),
    );
    const seen = rightOf(await engine.admin.getOrder(reviewer, orderId));
    expect(seen.order.status).toBe('expired');
    expect(seen.payments.map((p) => p.status)).toEqual(['late']);

    const resolved = rightOf(
      await engine.admin.resolveOrder(reviewer, orderId, {
        action: 'accept',
        reason: 'paid late; goods shipped',
      }),
    );
    expect(resolved.order).toMatchObject({
      status: 'completed',
      // the late payment now counts as paid
      paid_amount_total: '25.000000',
      remaining_amount: '0.000000',
      resolution: {
        action: 'accept',
        reason: 'paid late; goods shipped',
        operator_id: reviewer.operator_id,
      },
    });
    expect(
      messageOf(
        await engine.admin.resolveOrder(reviewer, orderId, { action: 'refuse', reason: 'x' }),
      ),
    ).toBe('order already resolved');
    const events = await outboxOf(orderId);
    expect(events.at(-1)).toBe('acquiring.order.updated');
    const trail = rightOf(
      await engine.admin.audit(reviewer, { action: 'acquiring_order.resolve' }),
    );
    expect(trail.items.map((a) => [a.actor_name, a.object_id, a.detail])).toEqual([
      ['rita', orderId, 'accept'],
    ]);
  });

  it('refuses an underpaid order and refunds what came in, to the address it names', async () => {
    const orderId = await paidOrder(7, '25.00', '10');
    w.clock.advance(1801);
    expect(
      messageOf(
        await engine.admin.resolveOrder(reviewer, orderId, { action: 'refuse', reason: 'no' }),
      ),
    ).toBe('refund_address required');
    const resolved = rightOf(
      await engine.admin.resolveOrder(reviewer, orderId, {
        action: 'refuse',
        reason: 'customer cancelled',
        refund_address: tronAddress,
      }),
    );
    expect(resolved.order).toMatchObject({ status: 'closed', refunded_amount: '10.000000' });
    expect(resolved.refunds?.map((r) => [r.status, r.amount, r.requested_by])).toEqual([
      ['requested', '10.000000', `operator:${reviewer.operator_id}`],
    ]);
    // Four eyes: the operator who named the address does not also send the money there.
    const refundId = resolved.refunds?.[0]?.refund_id ?? '';
    expect(
      messageOf(await engine.admin.reviewRefund(reviewer, refundId, { action: 'approve' })),
    ).toBe('refund must be approved by an operator other than its requester');
    const second = await w.operator('sam', 'reviewer');
    expect(
      rightOf(await engine.admin.reviewRefund(second, refundId, { action: 'approve' })).refund,
    ).toMatchObject({ status: 'approved', reviewed_by: second.operator_id });
    const completed = await paidOrder(8, '25.00', '25');
    expect(
      messageOf(
        await engine.admin.resolveOrder(reviewer, completed, { action: 'accept', reason: 'x' }),
      ),
    ).toBe('only an underpaid, expired or expired_paid order can be resolved');
  });
});
