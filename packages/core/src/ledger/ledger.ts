/**
 * The double-entry ledger. Every money movement is a journal of postings that nets to zero per
 * currency; balances are never stored, only derived from postings. A merchant account has two
 * buckets per currency, `available` and `held`; the other side of every journal is one of the
 * platform's own accounts, so the books of the whole service always balance.
 */
import { type Currency, Decimal, formatAmount, type Money, negate } from '../money/money.js';

/** The movement classes of ledger records (the interface's `record_type`). */
export const recordTypes = [
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
] as const;
export type RecordType = (typeof recordTypes)[number];

/** A merchant account's two buckets per currency: spendable, and held for payouts in execution. */
export const merchantBuckets = ['available', 'held'] as const;
export type MerchantBucket = (typeof merchantBuckets)[number];

/**
 * The platform's side of journals: where deposits come from (and withdrawals go back to), where
 * payouts and fees go to.
 */
export const platformAccounts = {
  funding: 'platform:funding',
  payoutClearing: 'platform:payout_clearing',
  feeRevenue: 'platform:fee_revenue',
  payInClearing: 'platform:pay_in_clearing',
} as const;

export const merchantLedgerAccount = (accountId: string, bucket: MerchantBucket): string =>
  `merchant:${accountId}:${bucket}`;

const merchantAccountPattern = /^merchant:(.+):(available|held)$/;

/** The merchant account and bucket a ledger account is; `undefined` for the platform's own. */
export const merchantBucketOf = (
  ledgerAccount: string,
): { readonly accountId: string; readonly bucket: MerchantBucket } | undefined => {
  const match = merchantAccountPattern.exec(ledgerAccount);
  const accountId = match?.[1];
  const bucket = match?.[2];
  if (accountId === undefined || (bucket !== 'available' && bucket !== 'held')) return undefined;
  return { accountId, bucket };
};

export interface Posting {
  /** `merchant:<account_id>:available|held` or one of `platformAccounts`. */
  readonly ledgerAccount: string;
  readonly currency: Currency;
  /** Signed decimal string at the currency's scale; credits to the merchant are positive. */
  readonly amount: string;
}

export interface Journal {
  /** Deterministic per business object and movement, so posting the same movement twice is
   *  detectable (a store keeps journal ids unique). */
  readonly journalId: string;
  readonly recordType: RecordType;
  readonly accountId: string;
  readonly currency: Currency;
  /** The merchant-visible amount of the movement (positive). */
  readonly amount: string;
  readonly businessType: 'payout' | 'acquiring' | 'acquiring_refund' | 'deposit' | 'withdrawal';
  readonly businessId: string;
  readonly postings: readonly Posting[];
}

const posting = (ledgerAccount: string, amount: Money): Posting => ({
  ledgerAccount,
  currency: amount.currency,
  amount: formatAmount(amount),
});

interface JournalHead {
  readonly accountId: string;
  readonly businessId: string;
}

const journal = (
  recordType: RecordType,
  businessType: Journal['businessType'],
  head: JournalHead,
  amount: Money,
  postings: readonly Posting[],
): Journal => ({
  journalId: `${head.businessId}:${recordType}`,
  recordType,
  accountId: head.accountId,
  currency: amount.currency,
  amount: formatAmount(amount),
  businessType,
  businessId: head.businessId,
  postings,
});

/** Funds arrive from outside: available goes up. */
export const depositJournal = (head: JournalHead, amount: Money): Journal =>
  journal('deposit', 'deposit', head, amount, [
    posting(merchantLedgerAccount(head.accountId, 'available'), amount),
    posting(platformAccounts.funding, negate(amount)),
  ]);

/** Execution starts: the payout's debit moves from available to held. */
export const payoutHoldJournal = (head: JournalHead, debit: Money): Journal =>
  journal('payout_hold', 'payout', head, debit, [
    posting(merchantLedgerAccount(head.accountId, 'available'), negate(debit)),
    posting(merchantLedgerAccount(head.accountId, 'held'), debit),
  ]);

/** Execution failed (or was cancelled after a hold): the hold goes back to available. */
export const payoutReleaseJournal = (head: JournalHead, debit: Money): Journal =>
  journal('payout_release', 'payout', head, debit, [
    posting(merchantLedgerAccount(head.accountId, 'held'), negate(debit)),
    posting(merchantLedgerAccount(head.accountId, 'available'), debit),
  ]);

/**
 * Execution completed: the hold becomes two debits, the amount sent (`payout`) and the fee
 * (`payout_fee`). Together they take exactly what the hold took; a zero fee posts no fee
 * journal.
 */
export const payoutSettleJournals = (
  head: JournalHead,
  sent: Money,
  fee: Money,
): readonly Journal[] => {
  const held = merchantLedgerAccount(head.accountId, 'held');
  const settle = journal('payout', 'payout', head, sent, [
    posting(held, negate(sent)),
    posting(platformAccounts.payoutClearing, sent),
  ]);
  if (fee.value.isZero()) return [settle];
  return [
    settle,
    journal('payout_fee', 'payout', head, fee, [
      posting(held, negate(fee)),
      posting(platformAccounts.feeRevenue, fee),
    ]),
  ];
};

/**
 * A completed payout came back (the bank or wallet bounced it, ADR 0043): the amount sent returns
 * from the payout clearing to the merchant's available balance; the fee stays charged. Keyed by
 * the payout, so a payout returns at most once.
 */
export const payoutReturnJournal = (head: JournalHead, sent: Money): Journal =>
  journal('payout_return', 'payout', head, sent, [
    posting(platformAccounts.payoutClearing, negate(sent)),
    posting(merchantLedgerAccount(head.accountId, 'available'), sent),
  ]);

/** A confirmed crypto payment credits the merchant's available balance in its token currency. */
export const payInJournal = (head: JournalHead, amount: Money): Journal =>
  journal('pay_in', 'acquiring', head, amount, [
    posting(merchantLedgerAccount(head.accountId, 'available'), amount),
    posting(platformAccounts.payInClearing, negate(amount)),
  ]);

/**
 * A refund of a pay-in is requested (ADR 0044): what it sends back moves from available to held,
 * so the merchant cannot spend it while the refund is reviewed and executed.
 */
export const refundHoldJournal = (head: JournalHead, amount: Money): Journal =>
  journal('refund_hold', 'acquiring_refund', head, amount, [
    posting(merchantLedgerAccount(head.accountId, 'available'), negate(amount)),
    posting(merchantLedgerAccount(head.accountId, 'held'), amount),
  ]);

/** The refund was rejected or failed: the hold goes back to available. */
export const refundReleaseJournal = (head: JournalHead, amount: Money): Journal =>
  journal('refund_release', 'acquiring_refund', head, amount, [
    posting(merchantLedgerAccount(head.accountId, 'held'), negate(amount)),
    posting(merchantLedgerAccount(head.accountId, 'available'), amount),
  ]);

/**
 * The refund was sent: the hold leaves for the payer, back the way the pay-in came (the pay-in
 * clearing), so a refunded payment nets to zero there.
 */
export const refundJournal = (head: JournalHead, amount: Money): Journal =>
  journal('refund', 'acquiring_refund', head, amount, [
    posting(merchantLedgerAccount(head.accountId, 'held'), negate(amount)),
    posting(platformAccounts.payInClearing, amount),
  ]);

/**
 * One posting of a journal to a merchant bucket: what a merchant's ledger record is. A journal
 * has one per merchant bucket it moves (a hold two: available down, held up; a deposit one).
 */
export interface MerchantPosting {
  /** The posting's index in `journal.postings`: its order within the journal. */
  readonly position: number;
  readonly accountId: string;
  readonly bucket: MerchantBucket;
  readonly currency: Currency;
  /** Signed, at the currency's scale: into the bucket positive, out of it negative. */
  readonly amount: string;
}

/** The journal's postings to merchant buckets, in posting order. */
export const merchantPostingsOf = (
  journal: Pick<Journal, 'postings'>,
): readonly MerchantPosting[] =>
  journal.postings.flatMap((p, position) => {
    const owner = merchantBucketOf(p.ledgerAccount);
    return owner === undefined
      ? []
      : [{ position, ...owner, currency: p.currency, amount: p.amount }];
  });

/**
 * A treasury withdrawal completed: funds leave available for the merchant's own account
 * outside. Nothing in the engine creates withdrawals; a host that records one (a `withdrawals`
 * record, `completed`) posts this journal in the same unit of work, with the record's id as
 * the business id, so the withdrawals list and the ledger agree.
 */
export const withdrawalJournal = (head: JournalHead, amount: Money): Journal =>
  journal('withdrawal', 'withdrawal', head, amount, [
    posting(merchantLedgerAccount(head.accountId, 'available'), negate(amount)),
    posting(platformAccounts.funding, amount),
  ]);

/** Whether every currency of a journal nets to zero. */
export const isBalanced = (journal: Pick<Journal, 'postings'>): boolean => {
  const totals = new Map<Currency, Decimal>();
  for (const p of journal.postings) {
    totals.set(p.currency, (totals.get(p.currency) ?? new Decimal(0)).plus(p.amount));
  }
  return [...totals.values()].every((total) => total.isZero());
};

export interface Balance {
  readonly currency: Currency;
  readonly available: string;
  readonly held: string;
}

/**
 * The balances of one merchant account, derived from postings. Currencies appear in the order
 * of their first posting.
 */
export const balancesOf = (accountId: string, postings: Iterable<Posting>): readonly Balance[] => {
  const available = merchantLedgerAccount(accountId, 'available');
  const held = merchantLedgerAccount(accountId, 'held');
  const totals = new Map<Currency, { available: Decimal; held: Decimal }>();
  for (const p of postings) {
    if (p.ledgerAccount !== available && p.ledgerAccount !== held) continue;
    const current = totals.get(p.currency) ?? { available: new Decimal(0), held: new Decimal(0) };
    const bucket = p.ledgerAccount === available ? 'available' : 'held';
    totals.set(p.currency, { ...current, [bucket]: current[bucket].plus(p.amount) });
  }
  return [...totals].map(([currency, t]) => ({
    currency,
    available: formatAmount({ currency, value: t.available }),
    held: formatAmount({ currency, value: t.held }),
  }));
};

/**
 * Whether applying `journal` keeps every merchant bucket it touches at zero or above, given the
 * current balance of each ledger account. Stores call this inside the unit of work that posts.
 */
export const keepsBalancesNonNegative = (
  journal: Pick<Journal, 'postings'>,
  current: (ledgerAccount: string, currency: Currency) => Decimal,
): boolean => {
  // A journal is atomic: judge each bucket after all of its postings, not posting by posting.
  const after = new Map<string, Decimal>();
  for (const p of journal.postings) {
    if (!p.ledgerAccount.startsWith('merchant:')) continue;
    const key = `${p.ledgerAccount}\u0000${p.currency}`;
    after.set(key, (after.get(key) ?? current(p.ledgerAccount, p.currency)).plus(p.amount));
  }
  return [...after.values()].every((balance) => balance.greaterThanOrEqualTo(0));
};
