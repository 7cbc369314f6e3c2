/**
 * The executor door (`engine.executions.report`) in a live engine: an executor receives the
 * approved payout from the timer and reports what its bank said, as often as the bank says it.
 */

import type { ExecutionReport, PayoutExecutionRequest } from '@payrail/core';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../engine.api.js';
import { createEngine } from '../engine.wiring.js';
import { bootstrapOperator } from '../operators/operators.use-cases.js';
import {
  errorOf,
  merchantA,
  type PayoutHarness,
  payoutHarness,
  payoutOf,
  walletaPayout,
} from './payouts.test-support.js';

interface LiveBed {
  readonly h: PayoutHarness;
  readonly engine: Engine;
  readonly received: PayoutExecutionRequest[];
}

/** A live engine with 1000.00 USD for merchant A, whose payout po_1 the executor has received. */
const handedToExecutor = async (): Promise<LiveBed> => {
  const received: PayoutExecutionRequest[] = [];
  const h = await payoutHarness({
    environment: 'live',
    payoutExecutor: {
      execute: async (request) => {
        received.push(request);
      },
    },
  });
  const engine = createEngine(h.deps);
  await h.credit(merchantA, 'USD', '1000.00');
  await engine.payouts.create(merchantA, walletaPayout());
  await engine.admin.reviewPayout(bootstrapOperator, 'po_1', { action: 'approve' });
  expect(await h.runTimers()).toBe(1);
  return { h, engine, received };
};

describe('engine.executions.report', () => {
  it('moves a live payout through processing to completed, and settles once', async () => {
    const { h, engine, received } = await handedToExecutor();
    expect(received.map((r) => [r.payout_id, r.amount, r.send_amount])).toEqual([
      ['po_1', '100.00', '100.00'],
    ]);
    // The sandbox's door stays shut in live; this one is the executor's.
    expect(
      errorOf(
        await engine.admin.sandboxExecution(bootstrapOperator, 'po_1', { outcome: 'completed' }),
      ),
    ).toEqual(['forbidden', 403, 61]);

    h.clock.advance(5);
    expect(
      payoutOf(await engine.executions.report('po_1', { status: 'processing' })),
    ).toMatchObject({ status: 'processing', execution_status: 'processing' });
    expect(await h.balance(merchantA, 'USD')).toEqual({
      currency: 'USD',
      available: '898.50',
      held: '101.50',
    });

    h.clock.advance(5);
    const completed = payoutOf(await engine.executions.report('po_1', { status: 'completed' }));
    expect(completed).toMatchObject({ status: 'completed', execution_status: 'completed' });
    const settled = {
      balance: await h.balance(merchantA, 'USD'),
      ledger: await h.ledger(merchantA),
      outbox: (await h.outboxOf('po_1')).map((m) => m.event_type),
    };
    expect(settled).toEqual({
      balance: { currency: 'USD', available: '898.50', held: '0.00' },
      ledger: [
        ['deposit', 'available', '1000.00', '1000.00', 'dep_test_1'],
        ['payout_hold', 'available', '-101.50', '898.50', 'po_1'],
        ['payout_hold', 'held', '101.50', '101.50', 'po_1'],
        ['payout', 'held', '-100.00', '1.50', 'po_1'],
        ['payout_fee', 'held', '-1.50', '0.00', 'po_1'],
      ],
      outbox: [
        'payout.review.approved',
        'payout.execution.processing',
        'payout.execution.completed',
      ],
    });

    // The bank's webhook again, and its late `processing`: the same answer, nothing moves.
    h.clock.advance(5);
    expect(payoutOf(await engine.executions.report('po_1', { status: 'completed' }))).toEqual(
      completed,
    );
    expect(payoutOf(await engine.executions.report('po_1', { status: 'processing' }))).toEqual(
      completed,
    );
    expect({
      balance: await h.balance(merchantA, 'USD'),
      ledger: await h.ledger(merchantA),
      outbox: (await h.outboxOf('po_1')).map((m) => m.event_type),
    }).toEqual(settled);
    expect(await h.oracle.timers()).toEqual([]);
  });

  it('answers a repeated processing with the payout, holding once', async () => {
    const { h, engine } = await handedToExecutor();
    const first = payoutOf(await engine.executions.report('po_1', { status: 'processing' }));
    expect(payoutOf(await engine.executions.report('po_1', { status: 'processing' }))).toEqual(
      first,
    );
    expect((await h.balance(merchantA, 'USD'))?.held).toBe('101.50');
    expect((await h.ledger(merchantA)).map(([type]) => type)).toEqual([
      'deposit',
      'payout_hold',
      'payout_hold',
    ]);
  });

  it('settles two deliveries of one completion sent at once, once', async () => {
    const { h, engine } = await handedToExecutor();
    const answers = await Promise.all([
      engine.executions.report('po_1', { status: 'completed' }),
      engine.executions.report('po_1', { status: 'completed' }),
    ]);
    expect(answers.map((a) => payoutOf(a).status)).toEqual(['completed', 'completed']);
    expect((await h.ledger(merchantA)).map(([type]) => type)).toEqual([
      'deposit',
      'payout_hold',
      'payout_hold',
      'payout',
      'payout_fee',
    ]);
  });

  it('releases the hold on failure; a repeat keeps the first reason, a contradiction is refused', async () => {
    const { h, engine } = await handedToExecutor();
    await engine.executions.report('po_1', { status: 'processing' });
    const failed = payoutOf(
      await engine.executions.report('po_1', { status: 'failed', reason: 'account closed' }),
    );
    expect(failed).toMatchObject({
      status: 'failed',
      execution_status: 'failed',
      execution_fail_reason: 'account closed',
    });
    expect(await h.balance(merchantA, 'USD')).toEqual({
      currency: 'USD',
      available: '1000.00',
      held: '0.00',
    });
    expect(
      payoutOf(await engine.executions.report('po_1', { status: 'failed', reason: 'again' })),
    ).toEqual(failed);
    expect(payoutOf(await engine.executions.report('po_1', { status: 'processing' }))).toEqual(
      failed,
    );
    expect(errorOf(await engine.executions.report('po_1', { status: 'completed' }))).toEqual([
      'invalid payout status',
      400,
      53,
    ]);
    expect((await h.ledger(merchantA)).map(([type]) => type)).toEqual([
      'deposit',
      'payout_hold',
      'payout_hold',
      'payout_release',
      'payout_release',
    ]);
  });

  it('refuses a failure after completion, and a report on a payout not yet approved', async () => {
    const { h, engine } = await handedToExecutor();
    await engine.executions.report('po_1', { status: 'completed' });
    expect(
      errorOf(await engine.executions.report('po_1', { status: 'failed', reason: 'bounced' })),
    ).toEqual(['invalid payout status', 400, 53]);
    expect((await h.balance(merchantA, 'USD'))?.available).toBe('898.50');

    await engine.payouts.create(
      merchantA,
      walletaPayout({ client_request_id: 'req-2', reference: 'ref-2' }),
    );
    expect(errorOf(await engine.executions.report('po_2', { status: 'completed' }))).toEqual([
      'invalid payout status',
      400,
      53,
    ]);
  });

  it('credits the amount sent back once when a completed payout returns, even frozen; the fee stays (ADR 0043)', async () => {
    const { h, engine } = await handedToExecutor();
    expect(
      errorOf(await engine.executions.report('po_1', { status: 'returned', reason: 'bounced' })),
    ).toEqual(['invalid payout status', 400, 53]);
    await engine.executions.report('po_1', { status: 'completed' });
    // Money in: a frozen account takes it, as it takes pay-ins.
    await h.setAccount(merchantA, { status: 'frozen' });
    h.clock.advance(60);
    const returned = payoutOf(
      await engine.executions.report('po_1', { status: 'returned', reason: 'bounced' }),
    );
    expect(returned).toMatchObject({
      status: 'completed',
      execution_status: 'completed',
      returned_at: h.clock.now(),
      return_reason: 'bounced',
    });
    const back = {
      balance: await h.balance(merchantA, 'USD'),
      ledger: (await h.ledger(merchantA)).slice(-1),
      outbox: (await h.outboxOf('po_1')).map((m) => m.event_type).slice(-1),
    };
    expect(back).toEqual({
      balance: { currency: 'USD', available: '998.50', held: '0.00' },
      ledger: [['payout_return', 'available', '100.00', '998.50', 'po_1']],
      outbox: ['payout.execution.returned'],
    });
    // The bank says it again, or says completed late: the payout as it is, nothing moves.
    const reports: readonly ExecutionReport[] = [
      { status: 'returned', reason: 'again' },
      { status: 'completed' },
    ];
    for (const report of reports) {
      expect(payoutOf(await engine.executions.report('po_1', report))).toEqual(returned);
    }
    expect({
      balance: await h.balance(merchantA, 'USD'),
      ledger: (await h.ledger(merchantA)).slice(-1),
      outbox: (await h.outboxOf('po_1')).map((m) => m.event_type).slice(-1),
    }).toEqual(back);
  });

  it("answers an unknown payout and a malformed report with the catalogue's errors", async () => {
    const { engine } = await handedToExecutor();
    const report = (payoutId: unknown, body: unknown) =>
      (
        engine.executions.report as (
          id: unknown,
          body: unknown,
        ) => ReturnType<Engine['executions']['report']>
      )(payoutId, body);
    expect(errorOf(await report('po_404', { status: 'completed' }))).toEqual([
      'payout not found',
      404,
      65,
    ]);
    expect(errorOf(await report(42, { status: 'completed' }))).toEqual([
      'payout not found',
      404,
      65,
    ]);
    expect(errorOf(await report('po_1', undefined))).toEqual(['request required', 400, 51]);
    expect(errorOf(await report('po_1', ['completed']))).toEqual(['request required', 400, 51]);
    expect(errorOf(await report('po_1', { status: null }))).toEqual(['status required', 400, 51]);
    expect(errorOf(await report('po_1', { outcome: 'completed' }))).toEqual([
      'status required',
      400,
      51,
    ]);
    expect(errorOf(await report('po_1', { status: 'done' }))).toEqual(['invalid status', 400, 51]);
    expect(errorOf(await report('po_1', { status: 'failed' }))).toEqual([
      'reason required',
      400,
      51,
    ]);
    expect(errorOf(await report('po_1', { status: 'failed', reason: '  ' }))).toEqual([
      'reason required',
      400,
      51,
    ]);
    expect(errorOf(await report('po_1', { status: 'failed', reason: 'x'.repeat(257) }))).toEqual([
      'Validation Failed',
      400,
      51,
    ]);
    expect(errorOf(await report('po_1', { status: 'failed', reason: 7 }))).toEqual([
      'Validation Failed',
      400,
      51,
    ]);
    // A reason beside another status is ignored, as are other keys.
    expect(
      payoutOf(await report('po_1', { status: 'processing', reason: 'n/a', bank_ref: 'B-1' }))
        .status,
    ).toBe('processing');
  });
});
