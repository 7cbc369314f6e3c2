import { describe, expect, it } from 'vitest';
import {
  dataOf,
  errorOf,
  merchantA,
  merchantAWith,
  type PayoutHarness,
  payoutHarness,
  payoutOf,
  walletaPayout,
} from './payouts.test-support.js';

const contextOf = async (h: PayoutHarness, payoutId: string) =>
  (
    (await h.oracle.record('payouts', payoutId)) as {
      snapshot: { snapshot: { context: Record<string, unknown> }; routing: unknown };
    }
  ).snapshot;

const draft = async () => {
  const h = await payoutHarness({ verification_enabled: true });
  await h.engine.payouts.create(merchantA, walletaPayout({ submit: false }));
  return h;
};

describe('PATCH /payment/payouts/{payout_id}', () => {
  it('changes the amount of a draft and prices it again', async () => {
    const h = await draft();
    h.clock.advance(5);
    const updated = payoutOf(await h.engine.payouts.update(merchantA, 'po_1', { amount: '200' }));
    expect(updated).toMatchObject({ payout_id: 'po_1', amount: '200.00', status: 'draft' });
    const { snapshot } = await contextOf(h, 'po_1');
    expect(snapshot.context).toMatchObject({ amount: '200.00', fee: '2.50', revision: 2 });
    expect(await h.oracle.record('payouts', 'po_1')).toMatchObject({
      amount: '200.00',
      version: 2,
    });
  });

  it('answers no changes, payout not editable and the re-checked amount', async () => {
    const h = await draft();
    expect(errorOf(await h.engine.payouts.update(merchantA, 'po_1', {}))).toEqual([
      'no changes',
      400,
      53,
    ]);
    expect(errorOf(await h.engine.payouts.update(merchantA, 'po_1', { amount: '100' }))).toEqual([
      'no changes',
      400,
      53,
    ]);
    expect(errorOf(await h.engine.payouts.update(merchantA, 'po_1', { amount: '1.001' }))).toEqual([
      'amount must be a decimal string with at most 2 decimal places',
      400,
      51,
    ]);
    expect(errorOf(await h.engine.payouts.update(merchantA, 'po_1', { amount: '100001' }))).toEqual(
      ['payout route not configured', 400, 53],
    );
    expect(
      errorOf(await h.engine.payouts.update(merchantA, 'po_1', { channel_id: 'express' })),
    ).toEqual(['method_id required when channel_id provided', 400, 51]);
    expect(
      errorOf(
        await h.engine.payouts.update(merchantAWith('payment.payout.read'), 'po_1', {
          amount: '5',
        }),
      ),
    ).toEqual(['forbidden', 403, 61]);
    await h.engine.payouts.submit(merchantA, 'po_1');
    expect(errorOf(await h.engine.payouts.update(merchantA, 'po_1', { amount: '5' }))).toEqual([
      'payout not editable',
      400,
      53,
    ]);
  });

  it('a user-borne fee must stay below the new amount', async () => {
    const h = await draft();
    dataOf(
      await h.engine.admin.createRoute({
        account_id: 'acc_a',
        currency: 'USD',
        method_id: 1,
        min_amount: '1',
        max_amount: '10',
        fixed_fee: '1.00',
        channel_account_id: 'chacc_a',
      }),
    );
    expect(
      errorOf(
        await h.engine.payouts.update(merchantA, 'po_1', { amount: '1.00', fee_bearer: 'user' }),
      ),
    ).toEqual(['amount must be greater than fee when fee_bearer is user', 400, 53]);
  });

  it('moves a payout to another recipient, inline or by id, through the linking rules', async () => {
    const h = await draft();
    const inline = payoutOf(
      await h.engine.payouts.update(merchantA, 'po_1', {
        beneficiary: { name: 'Bob Example', fields: { payee_id: 'bob01' } },
        beneficiary_account: { network_code: 'WALLETB', fields: { walletb_account: '$bob' } },
      }),
    );
    expect([inline.beneficiary_id, inline.beneficiary_account_id]).toEqual(['ben_2', 'bacc_2']);
    const back = payoutOf(
      await h.engine.payouts.update(merchantA, 'po_1', { beneficiary_account_id: 'bacc_1' }),
    );
    expect([back.beneficiary_id, back.beneficiary_account_id]).toEqual(['ben_1', 'bacc_1']);
    expect(
      errorOf(
        await h.engine.payouts.update(merchantA, 'po_1', {
          beneficiary: { name: 'Alice Example', fields: { payee_id: 'alice01' } },
          beneficiary_account: {
            network_code: 'WALLETA',
            fields: { walleta_email: 'x@example.com' },
          },
        }),
      ),
    ).toEqual(['beneficiary account mismatch', 400, 53]);
    expect(
      errorOf(
        await h.engine.payouts.update(merchantA, 'po_1', { beneficiary_account_id: 'bacc_404' }),
      ),
    ).toEqual(['beneficiary account not found', 400, 53]);
  });

  it('a returned payout is edited, then resubmitted: the verification request shows the edit', async () => {
    const h = await payoutHarness({ verification_enabled: true });
    await h.engine.payouts.create(merchantA, walletaPayout());
    await h.engine.admin.reviewPayout('po_1', { action: 'return' });
    const newUrl = 'https://merchant.example.com/v2/payout-callback';
    dataOf(
      await h.engine.payouts.update(merchantA, 'po_1', {
        notify_url: newUrl,
        beneficiary: { name: 'Bob Example', fields: { payee_id: 'bob01' } },
        beneficiary_account: {
          network_code: 'WALLETB',
          display_name: 'Bob B',
          fields: { walletb_account: '$bob123456' },
        },
      }),
    );
    expect(payoutOf(await h.engine.payouts.submit(merchantA, 'po_1')).status).toBe(
      'pending_review',
    );
    const requests = (await h.outboxOf('po_1')).filter(
      (m) => m.event_type === 'payout.verify.request',
    );
    expect(requests).toHaveLength(2);
    expect(requests[1]?.destination).toEqual({ kind: 'notify_url', url: newUrl });
    expect(requests[1]?.payload).toMatchObject({
      beneficiary_name: 'Bob Example',
      network_code: 'WALLETB',
      beneficiary_account: {
        network_code: 'WALLETB',
        display_name: 'Bob B',
        fields_masked: { walletb_account: '***3456' },
      },
    });
  });

  it('a change of channel alone moves the route without a new revision', async () => {
    const h = await draft();
    dataOf(await h.engine.admin.updatePayoutMethod('1', { channel_ids: ['express'] }));
    dataOf(
      await h.engine.admin.createRoute({
        currency: 'USD',
        method_id: 1,
        channel_id: 'express',
        min_amount: '1',
        max_amount: '1000',
        fixed_fee: '0.50',
        percent_fee: '1.0',
        channel_account_id: 'chacc_express',
      }),
    );
    const updated = payoutOf(
      await h.engine.payouts.update(merchantA, 'po_1', { method_id: 1, channel_id: 'express' }),
    );
    expect(updated.status).toBe('draft');
    const stored = await contextOf(h, 'po_1');
    expect(stored.routing).toEqual({
      route_id: 'rt_4',
      method_id: 1,
      channel_id: 'express',
      channel_account_id: 'chacc_express',
    });
    expect(stored.snapshot.context.revision).toBe(1);
    expect(errorOf(await h.engine.payouts.update(merchantA, 'po_1', { method_id: 2 }))).toEqual([
      'beneficiary method mismatch',
      400,
      53,
    ]);
  });
});
