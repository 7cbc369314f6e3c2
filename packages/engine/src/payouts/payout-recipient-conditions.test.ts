/**
 * The payout conditions behind `wallet not found`, `beneficiary account not active` and
 * `beneficiary channel mismatch` (docs/domain-rules.md), on quick payout create, PATCH and the
 * standalone beneficiary endpoint.
 */
import { describe, expect, it } from 'vitest';
import {
  dataOf,
  errorOf,
  merchantA,
  type PayoutHarness,
  payoutHarness,
  payoutOf,
  walletaPayout,
} from './payouts.test-support.js';

/** A payout to the account `bacc_1` (created by the first walletaPayout). */
const byId = (n: number, overrides: Record<string, unknown> = {}) => ({
  client_request_id: `req-id-${n}`,
  currency: 'USD',
  amount: '20.00',
  reference: `ref-id-${n}`,
  notify_url: 'https://merchant.example.com/payout-callback',
  beneficiary_account_id: 'bacc_1',
  ...overrides,
});

const withChannels = async (h: PayoutHarness) => {
  dataOf(await h.engine.admin.updatePayoutMethod('1', { channel_ids: ['express', 'standard'] }));
};

describe('wallet not found: the payout currency is not one of the account currencies', () => {
  it('refuses create, and answers it before any method, recipient or route work', async () => {
    const h = await payoutHarness();
    await h.setAccount(merchantA, { currencies: ['USDT', 'USDC'] });
    expect(errorOf(await h.engine.payouts.create(merchantA, walletaPayout()))).toEqual([
      'wallet not found',
      400,
      53,
    ]);
    // Even with a method that does not exist: the wallet comes first.
    expect(
      errorOf(await h.engine.payouts.create(merchantA, walletaPayout({ method_id: 99 }))),
    ).toEqual(['wallet not found', 400, 53]);
    // Nothing was linked or created.
    expect(await h.oracle.count('beneficiaries')).toBe(0);
    expect(await h.oracle.count('payouts')).toBe(0);
    await h.setAccount(merchantA, { currencies: ['USD'] });
    expect(payoutOf(await h.engine.payouts.create(merchantA, walletaPayout())).status).toBe(
      'pending_review',
    );
  });

  it('refuses an edit of a draft once the account no longer holds the currency', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout({ submit: false }));
    await h.setAccount(merchantA, { currencies: ['USDT'] });
    expect(errorOf(await h.engine.payouts.update(merchantA, 'po_1', { amount: '30.00' }))).toEqual([
      'wallet not found',
      400,
      53,
    ]);
  });
});

describe('beneficiary account not active: its network was disabled by the operator', () => {
  it('refuses a payout by beneficiary_account_id until the network is enabled again', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    dataOf(await h.engine.admin.updatePayoutNetwork('WALLETA', { status: 'disabled' }));
    expect(errorOf(await h.engine.payouts.create(merchantA, byId(1)))).toEqual([
      'beneficiary account not active',
      400,
      53,
    ]);
    // The merchant's own statuses come first: those it can fix itself.
    dataOf(await h.engine.beneficiaryAccounts.update(merchantA, 'bacc_1', { status: 'disabled' }));
    expect(errorOf(await h.engine.payouts.create(merchantA, byId(2)))).toEqual([
      'beneficiary account disabled, please enable it first',
      400,
      53,
    ]);
    dataOf(await h.engine.beneficiaryAccounts.update(merchantA, 'bacc_1', { status: 'active' }));
    // Inline, a disabled network is not offered at all.
    expect(
      errorOf(
        await h.engine.payouts.create(
          merchantA,
          walletaPayout({ client_request_id: 'req-3', reference: 'ref-3' }),
        ),
      ),
    ).toEqual(['network not found', 400, 53]);
    dataOf(await h.engine.admin.updatePayoutNetwork('WALLETA', { status: 'active' }));
    expect(payoutOf(await h.engine.payouts.create(merchantA, byId(4))).beneficiary_account_id).toBe(
      'bacc_1',
    );
  });

  it('refuses moving a draft to that account by PATCH', async () => {
    const h = await payoutHarness();
    await h.engine.payouts.create(merchantA, walletaPayout());
    await h.engine.payouts.create(
      merchantA,
      walletaPayout({
        client_request_id: 'req-2',
        reference: 'ref-2',
        submit: false,
        beneficiary: { name: 'Bob Example', fields: { payee_id: 'bob01' } },
        beneficiary_account: { network_code: 'WALLETB', fields: { walletb_account: '$bob' } },
      }),
    );
    dataOf(await h.engine.admin.updatePayoutNetwork('WALLETA', { status: 'disabled' }));
    expect(
      errorOf(
        await h.engine.payouts.update(merchantA, 'po_2', { beneficiary_account_id: 'bacc_1' }),
      ),
    ).toEqual(['beneficiary account not active', 400, 53]);
  });
});

describe('beneficiary channel mismatch: a beneficiary stays on the channel it was first linked with', () => {
  it('remembers the channel of the payout that created it and refuses another one', async () => {
    const h = await payoutHarness();
    await withChannels(h);
    await h.engine.payouts.create(merchantA, walletaPayout({ channel_id: 'express' }));
    expect(await h.oracle.record('beneficiaries', 'ben_1')).toMatchObject({
      channel_id: 'express',
    });
    const again = (n: number, overrides: Record<string, unknown>) =>
      h.engine.payouts.create(
        merchantA,
        walletaPayout({ client_request_id: `req-${n}`, reference: `ref-${n}`, ...overrides }),
      );
    // Inline reuse (method_id + payee_id) on another channel.
    expect(errorOf(await again(2, { channel_id: 'standard' }))).toEqual([
      'beneficiary channel mismatch',
      400,
      53,
    ]);
    // By beneficiary_account_id on another channel.
    expect(
      errorOf(
        await h.engine.payouts.create(merchantA, byId(3, { method_id: 1, channel_id: 'standard' })),
      ),
    ).toEqual(['beneficiary channel mismatch', 400, 53]);
    // The same channel, or none (the route decides), is fine.
    expect(payoutOf(await again(4, { channel_id: 'express' })).beneficiary_id).toBe('ben_1');
    expect(payoutOf(await again(5, {})).beneficiary_id).toBe('ben_1');
    expect(await h.oracle.count('beneficiaries')).toBe(1);
  });

  it('a beneficiary linked without a channel takes any channel', async () => {
    const h = await payoutHarness();
    await withChannels(h);
    await h.engine.payouts.create(merchantA, walletaPayout());
    expect(await h.oracle.record('beneficiaries', 'ben_1')).not.toHaveProperty('channel_id');
    expect(
      payoutOf(
        await h.engine.payouts.create(merchantA, byId(2, { method_id: 1, channel_id: 'standard' })),
      ).beneficiary_id,
    ).toBe('ben_1');
  });

  it('PATCH moving a draft to another channel is refused for its beneficiary', async () => {
    const h = await payoutHarness();
    await withChannels(h);
    await h.engine.payouts.create(
      merchantA,
      walletaPayout({ channel_id: 'express', submit: false }),
    );
    expect(
      errorOf(
        await h.engine.payouts.update(merchantA, 'po_1', { method_id: 1, channel_id: 'standard' }),
      ),
    ).toEqual(['beneficiary channel mismatch', 400, 53]);
  });

  it('the standalone beneficiary endpoint remembers and checks the channel too', async () => {
    const h = await payoutHarness();
    await withChannels(h);
    const body = (channel_id?: string) => ({
      method_id: 1,
      name: 'Carol Example',
      fields: { payee_id: 'carol01' },
      ...(channel_id === undefined ? {} : { channel_id }),
    });
    dataOf(await h.engine.beneficiaries.create(merchantA, body('standard')));
    expect(errorOf(await h.engine.beneficiaries.create(merchantA, body('express')))).toEqual([
      'beneficiary channel mismatch',
      400,
      53,
    ]);
    expect(dataOf(await h.engine.beneficiaries.create(merchantA, body()))).toMatchObject({
      beneficiary: { beneficiary_id: 'ben_1' },
    });
    expect(
      errorOf(
        await h.engine.payouts.create(merchantA, {
          ...walletaPayout({ channel_id: 'express' }),
          beneficiary: { name: 'Carol Example', fields: { payee_id: 'carol01' } },
        }),
      ),
    ).toEqual(['beneficiary channel mismatch', 400, 53]);
  });
});
