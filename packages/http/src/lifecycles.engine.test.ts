/**
 * The payout and order lifecycles end to end through HTTP on the real engine, branch by branch:
 * what the merchant sees in each answer, what the balances and the ledger say after each money
 * movement, and, where it matters, the outbox rows the store holds (the events the webhook
 * dispatcher will deliver). Each test has a merchant of its own, so its balances and ledger are
 * its own; the test clock is moved through the admin API between movements, so ledger times
 * differ. On every store of the http package's list.
 */
import type { OutboxMessage } from '@payrail/core';
import { permissions } from '@payrail/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  type EngineApp,
  engineApp,
  operatorToken,
  quickPayout,
  refusalOf,
} from './engine-app.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

const refusal = (status: number, code: number, message: string) => ({
  status,
  code,
  message,
  data: null,
});

describe.each(storesUnderTest)('lifecycles end to end (real engine, $name)', (under) => {
  let h: EngineApp;
  let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;
  let merchants = 0;

  beforeAll(async () => {
    store = await under.open();
    h = engineApp({ store });
    await h.seedCatalogue();
  });

  afterAll(async () => {
    await store.close?.();
  });

  /** A merchant of the test's own, funded through the sandbox credit, and its key's calls. */
  const fundedMerchant = async (usd = '1000.00') => {
    merchants += 1;
    const m = await h.merchant(`Merchant ${merchants}`);
    if (usd !== '0.00') {
      await h.admin('POST', `/admin/accounts/${m.accountId}/credit`, {
        currency: 'USD',
        amount: usd,
      });
    }
    return { ...m, as: h.as(m.token) };
  };

  /** `data` of a success, failing the test with the message of a refusal. */
  const ok = (answer: Answer) => {
    expect(answer.body.message).toBe('success');
    expect(answer.status).toBe(200);
    return answer.body.data;
  };

  /** Moves the test clock (due timers run) and answers the new time. */
  const advance = async (seconds: number): Promise<number> =>
    (await h.admin('POST', '/admin/sandbox/clock/advance', { seconds })).clock.now;

  /** The outbox rows of one business object, in the order they were written. */
  const outboxOf = (businessId: string): Promise<OutboxMessage[]> =>
    h.store.transaction(async (tx) => {
      const rows: OutboxMessage[] = [];
      // Counting ids: obx_1, obx_2, ...; a rolled-back unit of work may leave a gap.
      for (let n = 1, misses = 0; misses < 30; n += 1) {
        const row = await tx.outbox.get(`obx_${n}`);
        if (row === undefined) misses += 1;
        else {
          misses = 0;
          if (row.business_id === businessId) rows.push(row);
        }
      }
      return rows;
    });

  const balance = (currency: string, available: string, held: string, total: string) => ({
    currency,
    available,
    held,
    total,
  });

  describe('payouts', () => {
    const payoutData = (
      payout: { payout_id: string; beneficiary_id: string; beneficiary_account_id: string },
      reference: string,
      amount: string,
      pair: [status: string, review: string, execution: string],
      extra: Record<string, string> = {},
    ) => ({
      payout_id: payout.payout_id,
      client_request_id: `cr-${reference}`,
      reference,
      currency: 'USD',
      amount,
      status: pair[0],
      review_status: pair[1],
      execution_status: pair[2],
      beneficiary_id: payout.beneficiary_id,
      beneficiary_account_id: payout.beneficiary_account_id,
      ...extra,
    });

    it('operator reject: rejected / init, payout.review.rejected in the outbox, no money moved', async () => {
      const m = await fundedMerchant();
      const created = ok(await m.as.post('/payment/quickpayout', quickPayout('REJ1'))).payout;
      expect(created).toEqual(
        payoutData(created, 'REJ1', '25.00', ['pending_review', 'pending_review', 'init'], {
          risk_status: 'pending',
        }),
      );
      expect(await outboxOf(created.payout_id)).toEqual([]);

      const reviewedAt = await advance(0);
      const rejected = await h.admin('POST', `/admin/payouts/${created.payout_id}/review`, {
        action: 'reject',
        reason: 'recipient on a watch list',
      });
      const expected = payoutData(created, 'REJ1', '25.00', ['rejected', 'rejected', 'init']);
      expect(rejected).toEqual({ payout: expected });
      expect(ok(await m.as.get(`/payment/payouts/${created.payout_id}`))).toEqual({
        payout: expected,
      });

      const outbox = await outboxOf(created.payout_id);
      expect(outbox.map((row) => row.event_type)).toEqual(['payout.review.rejected']);
      expect(outbox[0]).toMatchObject({
        account_id: m.accountId,
        business_type: 'payout',
        destination: { kind: 'notify_url', url: 'https://merchant.example/payouts/notify' },
        status: 'pending',
        payload: {
          event_id: outbox[0]?.event_id,
          event_type: 'payout.review.rejected',
          business_type: 'payout',
          business_id: created.payout_id,
          occurred_at: reviewedAt,
          version: 'v1',
          data: {
            payout_id: created.payout_id,
            reference: 'REJ1',
            currency: 'USD',
            amount: '25.00',
            status: 'rejected',
            review_status: 'rejected',
            execution_status: 'init',
          },
        },
      });

      // Nothing was held or debited, and the rejected payout can no longer move.
      expect(ok(await m.as.get('/payment/balances?currency=USD'))).toEqual({
        items: [balance('USD', '1000.00', '0.00', '1000.00')],
      });
      expect(
        ok(await m.as.get('/payment/ledger')).items.map(
          (r: { record_type: string }) => r.record_type,
        ),
      ).toEqual(['deposit']);
      for (const path of ['cancel', 'submit']) {
        expect(refusalOf(await m.as.post(`/payment/payouts/${created.payout_id}/${path}`))).toEqual(
          refusal(400, 53, 'payout rejected'),
        );
      }
      expect(
        refusalOf(
          await h.call(
            'POST',
            `/admin/payouts/${created.payout_id}/review`,
            { Authorization: 'Bearer operator-token-for-tests' },
            { action: 'approve' },
          ),
        ),
      ).toEqual(refusal(400, 53, 'payout rejected'));
    });

    it('operator return, then PATCH, resubmit and approve; completion debits amount and fee', async () => {
      const m = await fundedMerchant();
      const created = ok(await m.as.post('/payment/quickpayout', quickPayout('RET1'))).payout;
      const returned = await h.admin('POST', `/admin/payouts/${created.payout_id}/review`, {
        action: 'return',
        reason: 'check the recipient name',
      });
      expect(returned).toEqual({
        payout: payoutData(created, 'RET1', '25.00', ['returned', 'returned', 'init']),
      });

      const patched = ok(
        await m.as.patch(`/payment/payouts/${created.payout_id}`, { amount: '40.00' }),
      );
      expect(patched).toEqual({
        payout: payoutData(created, 'RET1', '40.00', ['returned', 'returned', 'init']),
      });
      expect(
        refusalOf(await m.as.patch(`/payment/payouts/${created.payout_id}`, { amount: '40.00' })),
      ).toEqual(refusal(400, 53, 'no changes'));

      const resubmitted = ok(await m.as.post(`/payment/payouts/${created.payout_id}/submit`));
      expect(resubmitted).toEqual({
        payout: payoutData(created, 'RET1', '40.00', ['pending_review', 'pending_review', 'init']),
      });
      expect(
        refusalOf(await m.as.patch(`/payment/payouts/${created.payout_id}`, { amount: '41.00' })),
      ).toEqual(refusal(400, 53, 'payout not editable'));

      const approved = await h.admin('POST', `/admin/payouts/${created.payout_id}/review`, {
        action: 'approve',
      });
      expect(approved).toEqual({
        payout: payoutData(created, 'RET1', '40.00', ['approved', 'approved', 'init']),
      });
      // Approval holds nothing yet: the hold comes with execution.
      expect(ok(await m.as.get('/payment/balances?currency=USD'))).toEqual({
        items: [balance('USD', '1000.00', '0.00', '1000.00')],
      });

      await advance(60);
      const processing = await h.admin(
        'POST',
        `/admin/sandbox/payouts/${created.payout_id}/execution`,
        { outcome: 'processing' },
      );
      expect(processing.payout.status).toBe('processing');
      // 40.00 + 0.50 + 1 % of 40.00 = 40.90 held.
      expect(ok(await m.as.get('/payment/balances?currency=USD'))).toEqual({
        items: [balance('USD', '959.10', '40.90', '1000.00')],
      });

      const completedAt = await advance(60);
      const completed = await h.admin(
        'POST',
        `/admin/sandbox/payouts/${created.payout_id}/execution`,
        { outcome: 'completed' },
      );
      expect(completed).toEqual({
        payout: payoutData(created, 'RET1', '40.00', ['completed', 'approved', 'completed']),
      });
      expect(ok(await m.as.get('/payment/balances?currency=USD'))).toEqual({
        items: [balance('USD', '959.10', '0.00', '959.10')],
      });
      const ledger = ok(await m.as.get('/payment/ledger?sort_order=desc'));
      expect(ledger.total).toBe(5);
      // Descending: newest first; records of one second in the reverse of the order they were
      // posted (the fee was posted after the payout). The settlement takes the hold out of held.
      expect(ledger.items.slice(0, 2)).toEqual(
        [
          ['payout_fee', '-0.90', '0.00'],
          ['payout', '-40.00', '0.90'],
        ].map(([recordType, amount, balanceAfter]) => ({
          transaction_id: `${created.payout_id}:${recordType}`,
          record_type: recordType,
          currency: 'USD',
          bucket: 'held',
          amount,
          balance_after: balanceAfter,
          business_type: 'payout',
          business_id: created.payout_id,
          reference: 'RET1',
          created_at: completedAt,
        })),
      );
      // The hold: one record per bucket, one transaction_id.
      expect(ledger.items.slice(2, 4)).toMatchObject([
        { record_type: 'payout_hold', bucket: 'held', amount: '40.90', balance_after: '40.90' },
        {
          record_type: 'payout_hold',
          bucket: 'available',
          amount: '-40.90',
          balance_after: '959.10',
          created_at: completedAt - 60,
        },
      ]);

      expect((await outboxOf(created.payout_id)).map((row) => row.event_type)).toEqual([
        'payout.review.returned',
        'payout.review.approved',
        'payout.execution.processing',
        'payout.execution.completed',
      ]);
    });

    it('a completed payout comes back: still completed, the amount sent credited once, the fee kept (ADR 0043)', async () => {
      const m = await fundedMerchant();
      const created = ok(await m.as.post('/payment/quickpayout', quickPayout('BACK1'))).payout;
      await h.admin('POST', `/admin/payouts/${created.payout_id}/review`, { action: 'approve' });
      const execution = (body: Record<string, string>) =>
        h.call(
          'POST',
          `/admin/sandbox/payouts/${created.payout_id}/execution`,
          { Authorization: `Bearer ${operatorToken}` },
          body,
        );
      // Not completed yet: nothing to come back.
      expect(refusalOf(await execution({ outcome: 'returned' }))).toEqual(
        refusal(400, 53, 'invalid payout status'),
      );
      await advance(60);
      await h.admin('POST', `/admin/sandbox/payouts/${created.payout_id}/execution`, {
        outcome: 'completed',
      });
      expect(ok(await m.as.get('/payment/balances?currency=USD'))).toEqual({
        items: [balance('USD', '974.25', '0.00', '974.25')],
      });

      const returnedAt = await advance(3600);
      const returned = await h.admin(
        'POST',
        `/admin/sandbox/payouts/${created.payout_id}/execution`,
        { outcome: 'returned', reason: 'recipient bank bounced it' },
      );
      const expected = payoutData(created, 'BACK1', '25.00', [
        'completed',
        'approved',
        'completed',
      ]);
      expect(returned).toEqual({
        payout: {
          ...expected,
          returned_at: returnedAt,
          return_reason: 'recipient bank bounced it',
        },
      });
      expect(ok(await m.as.get(`/payment/payouts/${created.payout_id}`))).toEqual(returned);
      expect(ok(await m.as.get('/payment/balances?currency=USD'))).toEqual({
        items: [balance('USD', '999.25', '0.00', '999.25')],
      });
      expect(ok(await m.as.get('/payment/ledger?record_type=payout_return')).items).toMatchObject([
        {
          transaction_id: `${created.payout_id}:payout_return`,
          record_type: 'payout_return',
          bucket: 'available',
          amount: '25.00',
          balance_after: '999.25',
          business_id: created.payout_id,
          created_at: returnedAt,
        },
      ]);
      const events = await outboxOf(created.payout_id);
      expect(events.map((row) => row.event_type).slice(-2)).toEqual([
        'payout.execution.completed',
        'payout.execution.returned',
      ]);
      expect(events.at(-1)?.payload).toMatchObject({
        data: {
          payout_id: created.payout_id,
          status: 'completed',
          execution_status: 'completed',
          returned_at: returnedAt,
          return_reason: 'recipient bank bounced it',
        },
      });

      // At most once: the sandbox act answers the second return as a conflict; nothing moves.
      expect(refusalOf(await execution({ outcome: 'returned', reason: 'again' }))).toEqual(
        refusal(400, 53, 'invalid payout status'),
      );
      expect(ok(await m.as.get('/payment/balances?currency=USD'))).toEqual({
        items: [balance('USD', '999.25', '0.00', '999.25')],
      });
    });

    it('execution failed after processing: the hold is released, execution_fail_reason is set', async () => {
      const m = await fundedMerchant();
      const created = ok(await m.as.post('/payment/quickpayout', quickPayout('FAIL1'))).payout;
      await h.admin('POST', `/admin/payouts/${created.payout_id}/review`, { action: 'approve' });
      const heldAt = await advance(60);
      await h.admin('POST', `/admin/sandbox/payouts/${created.payout_id}/execution`, {
        outcome: 'processing',
      });
      expect(ok(await m.as.get('/payment/balances'))).toEqual({
        items: [
          balance('USD', '974.25', '25.75', '1000.00'),
          balance('USDC', '0.000000', '0.000000', '0.000000'),
          balance('USDT', '0.000000', '0.000000', '0.000000'),
        ],
      });

      const releasedAt = await advance(60);
      const failed = await h.admin(
        'POST',
        `/admin/sandbox/payouts/${created.payout_id}/execution`,
        { outcome: 'failed', reason: 'recipient wallet closed' },
      );
      const expected = payoutData(created, 'FAIL1', '25.00', ['failed', 'approved', 'failed'], {
        execution_fail_reason: 'recipient wallet closed',
      });
      expect(failed).toEqual({ payout: expected });
      expect(ok(await m.as.get(`/payment/payouts/${created.payout_id}`))).toEqual({
        payout: expected,
      });
      expect(ok(await m.as.get('/payment/balances?currency=USD'))).toEqual({
        items: [balance('USD', '1000.00', '0.00', '1000.00')],
      });
      const movements = ok(
        await m.as.get('/payment/ledger?sort_order=asc&record_type=payout_hold'),
      ).items;
      const released = ok(
        await m.as.get('/payment/ledger?sort_order=asc&record_type=payout_release'),
      ).items;
      // The hold moves 25.75 from available to held; the release moves it back.
      expect([...movements, ...released]).toEqual(
        (
          [
            ['payout_hold', 'available', '-25.75', '974.25', heldAt],
            ['payout_hold', 'held', '25.75', '25.75', heldAt],
            ['payout_release', 'held', '-25.75', '0.00', releasedAt],
            ['payout_release', 'available', '25.75', '1000.00', releasedAt],
          ] as const
        ).map(([recordType, bucket, amount, balanceAfter, at]) => ({
          transaction_id: `${created.payout_id}:${recordType}`,
          record_type: recordType,
          currency: 'USD',
          bucket,
          amount,
          balance_after: balanceAfter,
          business_type: 'payout',
          business_id: created.payout_id,
          reference: 'FAIL1',
          created_at: at,
        })),
      );

      const outbox = await outboxOf(created.payout_id);
      expect(outbox.map((row) => row.event_type)).toEqual([
        'payout.review.approved',
        'payout.execution.processing',
        'payout.execution.failed',
      ]);
      expect(outbox[2]?.payload).toMatchObject({
        data: { status: 'failed', execution_fail_reason: 'recipient wallet closed' },
      });
      // A final payout: no cancel, no second outcome.
      expect(refusalOf(await m.as.post(`/payment/payouts/${created.payout_id}/cancel`))).toEqual(
        refusal(400, 53, 'invalid payout status'),
      );
    });

    it('too little available balance fails execution with insufficient balance, moving nothing', async () => {
      const m = await fundedMerchant('10.00');
      const created = ok(await m.as.post('/payment/quickpayout', quickPayout('POOR1'))).payout;
      await h.admin('POST', `/admin/payouts/${created.payout_id}/review`, { action: 'approve' });
      const failed = await h.admin(
        'POST',
        `/admin/sandbox/payouts/${created.payout_id}/execution`,
        { outcome: 'processing' },
      );
      expect(failed).toEqual({
        payout: payoutData(created, 'POOR1', '25.00', ['failed', 'approved', 'failed'], {
          execution_fail_reason: 'insufficient balance',
        }),
      });
      expect(ok(await m.as.get('/payment/balances?currency=USD'))).toEqual({
        items: [balance('USD', '10.00', '0.00', '10.00')],
      });
      expect(ok(await m.as.get('/payment/ledger'))).toMatchObject({
        items: [{ record_type: 'deposit', amount: '10.00', balance_after: '10.00' }],
        total: 1,
      });
      // Execution started (processing) and failed on the balance check in the same step.
      expect((await outboxOf(created.payout_id)).map((row) => row.event_type)).toEqual([
        'payout.review.approved',
        'payout.execution.processing',
        'payout.execution.failed',
      ]);

      // `completed` given to an approved / init payout passes through processing: same check.
      const second = ok(await m.as.post('/payment/quickpayout', quickPayout('POOR2'))).payout;
      await h.admin('POST', `/admin/payouts/${second.payout_id}/review`, { action: 'approve' });
      expect(
        (
          await h.admin('POST', `/admin/sandbox/payouts/${second.payout_id}/execution`, {
            outcome: 'completed',
          })
        ).payout,
      ).toMatchObject({ status: 'failed', execution_fail_reason: 'insufficient balance' });
      expect(ok(await m.as.get('/payment/balances?currency=USD')).items).toEqual([
        balance('USD', '10.00', '0.00', '10.00'),
      ]);
    });

    it('cancels from draft, pending_review and returned; refuses every other state', async () => {
      const m = await fundedMerchant();
      const cancel = (payoutId: string) => m.as.post(`/payment/payouts/${payoutId}/cancel`);
      const create = async (reference: string, submit = true) =>
        ok(await m.as.post('/payment/quickpayout', { ...quickPayout(reference), submit })).payout;

      const draft = await create('CAN1', false);
      expect(ok(await cancel(draft.payout_id))).toEqual({
        payout: payoutData(draft, 'CAN1', '25.00', ['cancelled', 'draft', 'cancelled']),
      });
      const pending = await create('CAN2');
      expect(ok(await cancel(pending.payout_id))).toEqual({
        payout: payoutData(pending, 'CAN2', '25.00', ['cancelled', 'pending_review', 'cancelled']),
      });
      const returned = await create('CAN3');
      await h.admin('POST', `/admin/payouts/${returned.payout_id}/review`, { action: 'return' });
      expect(ok(await cancel(returned.payout_id)).payout).toMatchObject({
        status: 'cancelled',
        review_status: 'returned',
        execution_status: 'cancelled',
      });
      // Cancelled is final; a cancelled payout is neither submitted nor edited again.
      expect(refusalOf(await cancel(draft.payout_id))).toEqual(
        refusal(400, 53, 'invalid payout status'),
      );
      expect(refusalOf(await m.as.post(`/payment/payouts/${draft.payout_id}/submit`))).toEqual(
        refusal(400, 53, 'invalid payout status'),
      );
      expect(
        refusalOf(await m.as.patch(`/payment/payouts/${draft.payout_id}`, { amount: '30.00' })),
      ).toEqual(refusal(400, 53, 'payout not editable'));

      const approved = await create('CAN4');
      await h.admin('POST', `/admin/payouts/${approved.payout_id}/review`, { action: 'approve' });
      expect(refusalOf(await cancel(approved.payout_id))).toEqual(
        refusal(400, 53, 'payout already approved'),
      );
      await h.admin('POST', `/admin/sandbox/payouts/${approved.payout_id}/execution`, {
        outcome: 'processing',
      });
      expect(refusalOf(await cancel(approved.payout_id))).toEqual(
        refusal(400, 53, 'payout already processing'),
      );
      await h.admin('POST', `/admin/sandbox/payouts/${approved.payout_id}/execution`, {
        outcome: 'completed',
      });
      expect(refusalOf(await cancel(approved.payout_id))).toEqual(
        refusal(400, 53, 'invalid payout status'),
      );
      const rejected = await create('CAN5');
      await h.admin('POST', `/admin/payouts/${rejected.payout_id}/review`, { action: 'reject' });
      expect(refusalOf(await cancel(rejected.payout_id))).toEqual(
        refusal(400, 53, 'payout rejected'),
      );
      expect(refusalOf(await cancel('po_unknown'))).toEqual(refusal(404, 65, 'payout not found'));

      // Only the completed payout moved money: 1000.00 - 25.75.
      expect(ok(await m.as.get('/payment/balances?currency=USD')).items).toEqual([
        balance('USD', '974.25', '0.00', '974.25'),
      ]);
      // A cancellation emits no event: nothing was sent to review or execution.
      expect(await outboxOf(draft.payout_id)).toEqual([]);
      expect(await outboxOf(pending.payout_id)).toEqual([]);
    });

    it('with verification enabled the payout waits, and payout.verify.request carries masked account fields', async () => {
      const m = await fundedMerchant();
      const { account } = await h.admin('PATCH', `/admin/accounts/${m.accountId}`, {
        verification_enabled: true,
      });
      expect(account).toMatchObject({ account_id: m.accountId, verification_enabled: true });
      const created = ok(await m.as.post('/payment/quickpayout', quickPayout('VER1'))).payout;
      expect(created).toEqual(
        payoutData(created, 'VER1', '25.00', ['pending_review', 'pending_review', 'init'], {
          risk_status: 'pending',
        }),
      );
      const outbox = await outboxOf(created.payout_id);
      expect(outbox).toHaveLength(1);
      expect(outbox[0]).toMatchObject({
        event_type: 'payout.verify.request',
        account_id: m.accountId,
        destination: { kind: 'notify_url', url: 'https://merchant.example/payouts/notify' },
        status: 'pending',
      });
      // The verification request has no envelope (interface, Events).
      expect(outbox[0]?.payload).toEqual({
        payout_id: created.payout_id,
        type: 'payout.verification',
        account_id: m.accountId,
        reference: 'VER1',
        currency: 'USD',
        amount: '25.00',
        status: 'pending_review',
        review_status: 'pending_review',
        execution_status: 'init',
        beneficiary_id: created.beneficiary_id,
        beneficiary_account_id: created.beneficiary_account_id,
        beneficiary_name: 'Jane Doe',
        network_code: 'WALLETA',
        account_type: null,
        beneficiary_account: {
          network_code: 'WALLETA',
          display_name: null,
          fields_masked: { walleta_email: 'j***@example.com' },
        },
        submitted_at: expect.any(Number),
        created_at: expect.any(Number),
        // Beyond the interface (ADR 0038): the review round an answer is bound to.
        verification_round: 1,
      });
      expect(JSON.stringify(outbox[0]?.payload)).not.toContain('jane@example.com');
      // Nothing approves it until the merchant answers: it stays in review, no money held.
      await advance(60);
      expect(ok(await m.as.get(`/payment/payouts/${created.payout_id}`)).payout).toMatchObject({
        status: 'pending_review',
        review_status: 'pending_review',
        execution_status: 'init',
      });
      expect(ok(await m.as.get('/payment/balances?currency=USD')).items).toEqual([
        balance('USD', '1000.00', '0.00', '1000.00'),
      ]);
    });

    it('issue 19, M2: a yes about 10.00 in one review round approves nothing after a return, an edit to 900.00 and a resubmission', async () => {
      const m = await fundedMerchant();
      await h.admin('PATCH', `/admin/accounts/${m.accountId}`, { verification_enabled: true });
      const created = ok(
        await m.as.post('/payment/quickpayout', { ...quickPayout('VER2'), amount: '10.00' }),
      ).payout;
      const id = created.payout_id as string;
      // The operator returns it while the first request is still being retried; the merchant
      // edits and resubmits: a new review round with its own request.
      await h.admin('POST', `/admin/payouts/${id}/review`, { action: 'return', reason: 'amount' });
      ok(await m.as.patch(`/payment/payouts/${id}`, { amount: '900.00' }));
      ok(await m.as.post(`/payment/payouts/${id}/submit`));
      const requests = (await outboxOf(id)).filter((o) => o.event_type === 'payout.verify.request');
      expect(requests.map((o) => [o.payload.amount, o.payload.verification_round])).toEqual([
        ['10.00', 1],
        ['900.00', 2],
      ]);
      // The first request's round is over: it is not sent again.
      expect(await h.engine.callbacks.verificationRequestOpen(id, m.accountId, 1)).toBe(false);
      expect(await h.engine.callbacks.verificationRequestOpen(id, m.accountId, 2)).toBe(true);

      // The verifier's yes about the 10.00 request, on its next retry, approves nothing.
      const stale = await h.engine.callbacks.verificationAnswered(id, true, 2, 1);
      expect(stale).toMatchObject({ _tag: 'Left', left: { message: 'invalid payout status' } });
      expect(ok(await m.as.get(`/payment/payouts/${id}`)).payout).toMatchObject({
        amount: '900.00',
        review_status: 'pending_review',
        execution_status: 'init',
      });
      // Only an answer about the 900.00 request decides.
      const current = await h.engine.callbacks.verificationAnswered(id, false, 1, 2);
      expect(current).toMatchObject({ _tag: 'Right' });
      expect(ok(await m.as.get(`/payment/payouts/${id}`)).payout.review_status).toBe('rejected');
    });

    it('needs payment.payout.submit on create only when submit is not false', async () => {
      const m = await fundedMerchant();
      const key = await h.issueKey(m.accountId, {
        permissions: permissions.filter((p) => p !== 'payment.payout.submit'),
      });
      const as = h.as(key.token);
      expect(refusalOf(await as.post('/payment/quickpayout', quickPayout('PERM1')))).toEqual(
        refusal(403, 61, 'forbidden'),
      );
      expect(
        ok(await as.post('/payment/quickpayout', { ...quickPayout('PERM2'), submit: false })).payout
          .status,
      ).toBe('draft');
    });
  });

  describe('orders', () => {
    const createOrder = async (
      m: Awaited<ReturnType<typeof fundedMerchant>>,
      outTradeNo: string,
      extra: Record<string, unknown> = {},
    ) => {
      const { webhook } = ok(
        await m.as.post('/payment/webhooks', {
          url: 'https://merchant.example/hooks/acquiring',
          events: ['acquiring.*'],
        }),
      );
      const answer = ok(
        await m.as.post('/payment/acquiring/orders', {
          out_trade_no: outTradeNo,
          order_currency: 'USD',
          order_amount: '10.00',
          expire_seconds: 600,
          underpay_tolerance: '0',
          notify_webhook_id: webhook.webhook_id,
          allowed_pay_currencies: ['TRON_USDT'],
          ...extra,
        }),
      );
      return { order: answer.order, webhookId: webhook.webhook_id as string };
    };

    const pay = (orderId: string, amount: string, txHash: string) =>
      h.admin('POST', `/admin/sandbox/acquiring/orders/${orderId}/payments`, {
        token_id: 'TRON_USDT',
        amount,
        status: 'confirmed',
        tx_hash: txHash,
      });

    /** The acquiring.order.updated rows of an order: [previous, status, anomaly_tag]. */
    const orderEvents = async (orderId: string) =>
      (await outboxOf(orderId))
        .filter((row) => row.event_type === 'acquiring.order.updated')
        .map((row) => {
          const data = row.payload.data as Record<string, unknown>;
          return [data.previous_status, data.status, data.anomaly_tag];
        });

    const amounts = (paid: string, remaining: string, overpaid: string) => ({
      paid_amount_total: paid,
      remaining_amount: remaining,
      overpaid_amount: overpaid,
    });

    it('partial payment, then the rest: partial_paid then completed, each credited as pay_in', async () => {
      const m = await fundedMerchant('0.00');
      const { order, webhookId } = await createOrder(m, 'PART1');
      expect(order).toEqual({
        order_id: order.order_id,
        platform_order_no: order.platform_order_no,
        out_trade_no: 'PART1',
        status: 'pending',
        checkout_type: 'hosted',
        order_currency: 'USD',
        order_amount: '10.00',
        allowed_pay_currencies: ['TRON_USDT'],
        pay_amount: '10.000000',
        ...amounts('0.000000', '10.000000', '0.000000'),
        underpay_tolerance: '0.000000',
        checkout_url: `https://pay.example/checkout/${order.order_id}`,
        notify_webhook_id: webhookId,
        redirect_automatically: false,
        refunded_amount: '0.000000',
        resolution: null,
        expire_time: order.created_at + 600,
        created_at: order.created_at,
        updated_at: order.created_at,
      });

      const firstAt = await advance(30);
      const first = (await pay(order.order_id, '4.000000', '0xaa01')).payment;
      expect(first).toMatchObject({
        order_id: order.order_id,
        token_id: 'TRON_USDT',
        amount: '4.000000',
        status: 'completed',
        tx_hash: '0xaa01',
      });
      expect(ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}`)).order).toMatchObject(
        { status: 'partial_paid', ...amounts('4.000000', '6.000000', '0.000000') },
      );
      expect(ok(await m.as.get('/payment/balances?currency=USDT')).items).toEqual([
        balance('USDT', '4.000000', '0.000000', '4.000000'),
      ]);

      const secondAt = await advance(30);
      const second = (await pay(order.order_id, '6.000000', '0xaa02')).payment;
      expect(ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}`)).order).toMatchObject(
        { status: 'completed', ...amounts('10.000000', '0.000000', '0.000000') },
      );
      expect(ok(await m.as.get('/payment/balances?currency=USDT')).items).toEqual([
        balance('USDT', '10.000000', '0.000000', '10.000000'),
      ]);
      expect(ok(await m.as.get('/payment/ledger?currency=USDT&sort_order=asc'))).toEqual({
        items: [
          [first.payment_id, '4.000000', '4.000000', firstAt],
          [second.payment_id, '6.000000', '10.000000', secondAt],
        ].map(([paymentId, amount, balanceAfter, at]) => ({
          transaction_id: `${paymentId}:pay_in`,
          record_type: 'pay_in',
          currency: 'USDT',
          bucket: 'available',
          amount,
          balance_after: balanceAfter,
          business_type: 'acquiring',
          business_id: paymentId,
          reference: null,
          created_at: at,
        })),
        total: 2,
        limit: 20,
        offset: 0,
      });
      expect(
        ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}/payments`)).items.map(
          (p: { payment_id: string; status: string }) => [p.payment_id, p.status],
        ),
      ).toEqual([
        [first.payment_id, 'completed'],
        [second.payment_id, 'completed'],
      ]);
      expect(await orderEvents(order.order_id)).toEqual([
        ['pending', 'partial_paid', ''],
        ['partial_paid', 'completed', ''],
      ]);
      expect(
        refusalOf(
          await m.as.post(`/payment/acquiring/orders/${order.order_id}/close`, { reason: 'x' }),
        ),
      ).toEqual(refusal(400, 53, 'completed order cannot be closed'));
    });

    it('expires unpaid (expired); a later payment is late and tags the order expired_paid', async () => {
      const m = await fundedMerchant('0.00');
      const { order } = await createOrder(m, 'EXP1', { expire_seconds: 60 });
      const expiredAt = await advance(61);
      expect(ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}`)).order).toMatchObject(
        {
          status: 'expired',
          ...amounts('0.000000', '10.000000', '0.000000'),
          updated_at: expiredAt,
        },
      );
      expect(
        ok(await m.as.get('/payment/acquiring/orders?status=expired&out_trade_no=EXP1')).total,
      ).toBe(1);
      expect(
        refusalOf(
          await m.as.post(`/payment/acquiring/orders/${order.order_id}/close`, { reason: 'x' }),
        ),
      ).toEqual(refusal(400, 53, 'order already final'));

      const late = (await pay(order.order_id, '10.000000', '0xbb01')).payment;
      expect(late.status).toBe('late');
      expect(ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}`)).order).toMatchObject(
        { status: 'expired', ...amounts('0.000000', '10.000000', '0.000000') },
      );
      expect(await orderEvents(order.order_id)).toEqual([
        ['pending', 'expired', ''],
        ['expired', 'expired', 'expired_paid'],
      ]);
      const tagged = (await outboxOf(order.order_id)).at(-1)?.payload;
      expect(tagged).toMatchObject({
        event_type: 'acquiring.order.updated',
        data: { status_changed: false, anomaly_tag: 'expired_paid', order_id: order.order_id },
      });
    });

    it('expires after a partial payment (underpaid); a late payment after that is expired_paid', async () => {
      const m = await fundedMerchant('0.00');
      const { order } = await createOrder(m, 'UND1', {
        expire_seconds: 120,
        underpay_tolerance: '0.50',
      });
      await pay(order.order_id, '9.000000', '0xcc01');
      expect(ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}`)).order).toMatchObject(
        { status: 'partial_paid', ...amounts('9.000000', '1.000000', '0.000000') },
      );
      await advance(121);
      expect(ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}`)).order).toMatchObject(
        { status: 'underpaid', ...amounts('9.000000', '1.000000', '0.000000') },
      );
      const late = (await pay(order.order_id, '1.000000', '0xcc02')).payment;
      expect(late.status).toBe('late');
      // The order stays final and its amounts count confirmed payments before expiry only.
      expect(ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}`)).order).toMatchObject(
        { status: 'underpaid', ...amounts('9.000000', '1.000000', '0.000000') },
      );
      expect(await orderEvents(order.order_id)).toEqual([
        ['pending', 'partial_paid', ''],
        ['partial_paid', 'underpaid', ''],
        ['underpaid', 'underpaid', 'expired_paid'],
      ]);
      expect(
        ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}/payments`)).items.map(
          (p: { amount: string; status: string }) => [p.amount, p.status],
        ),
      ).toEqual([
        ['9.000000', 'completed'],
        ['1.000000', 'late'],
      ]);
      // The tokens did arrive: both payments are credited.
      expect(ok(await m.as.get('/payment/balances?currency=USDT')).items).toEqual([
        balance('USDT', '10.000000', '0.000000', '10.000000'),
      ]);
    });

    it('closes a pending order: closed and final', async () => {
      const m = await fundedMerchant('0.00');
      const { order } = await createOrder(m, 'CLO1');
      const closed = ok(
        await m.as.post(`/payment/acquiring/orders/${order.order_id}/close`, {
          reason: 'customer cancelled',
        }),
      );
      expect(closed).toEqual({
        order: { ...order, status: 'closed', updated_at: closed.order.updated_at },
      });
      expect(ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}`))).toEqual({
        ...closed,
        refunds: [],
      });
      expect(
        refusalOf(
          await m.as.post(`/payment/acquiring/orders/${order.order_id}/close`, { reason: 'x' }),
        ),
      ).toEqual(refusal(400, 53, 'order already final'));
      // Expiry does not touch a closed order.
      await advance(601);
      expect(ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}`)).order.status).toBe(
        'closed',
      );
      // A payment for the closed order is late, like one for an expired order.
      expect((await pay(order.order_id, '10.000000', '0xff01')).payment.status).toBe('late');
      expect(ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}`)).order).toMatchObject(
        { status: 'closed', ...amounts('0.000000', '10.000000', '0.000000') },
      );
      expect(await orderEvents(order.order_id)).toEqual([
        ['pending', 'closed', ''],
        ['closed', 'closed', 'expired_paid'],
      ]);
    });

    it('overpayment completes the order and reports overpaid_amount', async () => {
      const m = await fundedMerchant('0.00');
      const { order } = await createOrder(m, 'OVR1');
      await pay(order.order_id, '12.500000', '0xdd01');
      expect(ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}`)).order).toMatchObject(
        { status: 'completed', ...amounts('12.500000', '0.000000', '2.500000') },
      );
      expect(ok(await m.as.get('/payment/balances?currency=USDT')).items).toEqual([
        balance('USDT', '12.500000', '0.000000', '12.500000'),
      ]);
      const event = (await outboxOf(order.order_id)).find(
        (row) => row.event_type === 'acquiring.order.updated',
      );
      expect(event?.payload.data).toMatchObject({
        status: 'completed',
        overpaid_amount: '2.500000',
        amount_changed: true,
      });
    });

    it('the underpay tolerance completes an order short by no more than it', async () => {
      const m = await fundedMerchant('0.00');
      const { order } = await createOrder(m, 'TOL1', { underpay_tolerance: '0.10' });
      await pay(order.order_id, '9.900000', '0xee01');
      expect(ok(await m.as.get(`/payment/acquiring/orders/${order.order_id}`)).order).toMatchObject(
        { status: 'completed', ...amounts('9.900000', '0.100000', '0.000000') },
      );
    });
  });

  describe('ledger', () => {
    it('sorts ascending and descending, filters, and pages with limit and offset', async () => {
      const m = await fundedMerchant('500.00');
      const t0 = await advance(0);
      const created = ok(await m.as.post('/payment/quickpayout', quickPayout('LED1'))).payout;
      await h.admin('POST', `/admin/payouts/${created.payout_id}/review`, { action: 'approve' });
      const t1 = await advance(60);
      await h.admin('POST', `/admin/sandbox/payouts/${created.payout_id}/execution`, {
        outcome: 'processing',
      });
      const t2 = await advance(60);
      await h.admin('POST', `/admin/sandbox/payouts/${created.payout_id}/execution`, {
        outcome: 'completed',
      });
      const t3 = await advance(60);
      await h.admin('POST', `/admin/accounts/${m.accountId}/credit`, {
        currency: 'USD',
        amount: '100.00',
      });

      const row = (
        recordType: string,
        bucket: string,
        amount: string,
        after: string,
        at: number,
      ) => [recordType, bucket, amount, after, at];
      const ascending = [
        row('deposit', 'available', '500.00', '500.00', t0),
        row('payout_hold', 'available', '-25.75', '474.25', t1),
        row('payout_hold', 'held', '25.75', '25.75', t1),
        row('payout', 'held', '-25.00', '0.75', t2),
        row('payout_fee', 'held', '-0.75', '0.00', t2),
        row('deposit', 'available', '100.00', '574.25', t3),
      ];
      const view = (page: {
        items: {
          record_type: string;
          bucket: string;
          amount: string;
          balance_after: string;
          created_at: number;
        }[];
      }) =>
        page.items.map((r) => [r.record_type, r.bucket, r.amount, r.balance_after, r.created_at]);

      const asc = ok(await m.as.get('/payment/ledger?sort_by=created_at&sort_order=asc'));
      expect(view(asc)).toEqual(ascending);
      expect(asc).toMatchObject({ total: 6, limit: 20, offset: 0 });
      // Within one second records come in the order they were posted, reversed for desc.
      const desc = ok(await m.as.get('/payment/ledger?sort_order=desc'));
      expect(view(desc)).toEqual([...ascending].reverse());
      expect(view(ok(await m.as.get('/payment/ledger')))).toEqual(view(desc));

      const page = ok(await m.as.get('/payment/ledger?sort_order=asc&limit=2&offset=1'));
      expect(page).toMatchObject({ total: 6, limit: 2, offset: 1 });
      expect(view(page)).toEqual(ascending.slice(1, 3));
      const last = ok(await m.as.get('/payment/ledger?sort_order=asc&limit=2&offset=5'));
      expect(view(last)).toEqual(ascending.slice(5));
      expect(ok(await m.as.get('/payment/ledger?offset=6'))).toEqual({
        items: [],
        total: 6,
        limit: 20,
        offset: 6,
      });

      // A filtered page shows each record's balance_after in the whole ledger.
      expect(
        view(ok(await m.as.get('/payment/ledger?record_type=deposit&sort_order=asc'))),
      ).toEqual([ascending[0], ascending[5]]);
      expect(
        view(ok(await m.as.get(`/payment/ledger?start_at=${t1}&end_at=${t2}&sort_order=asc`))),
      ).toEqual(ascending.slice(1, 5));
      expect(ok(await m.as.get('/payment/ledger?currency=USDT')).total).toBe(0);

      expect(refusalOf(await m.as.get('/payment/ledger?sort_order=up'))).toEqual(
        refusal(400, 51, 'invalid sort_order'),
      );
      expect(refusalOf(await m.as.get('/payment/ledger?sort_by=amount'))).toEqual(
        refusal(400, 51, 'invalid sort_by'),
      );
      expect(refusalOf(await m.as.get('/payment/ledger?limit=101'))).toEqual(
        refusal(400, 51, 'invalid limit'),
      );
      expect(refusalOf(await m.as.get('/payment/ledger?offset=-1'))).toEqual(
        refusal(400, 51, 'invalid offset'),
      );
    });

    it('within one second, ascending is the order of posting: the hold before its settlement', async () => {
      // Everything below happens in one second of the test clock. By transaction_id the
      // settlement (`:payout`, `:payout_fee`) would sort before its `:payout_hold`, which a
      // replay of the ledger must never see; ascending follows the order of posting instead.
      const m = await fundedMerchant('500.00');
      const at = await advance(0);
      const created = ok(await m.as.post('/payment/quickpayout', quickPayout('SAME1'))).payout;
      await h.admin('POST', `/admin/payouts/${created.payout_id}/review`, { action: 'approve' });
      await h.admin('POST', `/admin/sandbox/payouts/${created.payout_id}/execution`, {
        outcome: 'processing',
      });
      await h.admin('POST', `/admin/sandbox/payouts/${created.payout_id}/execution`, {
        outcome: 'completed',
      });
      expect(await advance(0)).toBe(at);

      const view = (page: {
        items: { record_type: string; bucket: string; amount: string; created_at: number }[];
      }) => page.items.map((r) => [r.record_type, r.bucket, r.amount, r.created_at]);
      const posted = [
        ['deposit', 'available', '500.00', at],
        ['payout_hold', 'available', '-25.75', at],
        ['payout_hold', 'held', '25.75', at],
        ['payout', 'held', '-25.00', at],
        ['payout_fee', 'held', '-0.75', at],
      ];
      expect(view(ok(await m.as.get('/payment/ledger?sort_order=asc')))).toEqual(posted);
      expect(view(ok(await m.as.get('/payment/ledger?sort_order=desc')))).toEqual(
        [...posted].reverse(),
      );
      expect(view(ok(await m.as.get('/payment/ledger?sort_order=asc&limit=2&offset=1')))).toEqual(
        posted.slice(1, 3),
      );
    });
  });
});
