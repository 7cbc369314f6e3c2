import {
  type FundingRecord,
  money,
  payInJournal,
  payoutHoldJournal,
  payoutSettleJournals,
} from '@payrail/core';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type AccessHarness,
  accessHarness,
  callerOf,
  failureOf,
  merchantWithKey,
  rightOf,
  testNow,
} from './access.test-support.js';

const allReads = ['payment.account.read', 'payment.wallet.read', 'payment.ledger.read'];
const forbidden = { message: 'forbidden', httpStatus: 403, code: 61 };

let h: AccessHarness;
let m: Awaited<ReturnType<typeof merchantWithKey>>;

beforeEach(async () => {
  h = accessHarness();
  m = await merchantWithKey(h, { permissions: allReads });
});

const credit = async (currency: string, amount: string, accountId = m.accountId) =>
  rightOf(await h.access.admin.credit(accountId, { currency, amount }));

describe('accounts.current', () => {
  it('answers the caller account without its notify secret', async () => {
    expect(rightOf(await h.access.accounts.current(m.caller))).toEqual({
      account: {
        merchant_id: m.merchantId,
        account_id: m.accountId,
        status: 'active',
        currencies: ['USD', 'USDT', 'USDC'],
        verification_enabled: false,
        auto_approve: false,
        products: { payout: true, acquiring: true },
        enabled_pay_tokens: expect.any(Array),
        default_pay_tokens: ['TRON_USDT', 'ETH_USDC'],
        created_at: testNow,
        updated_at: testNow,
      },
    });
  });

  it('needs payment.account.read', async () => {
    const caller = callerOf(m, ['payment.wallet.read']);
    expect(failureOf(await h.access.accounts.current(caller))).toEqual(forbidden);
  });

  it('account not found when the account is gone', async () => {
    const caller = { ...m.caller, account_id: 'acc_gone' };
    expect(failureOf(await h.access.accounts.current(caller)).message).toBe('account not found');
  });
});

describe('accounts.list', () => {
  beforeEach(async () => {
    const account = await h.store.transaction(async (tx) => tx.accounts.get(m.accountId));
    if (!account) throw new Error('no account');
    await h.store.transaction(async (tx) => {
      await tx.accounts.insert({
        ...account,
        account_id: 'acc_second',
        status: 'frozen',
        created_at: testNow + 1,
      });
      await tx.accounts.insert({ ...account, account_id: 'acc_third', created_at: testNow + 2 });
    });
    await h.access.admin.createMerchant({ name: 'Other' });
  });

  it("lists the merchant's accounts only, newest first", async () => {
    const page = rightOf(await h.access.accounts.list(m.caller, {}));
    expect(page.items.map((a) => a.account_id)).toEqual(['acc_third', 'acc_second', m.accountId]);
    expect(page).toMatchObject({ total: 3, limit: 20, offset: 0 });
    expect(JSON.stringify(page)).not.toContain('notify_secret');
  });

  it('filters by status and pages', async () => {
    const frozen = rightOf(await h.access.accounts.list(m.caller, { status: 'frozen' }));
    expect(frozen.items.map((a) => a.account_id)).toEqual(['acc_second']);
    const second = rightOf(await h.access.accounts.list(m.caller, { limit: '1', offset: '1' }));
    expect(second).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(second.items.map((a) => a.account_id)).toEqual(['acc_second']);
  });

  it('answers bad queries and missing permissions', async () => {
    expect(failureOf(await h.access.accounts.list(m.caller, { status: 'closed' }))).toEqual({
      message: 'invalid status',
      httpStatus: 400,
      code: 51,
    });
    expect(failureOf(await h.access.accounts.list(m.caller, { limit: '101' })).message).toBe(
      'invalid limit',
    );
    expect(failureOf(await h.access.accounts.list(callerOf(m, []), {}))).toEqual(forbidden);
  });
});

describe('accounts.balances', () => {
  it('shows every currency of the account, zero when never moved', async () => {
    expect(rightOf(await h.access.accounts.balances(m.caller, {}))).toEqual({
      items: [
        { currency: 'USD', available: '0.00', held: '0.00', total: '0.00' },
        { currency: 'USDC', available: '0.000000', held: '0.000000', total: '0.000000' },
        { currency: 'USDT', available: '0.000000', held: '0.000000', total: '0.000000' },
      ],
    });
  });

  it('reflects credits and holds, and filters by currency', async () => {
    await credit('USD', '100');
    await credit('USDT', '5.5');
    await h.store.transaction((tx) =>
      tx.ledger.post(
        payoutHoldJournal({ accountId: m.accountId, businessId: 'po_1' }, money('USD', '30.25')),
        testNow,
      ),
    );
    expect(rightOf(await h.access.accounts.balances(m.caller, {}))).toEqual({
      items: [
        { currency: 'USD', available: '69.75', held: '30.25', total: '100.00' },
        { currency: 'USDC', available: '0.000000', held: '0.000000', total: '0.000000' },
        { currency: 'USDT', available: '5.500000', held: '0.000000', total: '5.500000' },
      ],
    });
    expect(rightOf(await h.access.accounts.balances(m.caller, { currency: 'USDT' }))).toEqual({
      items: [{ currency: 'USDT', available: '5.500000', held: '0.000000', total: '5.500000' }],
    });
  });

  it('includes a currency the account does not list once it has postings', async () => {
    const { merchant } = rightOf(
      await h.access.admin.createMerchant({ name: 'Fiat', currencies: ['USD'] }),
    );
    const fiat = { merchantId: merchant.merchant_id, accountId: merchant.account_id };
    await h.store.transaction((tx) =>
      tx.ledger.post(
        payInJournal({ accountId: fiat.accountId, businessId: 'pay_1' }, money('USDC', '2')),
        testNow,
      ),
    );
    expect(rightOf(await h.access.accounts.balances(callerOf(fiat, allReads), {}))).toEqual({
      items: [
        { currency: 'USD', available: '0.00', held: '0.00', total: '0.00' },
        { currency: 'USDC', available: '2.000000', held: '0.000000', total: '2.000000' },
      ],
    });
  });

  it("never shows another account's money", async () => {
    const other = await merchantWithKey(h, { permissions: allReads }, 'Other');
    await credit('USD', '7', other.accountId);
    const items = rightOf(await h.access.accounts.balances(m.caller, { currency: 'USD' })).items;
    expect(items).toEqual([{ currency: 'USD', available: '0.00', held: '0.00', total: '0.00' }]);
  });

  it('needs payment.wallet.read; a bad currency is `invalid currency`', async () => {
    expect(
      failureOf(await h.access.accounts.balances(callerOf(m, ['payment.account.read']), {})),
    ).toEqual(forbidden);
    expect(failureOf(await h.access.accounts.balances(m.caller, { currency: 'EUR' }))).toEqual({
      message: 'invalid currency',
      httpStatus: 400,
      code: 51,
    });
  });
});

describe('deposits and withdrawals', () => {
  const withdrawal = (n: number, overrides: Partial<FundingRecord> = {}): FundingRecord => ({
    record_id: `wd_${n}`,
    account_id: m.accountId,
    currency: 'USDT',
    network: 'TRON',
    amount: `${n}.000000`,
    status: 'completed',
    tx_hash: `0x${n}`,
    version: 1,
    created_at: testNow + n,
    updated_at: testNow + n,
    ...overrides,
  });

  it('lists deposits, newest first, with filters and pages', async () => {
    await credit('USD', '1');
    h.clock.advance(10);
    await credit('USDT', '2');
    h.clock.advance(10);
    await credit('USD', '3');
    const all = rightOf(await h.access.accounts.deposits(m.caller, {}));
    expect(all.items.map((d) => d.amount)).toEqual(['3.00', '2.000000', '1.00']);
    expect(all.items[0]).toEqual({
      record_id: 'dep_0003',
      currency: 'USD',
      network: 'SANDBOX',
      amount: '3.00',
      status: 'completed',
      tx_hash: null,
      created_at: testNow + 20,
      updated_at: testNow + 20,
    });
    const usd = rightOf(await h.access.accounts.deposits(m.caller, { currency: 'USD' }));
    expect(usd.items.map((d) => d.record_id)).toEqual(['dep_0003', 'dep_0001']);
    const window = rightOf(
      await h.access.accounts.deposits(m.caller, {
        start_at: String(testNow + 5),
        end_at: String(testNow + 10),
      }),
    );
    expect(window.items.map((d) => d.record_id)).toEqual(['dep_0002']);
    const paged = rightOf(await h.access.accounts.deposits(m.caller, { limit: '2', offset: '2' }));
    expect(paged).toMatchObject({ total: 3, limit: 2, offset: 2 });
    expect(paged.items.map((d) => d.record_id)).toEqual(['dep_0001']);
    expect(rightOf(await h.access.accounts.deposits(m.caller, { status: 'pending' })).total).toBe(
      0,
    );
  });

  it('lists withdrawals of the account only', async () => {
    await h.store.transaction(async (tx) => {
      await tx.withdrawals.insert(withdrawal(1));
      await tx.withdrawals.insert(withdrawal(2, { network: 'ETH', status: 'failed' }));
      await tx.withdrawals.insert(withdrawal(3, { account_id: 'acc_other' }));
    });
    const all = rightOf(await h.access.accounts.withdrawals(m.caller, {}));
    expect(all.items.map((w) => w.record_id)).toEqual(['wd_2', 'wd_1']);
    const tron = rightOf(await h.access.accounts.withdrawals(m.caller, { network: 'TRON' }));
    expect(tron.items).toEqual([
      {
        record_id: 'wd_1',
        currency: 'USDT',
        network: 'TRON',
        amount: '1.000000',
        status: 'completed',
        tx_hash: '0x1',
        created_at: testNow + 1,
        updated_at: testNow + 1,
      },
    ]);
    const failed = rightOf(await h.access.accounts.withdrawals(m.caller, { status: 'failed' }));
    expect(failed.items.map((w) => w.record_id)).toEqual(['wd_2']);
  });

  it('need payment.wallet.read and answer bad filters', async () => {
    const reader = callerOf(m, ['payment.account.read', 'payment.ledger.read']);
    expect(failureOf(await h.access.accounts.deposits(reader, {}))).toEqual(forbidden);
    expect(failureOf(await h.access.accounts.withdrawals(reader, {}))).toEqual(forbidden);
    expect(failureOf(await h.access.accounts.deposits(m.caller, { network: 'BTC' })).message).toBe(
      'invalid network',
    );
    expect(failureOf(await h.access.accounts.withdrawals(m.caller, { status: 'x' })).message).toBe(
      'invalid status',
    );
  });
});

describe('accounts.ledger', () => {
  beforeEach(async () => {
    await credit('USD', '100');
    h.clock.advance(60);
    const at = h.clock.now();
    await h.store.transaction(async (tx) => {
      await tx.payouts.insert({
        payout_id: 'po_0001',
        account_id: m.accountId,
        reference: 'INV-42',
        client_request_id: null,
        request_hash: 'h',
        currency: 'USD',
        amount: '10.00',
        status: 'completed',
        review_status: 'approved',
        execution_status: 'completed',
        batch_id: null,
        snapshot: null,
        created_at: at,
        updated_at: at,
      });
      const head = { accountId: m.accountId, businessId: 'po_0001' };
      await tx.ledger.post(payoutHoldJournal(head, money('USD', '11')), at);
      for (const journal of payoutSettleJournals(head, money('USD', '10'), money('USD', '1'))) {
        await tx.ledger.post(journal, at + 1);
      }
    });
  });

  it('lists records newest first: one per bucket moved, signed, with the balance after', async () => {
    const page = rightOf(await h.access.accounts.ledger(m.caller, {}));
    expect(page).toMatchObject({ total: 5, limit: 20, offset: 0 });
    expect(page.items).toEqual([
      {
        transaction_id: 'po_0001:payout_fee',
        record_type: 'payout_fee',
        currency: 'USD',
        bucket: 'held',
        amount: '-1.00',
        balance_after: '0.00',
        business_type: 'payout',
        business_id: 'po_0001',
        reference: 'INV-42',
        created_at: testNow + 61,
      },
      expect.objectContaining({
        transaction_id: 'po_0001:payout',
        bucket: 'held',
        amount: '-10.00',
        balance_after: '1.00',
      }),
      expect.objectContaining({
        transaction_id: 'po_0001:payout_hold',
        bucket: 'held',
        amount: '11.00',
        balance_after: '11.00',
      }),
      expect.objectContaining({
        transaction_id: 'po_0001:payout_hold',
        bucket: 'available',
        amount: '-11.00',
        balance_after: '89.00',
      }),
      {
        transaction_id: 'dep_0001:deposit',
        record_type: 'deposit',
        currency: 'USD',
        bucket: 'available',
        amount: '100.00',
        balance_after: '100.00',
        business_type: 'deposit',
        business_id: 'dep_0001',
        reference: null,
        created_at: testNow,
      },
    ]);
  });

  it('sorts ascending for replays, filters by record_type, currency and time, and pages', async () => {
    const asc = rightOf(await h.access.accounts.ledger(m.caller, { sort_order: 'asc' }));
    expect(asc.items.map((e) => [e.record_type, e.bucket])).toEqual([
      ['deposit', 'available'],
      ['payout_hold', 'available'],
      ['payout_hold', 'held'],
      ['payout', 'held'],
      ['payout_fee', 'held'],
    ]);
    const fees = rightOf(await h.access.accounts.ledger(m.caller, { record_type: 'payout_fee' }));
    expect(fees.items.map((e) => [e.transaction_id, e.balance_after])).toEqual([
      ['po_0001:payout_fee', '0.00'],
    ]);
    expect(rightOf(await h.access.accounts.ledger(m.caller, { currency: 'USDT' })).total).toBe(0);
    const early = rightOf(
      await h.access.accounts.ledger(m.caller, { end_at: String(testNow + 60) }),
    );
    expect(early.items.map((e) => e.record_type)).toEqual([
      'payout_hold',
      'payout_hold',
      'deposit',
    ]);
    const paged = rightOf(
      await h.access.accounts.ledger(m.caller, { sort_order: 'asc', limit: '2', offset: '3' }),
    );
    expect(paged.items.map((e) => [e.record_type, e.balance_after])).toEqual([
      ['payout', '1.00'],
      ['payout_fee', '0.00'],
    ]);
  });

  it('needs payment.ledger.read and answers bad parameters', async () => {
    expect(
      failureOf(await h.access.accounts.ledger(callerOf(m, ['payment.wallet.read']), {})),
    ).toEqual(forbidden);
    expect(failureOf(await h.access.accounts.ledger(m.caller, { sort_by: 'amount' })).message).toBe(
      'invalid sort_by',
    );
    expect(
      failureOf(await h.access.accounts.ledger(m.caller, { record_type: 'refunded' })).message,
    ).toBe('invalid record_type');
  });

  it("never shows another account's records", async () => {
    const other = await merchantWithKey(h, { permissions: allReads }, 'Other');
    expect(rightOf(await h.access.accounts.ledger(other.caller, {})).total).toBe(0);
  });
});
