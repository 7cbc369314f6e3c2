import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeFee, feeExceedsAmount, payoutCharges } from '../money/fees.js';
import { type Currency, currencies, Decimal, type Money, money, scaleOf } from '../money/money.js';
import {
  balancesOf,
  depositJournal,
  isBalanced,
  type Journal,
  keepsBalancesNonNegative,
  type Posting,
  payInJournal,
  payoutHoldJournal,
  payoutReleaseJournal,
  payoutReturnJournal,
  payoutSettleJournals,
  type RecordType,
  withdrawalJournal,
} from './ledger.js';

const accounts = ['acc_a', 'acc_b'] as const;

const fromMinor = (minor: bigint, currency: Currency): Money => {
  const scale = scaleOf(currency);
  const digits = minor.toString().padStart(scale + 1, '0');
  return money(currency, `${digits.slice(0, -scale)}.${digits.slice(-scale)}`);
};

type Credit = { account: number; currency: Currency; minor: bigint };
type Command =
  | ({ kind: 'deposit' } & Credit)
  | ({ kind: 'payIn' } & Credit)
  | ({ kind: 'withdrawal' } & Credit)
  | {
      kind: 'hold';
      account: number;
      currency: Currency;
      minor: bigint;
      percent: string;
      fixedMinor: bigint;
      bearer: 'merchant' | 'user';
    }
  | { kind: 'settle'; pick: number }
  | { kind: 'release'; pick: number }
  | { kind: 'return'; pick: number };

const amount = fc.bigInt({ min: 1n, max: 10n ** 12n });
const base = { account: fc.nat(accounts.length - 1), currency: fc.constantFrom(...currencies) };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('deposit' as const), ...base, minor: amount }),
  fc.record({ kind: fc.constant('payIn' as const), ...base, minor: amount }),
  fc.record({ kind: fc.constant('withdrawal' as const), ...base, minor: amount }),
  fc.record({
    kind: fc.constant('hold' as const),
    ...base,
    minor: amount,
    percent: fc.constantFrom('0', '1.5', '2', '0.25'),
    fixedMinor: fc.bigInt({ min: 0n, max: 10n ** 6n }),
    bearer: fc.constantFrom('merchant' as const, 'user' as const),
  }),
  fc.record({ kind: fc.constant('settle' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('return' as const), pick: fc.nat() }),
);

interface PayoutRecord {
  readonly head: { readonly accountId: string; readonly businessId: string };
  readonly debit: Money;
  readonly sent: Money;
  readonly fee: Money;
}

/**
 * A tiny store: posts a journal only when it keeps merchant buckets non-negative, as a real
 * store does inside its unit of work. Settle and release may name any payout, held or not, or
 * already finished: the guard alone must keep the books sound.
 */
const run = (commands: readonly Command[]) => {
  const postings: Posting[] = [];
  const posted: Journal[] = [];
  const payouts: PayoutRecord[] = [];
  const current = (ledgerAccount: string, currency: Currency) =>
    postings
      .filter((p) => p.ledgerAccount === ledgerAccount && p.currency === currency)
      .reduce((total, p) => total.plus(p.amount), new Decimal(0));
  const post = (journal: Journal) => {
    if (!keepsBalancesNonNegative(journal, current)) return;
    postings.push(...journal.postings);
    posted.push(journal);
  };
  const snapshots: { postings: readonly Posting[]; posted: readonly Journal[] }[] = [];
  commands.forEach((c, i) => {
    if (c.kind === 'deposit' || c.kind === 'payIn' || c.kind === 'withdrawal') {
      const head = { accountId: accounts[c.account] ?? 'acc_a', businessId: `b${i}` };
      const build = { deposit: depositJournal, payIn: payInJournal, withdrawal: withdrawalJournal }[
        c.kind
      ];
      post(build(head, fromMinor(c.minor, c.currency)));
    } else if (c.kind === 'hold') {
      const value = fromMinor(c.minor, c.currency);
      const fixed = fromMinor(c.fixedMinor, c.currency).value.toFixed();
      const fee = computeFee(value, { fixed, percent: c.percent });
      // The engine refuses such a payout (amount must be greater than fee when fee_bearer is user).
      if (c.bearer === 'user' && feeExceedsAmount(value, fee)) return;
      const charges = payoutCharges(value, fee, c.bearer);
      const head = { accountId: accounts[c.account] ?? 'acc_a', businessId: `po${i}` };
      payouts.push({ head, debit: charges.debit, sent: charges.credit, fee });
      post(payoutHoldJournal(head, charges.debit));
    } else {
      const p = payouts[c.pick % Math.max(payouts.length, 1)];
      if (p === undefined) return;
      if (c.kind === 'release') post(payoutReleaseJournal(p.head, p.debit));
      else if (c.kind === 'return') post(payoutReturnJournal(p.head, p.sent));
      else for (const j of payoutSettleJournals(p.head, p.sent, p.fee)) post(j);
    }
    snapshots.push({ postings: [...postings], posted: [...posted] });
  });
  return snapshots;
};

const contributions: Record<RecordType, 1 | -1 | 0> = {
  deposit: 1,
  pay_in: 1,
  payout_hold: 0,
  payout_release: 0,
  payout: -1,
  payout_fee: -1,
  payout_return: 1,
  refund_hold: 0,
  refund_release: 0,
  refund: -1,
  withdrawal: -1,
};

describe('ledger properties over random movement sequences', () => {
  it('keeps merchant buckets non-negative, each currency summing to zero, and money accounted', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        for (const { postings, posted } of run(commands)) {
          for (const journal of posted) expect(isBalanced(journal)).toBe(true);

          for (const currency of currencies) {
            const total = postings
              .filter((p) => p.currency === currency)
              .reduce((sum, p) => sum.plus(p.amount), new Decimal(0));
            expect(total.isZero(), `postings of ${currency} net to ${total}`).toBe(true);
          }

          for (const accountId of accounts) {
            for (const balance of balancesOf(accountId, postings)) {
              const availableAmount = new Decimal(balance.available);
              const heldAmount = new Decimal(balance.held);
              expect(availableAmount.isNegative() && !availableAmount.isZero()).toBe(false);
              expect(heldAmount.isNegative() && !heldAmount.isZero()).toBe(false);

              const expected = posted
                .filter((j) => j.accountId === accountId && j.currency === balance.currency)
                .reduce(
                  (sum, j) => sum.plus(new Decimal(j.amount).times(contributions[j.recordType])),
                  new Decimal(0),
                );
              expect(availableAmount.plus(heldAmount).toFixed()).toBe(expected.toFixed());
            }
          }
        }
      }),
    );
  });

  it('a hold takes at most what is available: the second hold of a fully held balance is refused', () => {
    fc.assert(
      fc.property(amount, fc.constantFrom(...currencies), (minor, currency) => {
        const wire = (m: Money) => m.value.toFixed(scaleOf(currency));
        const snapshots = run([
          { kind: 'deposit', account: 0, currency, minor },
          {
            kind: 'hold',
            account: 0,
            currency,
            minor,
            percent: '0',
            fixedMinor: 0n,
            bearer: 'merchant',
          },
          {
            kind: 'hold',
            account: 0,
            currency,
            minor,
            percent: '0',
            fixedMinor: 0n,
            bearer: 'merchant',
          },
        ]);
        const last = snapshots.at(-1);
        expect(last?.posted.map((j) => j.recordType)).toEqual(['deposit', 'payout_hold']);
        expect(balancesOf('acc_a', last?.postings ?? [])).toEqual([
          {
            currency,
            available: wire(fromMinor(0n, currency)),
            held: wire(fromMinor(minor, currency)),
          },
        ]);
      }),
    );
  });
});
