import type { PayoutExecutionRequest } from '@payrail/core';
import { describe, expect, it, vi } from 'vitest';
import {
  dataOf,
  errorOf,
  merchantA,
  notifyUrl,
  payoutHarness,
  payoutOf,
  startTime,
  walletaPayout,
} from './payouts.test-support.js';

describe('payout lifecycle, end to end on the memory store', () => {
  it('create -> pending_review -> approve -> processing -> completed, with ledger and outbox', async () => {
    const h = await payoutHarness();
    await h.credit(merchantA, 'USD', '1000.00');

    const created = payoutOf(await h.engine.payouts.create(merchantA, walletaPayout()));
    expect(created).toEqual({
      payout_id: 'po_1',
      client_request_id: 'req-1',
      reference: 'ref-1',
      currency: 'USD',
      amount: '100.00',
      status: 'pending_review',
      review_status: 'pending_review',
      execution_status: 'init',
      beneficiary_id: 'ben_1',
      beneficiary_account_id: 'bacc_1',
      risk_status: 'pending',
    });
    // Nothing is sent before review without merchant verification; nothing is held yet.
    expect(await h.outboxOf('po_1')).toEqual([]);
    expect(await h.balance(merchantA, 'USD')).toEqual({
      currency: 'USD',
      available: '1000.00',
      held: '0.00',
    });

    h.clock.advance(10);
    const approved = payoutOf(await h.engine.admin.reviewPayout('po_1', { action: 'approve' }));
    expect(approved).toMatchObject({ status: 'approved', execution_status: 'init' });
    expect(approved).not.toHaveProperty('risk_status');
    // The hand-off timer is due at once; in the sandbox it only completes.
    expect((await h.oracle.timers()).map((t) => t.timer_id)).toEqual(['payout.execute:po_1']);
    expect(await h.runTimers()).toBe(1);
    expect(await h.oracle.timers()).toEqual([]);
    expect(payoutOf(await h.engine.payouts.get(merchantA, 'po_1')).status).toBe('approved');

    h.clock.advance(10);
    const processing = payoutOf(
      await h.engine.admin.sandboxExecution('po_1', { outcome: 'processing' }),
    );
    expect(processing).toMatchObject({ status: 'processing', execution_status: 'processing' });
    // amount 100.00 + fee (0.50 + 1 % = 1.50) is held.
    expect(await h.balance(merchantA, 'USD')).toEqual({
      currency: 'USD',
      available: '898.50',
      held: '101.50',
    });

    h.clock.advance(10);
    const completed = payoutOf(
      await h.engine.admin.sandboxExecution('po_1', { outcome: 'completed' }),
    );
    expect(completed).toMatchObject({
      status: 'completed',
      review_status: 'approved',
      execution_status: 'completed',
    });
    expect(await h.balance(merchantA, 'USD')).toEqual({
      currency: 'USD',
      available: '898.50',
      held: '0.00',
    });
    expect(await h.ledger(merchantA)).toEqual([
      ['deposit', 'available', '1000.00', '1000.00', 'dep_test_1'],
      ['payout_hold', 'available', '-101.50', '898.50', 'po_1'],
      ['payout_hold', 'held', '101.50', '101.50', 'po_1'],
      ['payout', 'held', '-100.00', '1.50', 'po_1'],
      ['payout_fee', 'held', '-1.50', '0.00', 'po_1'],
    ]);

    const outbox = await h.outboxOf('po_1');
    expect(outbox.map((m) => m.event_type)).toEqual([
      'payout.review.approved',
      'payout.execution.processing',
      'payout.execution.completed',
    ]);
    for (const message of outbox) {
      expect(message.destination).toEqual({ kind: 'notify_url', url: notifyUrl });
      expect(message.account_id).toBe('acc_a');
    }
    expect(outbox[2]?.payload).toEqual({
      event_id: outbox[2]?.event_id,
      event_type: 'payout.execution.completed',
      business_type: 'payout',
      business_id: 'po_1',
      occurred_at: startTime + 30,
      version: 'v1',
      data: {
        payout_id: 'po_1',
        reference: 'ref-1',
        currency: 'USD',
        amount: '100.00',
        status: 'completed',
        review_status: 'approved',
        execution_status: 'completed',
      },
    });
  });

  it('a failed execution releases the hold and reports execution_fail_reason', async () => {
    const h = await payoutHarness();
    await h.credit(merchantA, 'USD', '500.00');
    await h.engine.payouts.create(merchantA, walletaPayout({ fee_bearer: 'user' }));
    await h.engine.admin.reviewPayout('po_1', { action: 'approve' });
    await h.engine.admin.sandboxExecution('po_1', { outcome: 'processing' });
    // With a user-borne fee only the amount is held.
    expect((await h.balance(merchantA, 'USD'))?.held).toBe('100.00');
    const failed = payoutOf(
      await h.engine.admin.sandboxExecution('po_1', {
        outcome: 'failed',
        reason: 'recipient wallet closed',
      }),
    );
    expect(failed).toMatchObject({
      status: 'failed',
      execution_status: 'failed',
      execution_fail_reason: 'recipient wallet closed',
    });
    expect(await h.balance(merchantA, 'USD')).toEqual({
      currency: 'USD',
      available: '500.00',
      held: '0.00',
    });
    expect((await h.ledger(merchantA)).map(([type]) => type)).toEqual([
      'deposit',
      'payout_hold',
      'payout_hold',
      'payout_release',
      'payout_release',
    ]);
    const last = (await h.outboxOf('po_1')).at(-1);
    expect(last?.event_type).toBe('payout.execution.failed');
    expect((last?.payload.data as Record<string, unknown> | undefined)?.execution_fail_reason).toBe(
      'recipient wallet closed',
    );
    // A final payout accepts no further outcome.
    expect(
      errorOf(await h.engine.admin.sandboxExecution('po_1', { outcome: 'completed' })),
    ).toEqual(['invalid payout status', 400, 53]);
  });

  it('insufficient balance fails execution without holding anything', async () => {
    const h = await payoutHarness();
    await h.credit(merchantA, 'USD', '101.49');
    await h.engine.payouts.create(merchantA, walletaPayout());
    await h.engine.admin.reviewPayout('po_1', { action: 'approve' });
    const failed = payoutOf(
      await h.engine.admin.sandboxExecution('po_1', { outcome: 'processing' }),
    );
    expect(failed).toMatchObject({
      status: 'failed',
      execution_status: 'failed',
      execution_fail_reason: 'insufficient balance',
    });
    expect(await h.balance(merchantA, 'USD')).toEqual({
      currency: 'USD',
      available: '101.49',
      held: '0.00',
    });
    expect((await h.outboxOf('po_1')).map((m) => m.event_type)).toEqual([
      'payout.review.approved',
      'payout.execution.processing',
      'payout.execution.failed',
    ]);
  });

  it('exactly enough balance is enough; completed given to approved / init passes through processing', async () => {
    const h = await payoutHarness();
    await h.credit(merchantA, 'USD', '101.50');
    await h.engine.payouts.create(merchantA, walletaPayout());
    await h.engine.admin.reviewPayout('po_1', { action: 'approve' });
    const completed = payoutOf(
      await h.engine.admin.sandboxExecution('po_1', { outcome: 'completed' }),
    );
    expect(completed.status).toBe('completed');
    expect(await h.balance(merchantA, 'USD')).toEqual({
      currency: 'USD',
      available: '0.00',
      held: '0.00',
    });
    expect((await h.outboxOf('po_1')).map((m) => m.event_type)).toEqual([
      'payout.review.approved',
      'payout.execution.processing',
      'payout.execution.completed',
    ]);
  });

  it('operator return and reject send their events; a decided payout cannot be reviewed again', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    await h.engine.payouts.create(
      merchantA,
      walletaPayout({ client_request_id: 'req-2', reference: 'ref-2' }),
    );
    expect(
      payoutOf(await h.engine.admin.reviewPayout('po_1', { action: 'return', reason: 'check' })),
    ).toMatchObject({ status: 'returned', review_status: 'returned' });
    expect(payoutOf(await h.engine.admin.reviewPayout('po_2', { action: 'reject' }))).toMatchObject(
      { status: 'rejected', review_status: 'rejected', execution_status: 'init' },
    );
    expect((await h.outboxOf('po_1')).map((m) => m.event_type)).toEqual(['payout.review.returned']);
    expect((await h.outboxOf('po_2')).map((m) => m.event_type)).toEqual(['payout.review.rejected']);
    expect(errorOf(await h.engine.admin.reviewPayout('po_2', { action: 'approve' }))).toEqual([
      'payout rejected',
      400,
      53,
    ]);
    expect(errorOf(await h.engine.admin.reviewPayout('po_1', { action: 'approve' }))).toEqual([
      'invalid payout status',
      400,
      53,
    ]);
  });

  it('operator errors: unknown payout is 404, bad bodies are the codec messages, sandbox only', async () => {
    const h = await payoutHarness();
    expect(errorOf(await h.engine.admin.reviewPayout('po_404', { action: 'approve' }))).toEqual([
      'payout not found',
      404,
      65,
    ]);
    expect(errorOf(await h.engine.admin.reviewPayout('po_404', {}))).toEqual([
      'action required',
      400,
      51,
    ]);
    expect(errorOf(await h.engine.admin.sandboxExecution('po_404', { outcome: 'x' }))).toEqual([
      'Validation Failed',
      400,
      51,
    ]);
    const live = await payoutHarness({ environment: 'live' });
    expect(
      errorOf(await live.engine.admin.sandboxExecution('po_1', { outcome: 'completed' })),
    ).toEqual(['forbidden', 403, 61]);
  });

  it('merchant verification: payout.verify.request with masked fields, then the answer decides', async () => {
    const h = await payoutHarness({ verification_enabled: true });
    await h.engine.payouts.create(merchantA, walletaPayout());
    const [request] = await h.outboxOf('po_1');
    expect(request?.event_type).toBe('payout.verify.request');
    expect(request?.destination).toEqual({ kind: 'notify_url', url: notifyUrl });
    // No envelope: the bare verification payload of the interface.
    expect(request?.payload).toEqual({
      payout_id: 'po_1',
      type: 'payout.verification',
      account_id: 'acc_a',
      reference: 'ref-1',
      currency: 'USD',
      amount: '100.00',
      status: 'pending_review',
      review_status: 'pending_review',
      execution_status: 'init',
      beneficiary_id: 'ben_1',
      beneficiary_account_id: 'bacc_1',
      beneficiary_name: 'Alice Example',
      network_code: 'WALLETA',
      account_type: null,
      beneficiary_account: {
        network_code: 'WALLETA',
        display_name: null,
        fields_masked: { walleta_email: 'a***@example.com' },
      },
      submitted_at: startTime,
      created_at: startTime,
      verification_round: 1,
    });
    expect(JSON.stringify(request?.payload)).not.toContain('alice@example.com');

    // Undecided answers leave it; `true` approves.
    expect(payoutOf(await h.engine.answerVerification('po_1', null, 1)).status).toBe(
      'pending_review',
    );
    expect(payoutOf(await h.engine.answerVerification('po_1', true, 2)).status).toBe('approved');
    expect(errorOf(await h.engine.answerVerification('po_1', false, 3))).toEqual([
      'invalid payout status',
      400,
      53,
    ]);
  });

  it('auto approval approves at creation and requests execution at once', async () => {
    const h = await payoutHarness({ auto_approve: true });
    const created = payoutOf(await h.engine.payouts.create(merchantA, walletaPayout()));
    expect(created).toMatchObject({ status: 'approved', risk_status: 'passed' });
    expect((await h.oracle.timers()).map((t) => [t.timer_id, t.due_at])).toEqual([
      ['payout.execute:po_1', startTime],
    ]);
    expect((await h.outboxOf('po_1')).map((m) => m.event_type)).toEqual(['payout.review.approved']);
  });

  it('an executor receives the approved payout in full; its failure leaves the timer for retry', async () => {
    const calls: PayoutExecutionRequest[] = [];
    const execute = vi.fn(async (request: PayoutExecutionRequest) => {
      calls.push(request);
      if (calls.length === 1) throw new Error('provider unavailable');
    });
    const h = await payoutHarness({ auto_approve: true, payoutExecutor: { execute } });
    await h.engine.payouts.create(merchantA, walletaPayout({ fee_bearer: 'user' }));
    await expect(h.runTimers()).rejects.toThrow('provider unavailable');
    expect((await h.oracle.timers()).map((t) => t.timer_id)).toEqual(['payout.execute:po_1']);
    // Claimed: nothing fires again until the lease lapses.
    expect(await h.runTimers()).toBe(0);
    h.clock.advance(61);
    expect(await h.runTimers()).toBe(1);
    expect(await h.oracle.timers()).toEqual([]);
    expect(execute).toHaveBeenCalledTimes(2);
    expect(calls[1]).toEqual({
      payout_id: 'po_1',
      account_id: 'acc_a',
      reference: 'ref-1',
      currency: 'USD',
      amount: '100.00',
      send_amount: '98.50',
      fee: '1.50',
      fee_bearer: 'user',
      method_id: 1,
      channel_id: null,
      route_id: 'rt_1',
      channel_account_id: 'sandbox_usd',
      beneficiary_id: 'ben_1',
      beneficiary_account_id: 'bacc_1',
      beneficiary_name: 'Alice Example',
      beneficiary_account: {
        network_code: 'WALLETA',
        account_type: null,
        fields: { walleta_email: 'alice@example.com' },
      },
    });
  });

  it('draft -> submit -> cancel, and the operations refused in each state', async () => {
    const h = await payoutHarness();
    const draft = payoutOf(
      await h.engine.payouts.create(merchantA, walletaPayout({ submit: false })),
    );
    expect(draft).toMatchObject({
      status: 'draft',
      review_status: 'draft',
      risk_status: 'pending',
    });
    expect(payoutOf(await h.engine.payouts.submit(merchantA, 'po_1')).status).toBe(
      'pending_review',
    );
    expect(errorOf(await h.engine.payouts.submit(merchantA, 'po_1'))).toEqual([
      'invalid payout status',
      400,
      53,
    ]);
    const cancelled = payoutOf(await h.engine.payouts.cancel(merchantA, 'po_1'));
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      review_status: 'pending_review',
      execution_status: 'cancelled',
    });
    expect(errorOf(await h.engine.payouts.cancel(merchantA, 'po_1'))).toEqual([
      'invalid payout status',
      400,
      53,
    ]);
    // Cancel moves no money and sends nothing.
    expect(await h.outboxOf('po_1')).toEqual([]);

    await h.credit(merchantA, 'USD', '1000.00');
    await h.engine.payouts.create(
      merchantA,
      walletaPayout({ client_request_id: 'req-2', reference: 'ref-2' }),
    );
    await h.engine.admin.reviewPayout('po_2', { action: 'approve' });
    expect(errorOf(await h.engine.payouts.cancel(merchantA, 'po_2'))).toEqual([
      'payout already approved',
      400,
      53,
    ]);
    await h.engine.admin.sandboxExecution('po_2', { outcome: 'processing' });
    expect(errorOf(await h.engine.payouts.cancel(merchantA, 'po_2'))).toEqual([
      'payout already processing',
      400,
      53,
    ]);
    expect(
      errorOf(await h.engine.admin.sandboxExecution('po_2', { outcome: 'processing' })),
    ).toEqual(['payout already processing', 400, 53]);
  });

  it('lists payouts with the filters of docs/spec/decisions.md §2', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    h.clock.advance(100);
    await h.engine.payouts.create(
      merchantA,
      walletaPayout({ client_request_id: 'req-2', reference: 'ref-2', submit: false }),
    );
    const ids = async (query: Record<string, string>) =>
      dataOf(await h.engine.payouts.list(merchantA, query)).items.map((p) => p.payout_id);
    expect(await ids({})).toEqual(['po_2', 'po_1']);
    expect(await ids({ status: 'draft' })).toEqual(['po_2']);
    expect(await ids({ review_status: 'pending_review' })).toEqual(['po_1']);
    expect(await ids({ execution_status: 'init' })).toEqual(['po_2', 'po_1']);
    expect(await ids({ reference: 'ref-1' })).toEqual(['po_1']);
    expect(await ids({ client_request_id: 'req-2' })).toEqual(['po_2']);
    expect(await ids({ start_at: String(startTime + 1) })).toEqual(['po_2']);
    expect(await ids({ end_at: String(startTime) })).toEqual(['po_1']);
    expect(dataOf(await h.engine.payouts.list(merchantA, { limit: '1', offset: '1' }))).toEqual({
      items: [expect.objectContaining({ payout_id: 'po_1' })],
      total: 2,
      limit: 1,
      offset: 1,
    });
    expect(errorOf(await h.engine.payouts.list(merchantA, { status: 'done' }))).toEqual([
      'invalid status',
      400,
      51,
    ]);
  });
});
