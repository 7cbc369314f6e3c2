import { describe, expect, it } from 'vitest';
import { type Currency, Decimal, money } from '../money/money.js';
import {
  balancesOf,
  depositJournal,
  isBalanced,
  type Journal,
  keepsBalancesNonNegative,
  merchantBucketOf,
  merchantLedgerAccount,
  merchantPostingsOf,
  type Posting,
  payInJournal,
  payoutHoldJournal,
  payoutReleaseJournal,
  payoutSettleJournals,
  platformAccounts,
  recordTypes,
  withdrawalJournal,
} from './ledger.js';

const head = { accountId: 'acc_1', businessId: 'po_1' };
const available = merchantLedgerAccount('acc_1', 'available');
const held = merchantLedgerAccount('acc_1', 'held');

const currentFrom =
  (postings: readonly Posting[]) =>
  (ledgerAccount: string, currency: Currency): Decimal =>
    postings
      .filter((p) => p.ledgerAccount === ledgerAccount && p.currency === currency)
      .reduce((total, p) => total.plus(p.amount), new Decimal(0));

describe('ledger accounts and record types', () => {
  it('names merchant buckets per account', () => {
    expect(available).toBe('merchant:acc_1:available');
    expect(held).toBe('merchant:acc_1:held');
  });

  it('knows the movement classes of the ledger records', () => {
    expect(recordTypes).toEqual([
      'deposit',
      'payout_hold',
      'payout_release',
      'payout',
      'payout_fee',
      'payout_return',
      'pay_in',
      'refund_hold',
      'refund_release',
      'refund',
      'withdrawal',
    ]);
  });

  it('reads the merchant and bucket back from a merchant ledger account, none from the platform', () => {
    expect(merchantBucketOf(available)).toEqual({ accountId: 'acc_1', bucket: 'available' });
    expect(merchantBucketOf(merchantLedgerAccount('acc:odd', 'held'))).toEqual({
      accountId: 'acc:odd',
      bucket: 'held',
    });
    for (const account of [...Object.values(platformAccounts), 'merchant:acc_1:other', 'x']) {
      expect(merchantBucketOf(account), account).toBeUndefined();
    }
  });
});

describe('merchantPostingsOf: the ledger records of a journal', () => {
  it('one signed record per merchant posting, in posting order, with its position', () => {
    expect(merchantPostingsOf(payoutHoldJournal(head, money('USD', '25.75')))).toEqual([
      { position: 0, accountId: 'acc_1', bucket: 'available', currency: 'USD', amount: '-25.75' },
      { position: 1, accountId: 'acc_1', bucket: 'held', currency: 'USD', amount: '25.75' },
    ]);
    const [settle, fee] = payoutSettleJournals(head, money('USD', '25'), money('USD', '0.75'));
    expect([settle, fee].flatMap((j) => (j === undefined ? [] : merchantPostingsOf(j)))).toEqual([
      { position: 0, accountId: 'acc_1', bucket: 'held', currency: 'USD', amount: '-25.00' },
      { position: 0, accountId: 'acc_1', bucket: 'held', currency: 'USD', amount: '-0.75' },
    ]);
    expect(merchantPostingsOf(payInJournal(head, money('USDT', '3')))).toEqual([
      {
        position: 0,
        accountId: 'acc_1',
        bucket: 'available',
        currency: 'USDT',
        amount: '3.000000',
      },
    ]);
  });
});

describe('journal builders', () => {
  it('deposit: available goes up against platform funding', () => {
    const j = depositJournal({ accountId: 'acc_1', businessId: 'dep_1' }, money('USD', '50'));
    expect(j).toEqual({
      journalId: 'dep_1:deposit',
      recordType: 'deposit',
      accountId: 'acc_1',
      currency: 'USD',
      amount: '50.00',
      businessType: 'deposit',
      businessId: 'dep_1',
      postings: [
        { ledgerAccount: available, currency: 'USD', amount: '50.00' },
        { ledgerAccount: platformAccounts.funding, currency: 'USD', amount: '-50.00' },
      ],
    } satisfies Journal);
  });

  it('hold: the debit moves from available to held', () => {
    const j = payoutHoldJournal(head, money('USD', '102'));
    expect(j).toMatchObject({
      journalId: 'po_1:payout_hold',
      businessType: 'payout',
      amount: '102.00',
    });
    expect(j.postings).toEqual([
      { ledgerAccount: available, currency: 'USD', amount: '-102.00' },
      { ledgerAccount: held, currency: 'USD', amount: '102.00' },
    ]);
  });

  it('release: the hold goes back to available', () => {
    const j = payoutReleaseJournal(head, money('USD', '102'));
    expect(j.journalId).toBe('po_1:payout_release');
    expect(j.postings).toEqual([
      { ledgerAccount: held, currency: 'USD', amount: '-102.00' },
      { ledgerAccount: available, currency: 'USD', amount: '102.00' },
    ]);
  });

  it('settle: the hold becomes a payout debit and a fee debit', () => {
    const journals = payoutSettleJournals(head, money('USD', '100'), money('USD', '2'));
    expect(journals.map((j) => [j.journalId, j.recordType, j.amount])).toEqual([
      ['po_1:payout', 'payout', '100.00'],
      ['po_1:payout_fee', 'payout_fee', '2.00'],
    ]);
    expect(journals.flatMap((j) => j.postings)).toEqual([
      { ledgerAccount: held, currency: 'USD', amount: '-100.00' },
      { ledgerAccount: platformAccounts.payoutClearing, currency: 'USD', amount: '100.00' },
      { ledgerAccount: held, currency: 'USD', amount: '-2.00' },
      { ledgerAccount: platformAccounts.feeRevenue, currency: 'USD', amount: '2.00' },
    ]);
  });

  it('settle with a zero fee posts no fee journal', () => {
    const journals = payoutSettleJournals(head, money('USDT', '5'), money('USDT', '0'));
    expect(journals.map((j) => j.recordType)).toEqual(['payout']);
  });

  it('pay-in: a confirmed payment credits available in the token currency', () => {
    const j = payInJournal({ accountId: 'acc_1', businessId: 'ord_1' }, money('USDT', '12.5'));
    expect(j).toMatchObject({
      journalId: 'ord_1:pay_in',
      businessType: 'acquiring',
      currency: 'USDT',
      amount: '12.500000',
    });
    expect(j.postings).toEqual([
      { ledgerAccount: available, currency: 'USDT', amount: '12.500000' },
      { ledgerAccount: platformAccounts.payInClearing, currency: 'USDT', amount: '-12.500000' },
    ]);
  });

  it('withdrawal: available goes down, back to platform funding', () => {
    const j = withdrawalJournal({ accountId: 'acc_1', businessId: 'wd_1' }, money('USDT', '100'));
    expect(j).toMatchObject({
      journalId: 'wd_1:withdrawal',
      recordType: 'withdrawal',
      businessType: 'withdrawal',
      amount: '100.000000',
    });
    expect(j.postings).toEqual([
      { ledgerAccount: available, currency: 'USDT', amount: '-100.000000' },
      { ledgerAccount: platformAccounts.funding, currency: 'USDT', amount: '100.000000' },
    ]);
  });

  it('every builder yields balanced journals', () => {
    const journals = [
      depositJournal(head, money('USD', '10.01')),
      payoutHoldJournal(head, money('USD', '10.01')),
      payoutReleaseJournal(head, money('USD', '10.01')),
      ...payoutSettleJournals(head, money('USDC', '9.999999'), money('USDC', '0.000001')),
      payInJournal(head, money('USDT', '0.000001')),
      withdrawalJournal(head, money('USD', '0.01')),
    ];
    for (const j of journals) expect(isBalanced(j), j.journalId).toBe(true);
  });
});

describe('isBalanced', () => {
  it('refuses a journal that does not net to zero', () => {
    expect(
      isBalanced({
        postings: [
          { ledgerAccount: available, currency: 'USD', amount: '1.00' },
          { ledgerAccount: platformAccounts.funding, currency: 'USD', amount: '-0.99' },
        ],
      }),
    ).toBe(false);
  });

  it('balances each currency separately: USD cannot pay for USDT', () => {
    expect(
      isBalanced({
        postings: [
          { ledgerAccount: available, currency: 'USD', amount: '1.00' },
          { ledgerAccount: platformAccounts.funding, currency: 'USDT', amount: '-1.000000' },
        ],
      }),
    ).toBe(false);
    expect(isBalanced({ postings: [] })).toBe(true);
  });
});

describe('balancesOf', () => {
  it('derives available and held per currency from postings, in order of first posting', () => {
    const postings = [
      ...payInJournal({ accountId: 'acc_1', businessId: 'ord_1' }, money('USDT', '7')).postings,
      ...depositJournal({ accountId: 'acc_1', businessId: 'dep_1' }, money('USD', '150')).postings,
      ...payoutHoldJournal(head, money('USD', '102')).postings,
      ...depositJournal({ accountId: 'acc_2', businessId: 'dep_2' }, money('USD', '999')).postings,
    ];
    expect(balancesOf('acc_1', postings)).toEqual([
      { currency: 'USDT', available: '7.000000', held: '0.000000' },
      { currency: 'USD', available: '48.00', held: '102.00' },
    ]);
    expect(balancesOf('acc_2', postings)).toEqual([
      { currency: 'USD', available: '999.00', held: '0.00' },
    ]);
  });

  it('a settled payout leaves available reduced and held empty', () => {
    const postings = [
      ...depositJournal({ accountId: 'acc_1', businessId: 'dep_1' }, money('USD', '150')).postings,
      ...payoutHoldJournal(head, money('USD', '102')).postings,
      ...payoutSettleJournals(head, money('USD', '100'), money('USD', '2')).flatMap(
        (j) => j.postings,
      ),
    ];
    expect(balancesOf('acc_1', postings)).toEqual([
      { currency: 'USD', available: '48.00', held: '0.00' },
    ]);
  });

  it('an account without postings has no balances', () => {
    expect(balancesOf('acc_9', [])).toEqual([]);
  });
});

describe('keepsBalancesNonNegative', () => {
  const funded = depositJournal(
    { accountId: 'acc_1', businessId: 'dep_1' },
    money('USD', '100'),
  ).postings;

  it('allows a hold up to the available balance', () => {
    expect(
      keepsBalancesNonNegative(payoutHoldJournal(head, money('USD', '100')), currentFrom(funded)),
    ).toBe(true);
  });

  it('refuses a hold above the available balance', () => {
    expect(
      keepsBalancesNonNegative(
        payoutHoldJournal(head, money('USD', '100.01')),
        currentFrom(funded),
      ),
    ).toBe(false);
  });

  it('refuses a release or settle of more than is held', () => {
    expect(
      keepsBalancesNonNegative(payoutReleaseJournal(head, money('USD', '1')), currentFrom(funded)),
    ).toBe(false);
    const [settle] = payoutSettleJournals(head, money('USD', '1'), money('USD', '0'));
    expect(settle && keepsBalancesNonNegative(settle, currentFrom(funded))).toBe(false);
  });

  it('judges the bucket after all of its postings in the journal, not each posting alone', () => {
    const twice = {
      postings: [
        { ledgerAccount: available, currency: 'USD' as const, amount: '-60.00' },
        { ledgerAccount: available, currency: 'USD' as const, amount: '-60.00' },
        {
          ledgerAccount: platformAccounts.payoutClearing,
          currency: 'USD' as const,
          amount: '120.00',
        },
      ],
    };
    expect(keepsBalancesNonNegative(twice, currentFrom(funded))).toBe(false);
    const outThenIn = {
      postings: [
        { ledgerAccount: available, currency: 'USD' as const, amount: '-150.00' },
        { ledgerAccount: available, currency: 'USD' as const, amount: '60.00' },
        { ledgerAccount: platformAccounts.funding, currency: 'USD' as const, amount: '90.00' },
      ],
    };
    expect(keepsBalancesNonNegative(outThenIn, currentFrom(funded))).toBe(true);
  });

  it('lets platform accounts go negative: they are the other side of every movement', () => {
    expect(keepsBalancesNonNegative(depositJournal(head, money('USD', '5')), currentFrom([]))).toBe(
      true,
    );
  });
});
