/**
 * The ledger port: balanced journals only, each id once, no merchant bucket below zero, balances
 * that always equal the sum of the postings (read through the oracle), and the ledger records
 * list of the interface: one signed record per posting to a merchant bucket with the bucket's
 * `balance_after`, filters, created_at bounds, sort asc/desc in posting order, paging; a replay
 * of all records from zero reproduces every `balance_after` and ends at the balances, and a
 * filtered or paged list shows the same `balance_after` as the whole ledger.
 */
import assert from 'node:assert/strict';
import {
  balancesOf,
  type Currency,
  depositJournal,
  type Journal,
  type LedgerEntry,
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
import { allRecords, assertReplays, recordKey } from './ledger-replay.js';

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
          bucket: 'available',
          currency: 'USD',
          amount: '10.00',
          business_type: 'deposit',
          business_id: 'dep_1',
          balance_after: '10.00',
          created_at: t0 + 5,
        },
      ],
      total: 1,
      limit: 50,
      offset: 0,
    });
  });

  /** What a record says of money: its journal, bucket, signed amount and balance after. */
  const movementsOf = (page: { items: readonly LedgerEntry[] }) =>
    page.items.map((r) => [r.journal_id, r.bucket, r.amount, r.balance_after]);

  test('one signed record per bucket a journal moves: holds and releases move between available and held', async (h) => {
    await post(h, depositJournal(head('dep_1'), usd('100.00')), t0);
    await post(h, payoutHoldJournal(head('po_1'), usd('25.75')), t0 + 1);
    await postAll(
      h,
      payoutSettleJournals(head('po_1'), usd('25.00'), usd('0.75')).map(
        (j) => [j, t0 + 2] as const,
      ),
    );
    await post(h, payoutHoldJournal(head('po_2'), usd('10.60')), t0 + 3);
    await post(h, payoutReleaseJournal(head('po_2'), usd('10.60')), t0 + 4);
    await post(h, payInJournal(head('pay_1'), money('USDT', '30')), t0 + 5);
    assert.deepEqual(movementsOf(await entries(h, { sort: 'asc' })), [
      ['dep_1:deposit', 'available', '100.00', '100.00'],
      ['po_1:payout_hold', 'available', '-25.75', '74.25'],
      ['po_1:payout_hold', 'held', '25.75', '25.75'],
      ['po_1:payout', 'held', '-25.00', '0.75'],
      ['po_1:payout_fee', 'held', '-0.75', '0.00'],
      ['po_2:payout_hold', 'available', '-10.60', '63.65'],
      ['po_2:payout_hold', 'held', '10.60', '10.60'],
      ['po_2:payout_release', 'held', '-10.60', '0.00'],
      ['po_2:payout_release', 'available', '10.60', '74.25'],
      ['pay_1:pay_in', 'available', '30.000000', '30.000000'],
    ]);
    assert.deepEqual(await balances(h), [
      { currency: 'USD', available: '74.25', held: '0.00' },
      { currency: 'USDT', available: '30.000000', held: '0.000000' },
    ]);
    await assertReplays(h, account);
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
  const idsOf = (page: { items: readonly LedgerEntry[] }) => page.items.map(recordKey);
  const ascending = [
    'dep_1:deposit available',
    'ord_1:pay_in available',
    'po_2:payout_hold available',
    'po_2:payout_hold held',
    'po_1:payout_hold available',
    'po_1:payout_hold held',
    'po_1:payout_release held',
    'po_1:payout_release available',
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
      'dep_0:deposit available',
      'z_dep:deposit available',
      'po_b:payout_hold available',
      'po_b:payout_hold held',
      'po_b:payout held',
      'po_b:payout_fee held',
      'po_a:payout_hold available',
      'po_a:payout_hold held',
    ];
    assert.deepEqual(idsOf(await entries(h, { sort: 'asc' })), posted);
    assert.deepEqual(idsOf(await entries(h, { sort: 'desc' })), [...posted].reverse());
    assert.deepEqual(
      idsOf(await entries(h, { sort: 'asc', limit: 3, offset: 2 })),
      posted.slice(2, 5),
    );
    assert.deepEqual(idsOf(await entries(h, { limit: 2, offset: 1 })), [
      'po_a:payout_hold available',
      'po_b:payout_fee held',
    ]);
    const holds = await entries(h, { recordType: 'payout_hold', sort: 'asc' });
    assert.deepEqual(
      idsOf(holds),
      posted.filter((key) => key.includes(':payout_hold ')),
    );
    await assertReplays(h, account);
  });

  test('a journal posted with an earlier created_at than records already written: their balance_after include it', async (h) => {
    await post(h, depositJournal(head('dep_late'), usd('50.00')), t0 + 10);
    await post(h, payoutHoldJournal(head('po_1'), usd('20.00')), t0 + 20);
    // Written after them, dated before them: the ledger's order puts it first.
    await post(h, depositJournal(head('dep_early'), usd('5.00')), t0 + 5);
    await post(h, payoutHoldJournal(head('po_2'), usd('1.00')), t0 + 10);
    assert.deepEqual(movementsOf(await entries(h, { sort: 'asc' })), [
      ['dep_early:deposit', 'available', '5.00', '5.00'],
      ['dep_late:deposit', 'available', '50.00', '55.00'],
      ['po_2:payout_hold', 'available', '-1.00', '54.00'],
      ['po_2:payout_hold', 'held', '1.00', '1.00'],
      ['po_1:payout_hold', 'available', '-20.00', '34.00'],
      ['po_1:payout_hold', 'held', '20.00', '21.00'],
    ]);
    await assertReplays(h, account);
  });

  test('replaying every record from zero gives each balance_after and ends at the balances, per account and currency', async (h) => {
    const other = { accountId: 'acc_other', businessId: 'dep_o' };
    await postAll(h, [
      [depositJournal(head('dep_1'), usd('1000.00')), t0 + 30],
      [depositJournal(head('dep_2'), money('USDT', '12.345678')), t0 + 30],
      [depositJournal(other, usd('3.00')), t0 + 30],
      [payoutHoldJournal(head('po_1'), usd('101.01')), t0 + 31],
      [payoutHoldJournal(head('po_2'), money('USDT', '2.000001')), t0 + 31],
      [payoutHoldJournal({ ...other, businessId: 'po_o' }, usd('3.00')), t0 + 31],
    ]);
    await postAll(
      h,
      payoutSettleJournals(head('po_1'), usd('100.00'), usd('1.01')).map(
        (j) => [j, t0 + 32] as const,
      ),
    );
    await post(h, payoutReleaseJournal(head('po_2'), money('USDT', '2.000001')), t0 + 31);
    await post(h, payInJournal(head('pay_1'), money('USDC', '0.000001')), t0 + 29);
    await post(h, payoutHoldJournal(head('po_3'), usd('898.99')), t0 + 33);
    await assertRefused(
      post(h, payoutHoldJournal(head('po_4'), usd('0.01')), t0 + 33),
      'insufficient_balance',
    );
    assert.deepEqual(await balances(h), [
      { currency: 'USD', available: '0.00', held: '898.99' },
      { currency: 'USDC', available: '0.000001', held: '0.000000' },
      { currency: 'USDT', available: '12.345678', held: '0.000000' },
    ]);
    await assertReplays(h, account);
    await assertReplays(h, 'acc_other');
    assert.deepEqual(await allRecords(h, 'acc_none'), []);
  });

  test('a filtered or paged list shows each record with the balance_after of the whole ledger', async (h) => {
    await history(h);
    await postAll(
      h,
      payoutSettleJournals(head('po_2'), usd('9.50'), usd('0.50')).map(
        (j) => [j, t0 + 300] as const,
      ),
    );
    await post(h, depositJournal(head('dep_3'), money('USDC', '1')), t0 + 250);
    const whole = new Map((await allRecords(h, account)).map((r) => [recordKey(r), r]));
    const queries: Partial<LedgerQuery>[] = [
      { currency: 'USD' },
      { currency: 'USDC', sort: 'asc' },
      { recordType: 'payout_hold' },
      { recordType: 'payout_fee', currency: 'USD', sort: 'asc' },
      { createdFrom: t0 + 200, createdTo: t0 + 250 },
      { createdFrom: t0 + 300, sort: 'asc', limit: 2, offset: 1 },
      { sort: 'asc', limit: 3, offset: 4 },
      { limit: 1, offset: 0 },
    ];
    for (const query of queries) {
      const page = await entries(h, query);
      assert.ok(page.items.length > 0, `some records for ${JSON.stringify(query)}`);
      for (const record of page.items) {
        assert.deepEqual(record, whole.get(recordKey(record)), JSON.stringify(query));
      }
    }
    await assertReplays(h, account);
  });

  test('entries filter by currency and record type; total counts records', async (h) => {
    await history(h);
    const usdc = await entries(h, { currency: 'USDC' as Currency });
    assert.deepEqual([idsOf(usdc), usdc.total], [['ord_1:pay_in available'], 1]);
    const holds = await entries(h, { recordType: 'payout_hold', sort: 'asc' });
    assert.deepEqual([idsOf(holds), holds.total], [ascending.slice(2, 6), 4]);
    const usdReleases = await entries(h, { currency: 'USD', recordType: 'payout_release' });
    assert.deepEqual(idsOf(usdReleases), [
      'po_1:payout_release available',
      'po_1:payout_release held',
    ]);
  });

  test('entries bound created_at inclusively', async (h) => {
    await history(h);
    const middle = await entries(h, { createdFrom: t0 + 200, createdTo: t0 + 200, sort: 'asc' });
    assert.deepEqual(idsOf(middle), ascending.slice(1, 6));
    const late = await entries(h, { createdFrom: t0 + 300, sort: 'asc' });
    assert.deepEqual(idsOf(late), ascending.slice(6));
    const early = await entries(h, { createdTo: t0 + 100 });
    assert.deepEqual(idsOf(early), ['dep_1:deposit available']);
  });

  test('entries filter by bucket, with the other filters; total counts the bucket only', async (h) => {
    await history(h);
    const held = await entries(h, { bucket: 'held', sort: 'asc' });
    assert.deepEqual(
      [idsOf(held), held.total],
      [ascending.filter((key) => key.endsWith(' held')), 3],
    );
    const lastAvailable = await entries(h, {
      bucket: 'available',
      currency: 'USD',
      createdTo: t0 + 250,
      limit: 1,
    });
    assert.deepEqual(
      [idsOf(lastAvailable), lastAvailable.items[0]?.balance_after, lastAvailable.total],
      [['po_1:payout_hold available'], '80.00', 3],
    );
    const none = await entries(h, { bucket: 'held', createdTo: t0 + 100 });
    assert.deepEqual([none.items, none.total], [[], 0]);
  });

  test('entries page with limit and offset; total counts every match', async (h) => {
    await history(h);
    const page = await entries(h, { sort: 'asc', limit: 2, offset: 2 });
    assert.deepEqual(idsOf(page), ascending.slice(2, 4));
    assert.deepEqual([page.total, page.limit, page.offset], [8, 2, 2]);
    const past = await entries(h, { limit: 2, offset: 8 });
    assert.deepEqual([past.items.length, past.total], [0, 8]);
  });
};
