/**
 * Issue 12, finding 2, as the review found it: after `PATCH /admin/accounts/{id}
 * {status: frozen}` the operator's approval and the execution outcome still went through and the
 * balance fell from 100.00 to 49.00. Now every path that approves, executes or settles reads the
 * account in the unit of work that decides and answers `account frozen` (ADR 0033); once the
 * operator unfreezes the account the payout goes on. Through HTTP on the real engine, on every
 * store of the http package's list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalOf } from './engine-app.test-support.js';
import {
  accountFrozen,
  type FrozenBed,
  frozenBed,
  frozenMerchant,
  moneyOf,
  operator,
} from './frozen-account.test-support.js';
import { storesUnderTest } from './stores.test-support.js';

const usd = (available: string, held: string) => ({ currency: 'USD', available, held });

describe.each(storesUnderTest)('money leaves a frozen account ($name)', (under) => {
  let bed: FrozenBed;
  let store: Awaited<ReturnType<(typeof storesUnderTest)[number]['open']>>;

  beforeAll(async () => {
    store = await under.open();
    bed = await frozenBed(store);
  });

  afterAll(async () => {
    await store.close?.();
  });

  it('money leaves a frozen account: 100.00 stays 100.00 whatever acts, and after unfreezing the payout goes on', async () => {
    const { h } = bed;
    const m = await frozenMerchant(bed, '50.00');
    const payout = m.payouts.awaitingReview;
    const before = await moneyOf(bed, m);
    // 100.00 less the processing payout's 50.00 + 1.00 fee, held.
    expect(before.balances.find((b) => b.currency === 'USD')).toEqual(usd('49.00', '51.00'));

    expect(
      refusalOf(
        await operator(h, 'POST', `/admin/payouts/${payout}/review`, { action: 'approve' }),
      ),
    ).toEqual(accountFrozen);
    for (const outcome of ['processing', 'completed', 'failed']) {
      for (const id of [payout, m.payouts.approved, m.payouts.processing]) {
        expect(
          refusalOf(
            await operator(h, 'POST', `/admin/sandbox/payouts/${id}/execution`, { outcome }),
          ),
        ).toEqual(accountFrozen);
      }
    }
    for (const id of [m.payouts.approved, m.payouts.processing]) {
      const report = await h.engine.executions.report(id, { status: 'completed' });
      expect(report).toMatchObject({ _tag: 'Left', left: { message: 'account frozen' } });
    }
    const answered = await h.engine.callbacks.verificationAnswered(
      m.payouts.awaitingVerification,
      true,
      1,
    );
    expect(answered).toMatchObject({ _tag: 'Left', left: { message: 'account frozen' } });
    // The execution timer fires and hands nothing over.
    await h.admin('POST', '/admin/sandbox/clock/advance', { seconds: 3600 });
    expect(refusalOf(await h.as(m.token).post(`/payment/payouts/${payout}/submit`))).toEqual(
      accountFrozen,
    );

    expect(await moneyOf(bed, m)).toEqual(before);

    // Unfrozen, the same calls go through: the approved payout is handed over by its timer and
    // the processing one completes.
    await h.admin('PATCH', `/admin/accounts/${m.accountId}`, { status: 'active' });
    await h.admin('POST', '/admin/sandbox/clock/advance', { seconds: 300 });
    expect(bed.handed).toContain(m.payouts.approved);
    await h.admin('POST', `/admin/sandbox/payouts/${m.payouts.processing}/execution`, {
      outcome: 'completed',
    });
    const after = await moneyOf(bed, m);
    expect(after.balances.find((b) => b.currency === 'USD')).toEqual(usd('49.00', '0.00'));
    expect(after.completed).toEqual([m.payouts.processing]);
    const { payout: approved } = await h.admin('POST', `/admin/payouts/${payout}/review`, {
      action: 'approve',
    });
    expect(approved.review_status).toBe('approved');
  });

  it('money in still arrives: the operator credits a frozen account (ADR 0033)', async () => {
    const m = await frozenMerchant(bed);
    await bed.h.admin('POST', `/admin/accounts/${m.accountId}/credit`, {
      currency: 'USD',
      amount: '5.00',
    });
    const { balances } = await moneyOf(bed, m);
    // 100.00 + 5.00, less the processing payout's 10.00 + 0.60 fee, held.
    expect(balances.find((b) => b.currency === 'USD')).toEqual(usd('94.40', '10.60'));
  });
});
