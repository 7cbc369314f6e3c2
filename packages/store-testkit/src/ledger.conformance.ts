/**
 * The ledger port: balanced journals only, each id once, no merchant bucket below zero, balances
 * that always equal the sum of the postings (read through the oracle), and the ledger records
 * list of the interface (filters, created_at bounds, sort asc/desc in posting order, paging).
 */
import assert from 'node:assert/strict';
import {
  balancesOf,
  type Currency,
  depositJournal,
  type Journal,
  type LedgerQuery,
  merchantLedgerAccount,
  money,
  payInJournal,
  payoutHoldJournal,
  payoutReleaseJournal,
  payoutSettleJournals,
  platformAccounts,
} from '@payrail/core';
import { assertRefused, type SuiteContext, t0 } from './conformance-context.js';
import type { StoreHarness } from './harness.js';

const account = 'acc_ledger';
const head = (businessId: string) => ({ accountId: account, businessId });
const usd = (amount: string) => money('USD', amount);

const post = (h: StoreHarness, journal: Journal, at = t0) =>
  h.store.transaction((tx) => tx.ledger.post(journal, at));

const postAll = (h: StoreHarness, journals: readonly (readonly [Journal, number])[]) =>
  h.store.transaction(async (tx) => {
    for (const [journal, at] of journals) await tx.ledger.post(journal, at);
  });

const balances = (h: StoreHarness, accountId = account) =>
  h.store.transaction((tx) => tx.ledger.balances(accountId));

const entries = (h: StoreHarness, query: Partial<LedgerQuery> = {}) =>
  h.store.transaction((tx) =>
    tx.ledger.entries({ accountId: account, limit: 50, offset: 0, ...query }),
  );

/** The balances the oracle's postings add up to, in currency order. */
const oracleBalances = async (h: StoreHarness, accountId = account) =>
  [...balancesOf(accountId, await h.oracle.postings())].sort((a, b) =>
    a.currency.localeCompare(b.currency),
  );

export const ledgerConformance = (ctx: SuiteContext): void => {
  const { test } = ctx;

  test('a deposit credits available; balances equal the sum of the postings', async (h) => {
    await post(h, depositJournal(head('dep_1'), usd('10.00')));
    assert.deepEqual(await balances(h), [{ currency: 'USD', available: '10.00', held: '0.00' }]);
    assert.deepEqual(await balances(h), await oracleBalances(h));
    assert.deepEqual(await h.oracle.journalIds(), ['dep_1:deposit']);
  });

  test('hold, release and settle move money between the buckets', async (h) => {
    await post(h, depositJournal(head('dep_1'), usd('100.00')));
    await post(h, payoutHoldJournal(head('po_1'), usd('30.50')));
    assert.deepEqual(await balances(h), [{ currency: 'USD', available: '69.50', held: '30.50' }]);
    await post(h, payoutHoldJournal(head('po_2'), usd('20.00')));
    await post(h, payoutReleaseJournal(head('po_2'), usd('20.00')));
    await postAll(
      h,
      payoutSettleJournals(head('po_1'), usd('30.00'), usd('0.50')).map((j) => [j, t0] as const),
    );
    assert.deepEqual(await balances(h), [{ currency: 'USD', available: '69.50', held: '0.00' }]);
    assert.deepEqual(await balances(h), await oracleBalances(h));
  });

  test('balances: one per currency with postings, in currency order; none for others', async (h) => {
    await post(h, payInJournal(head('ord_1'), money('USDT', '2.5')));
    await post(h, depositJournal(head('dep_1'), usd('1.00')));
    await post(h, depositJournal({ accountId: 'acc_other', businessId: 'dep_2' }, usd('7.00')));
    assert.deepEqual(await balances(h), [
      { currency: 'USD', available: '1.00', held: '0.00' },
      { currency: 'USDT', available: '2.500000', held: '0.000000' },
    ]);
    assert.deepEqual(await balances(h), await oracleBalances(h));
    assert.deepEqual(await balances(h, 'acc_other'), await oracleBalances(h, 'acc_other'));
    assert.deepEqual(await balances(h, 'acc_none'), []);
  });

  test('an unbalanced journal is refused and nothing of it is written', async (h) => {
    const journal: Journal = {
      ...depositJournal(head('dep_1'), usd('10.00')),
      postings: [
        {
          ledgerAccount: merchantLedgerAccount(account, 'available'),
          currency: 'USD',
          amount: '10.00',
        },
        { ledgerAccount: platformAccounts.funding, currency: 'USD', amount: '-9.99' },
      ],
    };
    await assertRefused(post(h, journal), 'unbalanced_journal');
    assert.deepEqual(await h.oracle.journalIds(), []);
    assert.deepEqual(await balances(h), []);
  });

  test('a journal id posts once: a repeat is refused and changes nothing', async (h) => {
    await post(h, depositJournal(head('dep_1'), usd('10.00')));
    await assertRefused(post(h, depositJournal(head('dep_1'), usd('5.00'))), 'duplicate_journal');
    assert.deepEqual(await balances(h), [{ currency: 'USD', available: '10.00', held: '0.00' }]);
    assert.equal((await h.oracle.postings()).length, 2);
  });

  test('no merchant bucket goes below zero; the exact balance may be taken', async (h) => {
    await post(h, depositJournal(head('dep_1'), usd('10.00')));
    await assertRefused(
      post(h, payoutHoldJournal(head('po_1'), usd('10.01'))),
      'insufficient_balance',
    );
    assert.deepEqual(await h.oracle.journalIds(), ['dep_1:deposit']);
    await post(h, payoutHoldJournal(head('po_2'), usd('10.00')));
    assert.deepEqual(await balances(h), [{ currency: 'USD', available: '0.00', held: '10.00' }]);
    await assertRefused(
      post(h, payoutReleaseJournal(head('po_2'), usd('10.01'))),
      'insufficient_balance',
    );
    await assertRefused(
      post(h, payoutHoldJournal(head('po_3'), usd('0.01'))),
      'insufficient_balance',
    );
    assert.deepEqual(await balances(h), [{ currency: 'USD', available: '0.00', held: '10.00' }]);
    assert.deepEqual(await balances(h), await oracleBalances(h));
  });

  test('balances see the journals posted earlier in the same unit of work', async (h) => {
    const seen = await h.store.transaction(async (tx) => {
      await tx.ledger.post(depositJournal(head('dep_1'), usd('3.00')), t0);
      await tx.ledger.post(payoutHoldJournal(head('po_1'), usd('3.00')), t0);
      return tx.ledger.balances(account);
    });
    assert.deepEqual(seen, [{ currency: 'USD', available: '0.00', held: '3.00' }]);
  });

  test('entries are the ledger records of the account, fields as the interface shows', async (h) => {
    await post(h, depositJournal(head('dep_1'), usd('10.00')), t0 + 5);
    await post(h, depositJournal({ accountId: 'acc_other', businessId: 'dep_9' }, usd('1.00')));
    const page = await entries(h);
    assert.deepEqual(page, {
      items: [
        {
          journal_id: 'dep_1:deposit',
          record_type: 'deposit',
          account_id: account,
          currency: 'USD',
          amount: '10.00',
          business_type: 'deposit',
          business_id: 'dep_1',
          created_at: t0 + 5,
        },
      ],
      total: 1,
      limit: 50,
      offset: 0,
    });
  });

  /** Posted in this order; within t0 + 200 the ids sort differently (po_1 before po_2). */
  const history = async (h: StoreHarness): Promise<void> => {
    await postAll(h, [
      [depositJournal(head('dep_1'), usd('100.00')), t0 + 100],
      [payInJournal(head('ord_1'), money('USDC', '5')), t0 + 200],
      [payoutHoldJournal(head('po_2'), usd('10.00')), t0 + 200],
      [payoutHoldJournal(head('po_1'), usd('10.00')), t0 + 200],
      [payoutReleaseJournal(head('po_1'), usd('10.00')), t0 + 300],
    ]);
  };
  const idsOf = (page: { items: readonly { journal_id: string }[] }) =>
    page.items.map((entry) => entry.journal_id);
  const ascending = [
    'dep_1:deposit',
    'ord_1:pay_in',
    'po_2:payout_hold',
    'po_1:payout_hold',
    'po_1:payout_release',
  ];

  test('entries sort by created_at then posting order, asc or desc (desc by default)', async (h) => {
    await history(h);
    assert.deepEqual(idsOf(await entries(h, { sort: 'asc' })), ascending);
    assert.deepEqual(idsOf(await entries(h, { sort: 'desc' })), [...ascending].reverse());
    assert.deepEqual(idsOf(await entries(h)), [...ascending].reverse());
  });

  test('within one second, asc replays the journals in the order they were posted, whatever their ids', async (h) => {
    // Posted in this order, all at t0 (the last one earlier), in separate units of work and in
    // one, with an aborted unit of work in between. Sorted by id they would read
    // dep_0, po_a hold, po_b payout, po_b fee, po_b hold, z_dep: the settlement before its hold.
    await post(h, depositJournal(head('z_dep'), usd('100.00')));
    await post(h, payoutHoldJournal(head('po_b'), usd('10.50')));
    await assert.rejects(
      h.store.transaction(async (tx) => {
        await tx.ledger.post(payoutHoldJournal(head('po_aborted'), usd('1.00')), t0);
        throw new Error('crash');
      }),
      /crash/,
    );
    await postAll(h, [
      ...payoutSettleJournals(head('po_b'), usd('10.00'), usd('0.50')).map((j) => [j, t0] as const),
      [payoutHoldJournal(head('po_a'), usd('5.00')), t0],
    ]);
    await post(h, depositJournal(head('dep_0'), usd('1.00')), t0 - 1);
    const posted = [
      'dep_0:deposit',
      'z_dep:deposit',
      'po_b:payout_hold',
      'po_b:payout',
      'po_b:payout_fee',
      'po_a:payout_hold',
    ];
    assert.deepEqual(idsOf(await entries(h, { sort: 'asc' })), posted);
    assert.deepEqual(idsOf(await entries(h, { sort: 'desc' })), [...posted].reverse());
    assert.deepEqual(
      idsOf(await entries(h, { sort: 'asc', limit: 3, offset: 2 })),
      posted.slice(2, 5),
    );
    assert.deepEqual(idsOf(await entries(h, { limit: 2, offset: 1 })), [
      'po_b:payout_fee',
      'po_b:payout',
    ]);
    const holds = await entries(h, { recordType: 'payout_hold', sort: 'asc' });
    assert.deepEqual(idsOf(holds), ['po_b:payout_hold', 'po_a:payout_hold']);
  });

  test('entries filter by currency and record type', async (h) => {
    await history(h);
    const usdc = await entries(h, { currency: 'USDC' as Currency });
    assert.deepEqual([idsOf(usdc), usdc.total], [['ord_1:pay_in'], 1]);
    const holds = await entries(h, { recordType: 'payout_hold', sort: 'asc' });
    assert.deepEqual([idsOf(holds), holds.total], [['po_2:payout_hold', 'po_1:payout_hold'], 2]);
    const usdHolds = await entries(h, { currency: 'USD', recordType: 'payout_release' });
    assert.deepEqual(idsOf(usdHolds), ['po_1:payout_release']);
  });

  test('entries bound created_at inclusively', async (h) => {
    await history(h);
    const middle = await entries(h, { createdFrom: t0 + 200, createdTo: t0 + 200, sort: 'asc' });
    assert.deepEqual(idsOf(middle), ascending.slice(1, 4));
    const late = await entries(h, { createdFrom: t0 + 300 });
    assert.deepEqual(idsOf(late), ['po_1:payout_release']);
    const early = await entries(h, { createdTo: t0 + 100 });
    assert.deepEqual(idsOf(early), ['dep_1:deposit']);
  });

  test('entries page with limit and offset; total counts every match', async (h) => {
    await history(h);
    const page = await entries(h, { sort: 'asc', limit: 2, offset: 2 });
    assert.deepEqual(idsOf(page), ascending.slice(2, 4));
    assert.deepEqual([page.total, page.limit, page.offset], [5, 2, 2]);
    const past = await entries(h, { limit: 2, offset: 5 });
    assert.deepEqual([past.items.length, past.total], [0, 5]);
  });
};
