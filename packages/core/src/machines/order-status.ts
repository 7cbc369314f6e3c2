/**
 * Acquiring order status as a pure function of its payment records (docs/spec/decisions.md §4), and the
 * payment records themselves: what upstream providers report, normalised into one closed set of
 * observations, merged by a join so duplicates and reordering change nothing.
 */
import * as t from 'io-ts';
import { codecOf, fail } from '../codecs/codec-toolkit.js';
import { payrailError } from '../errors/error-catalogue.js';
import { type CryptoCurrency, Decimal, isDecimalString } from '../money/money.js';
import {
  type ChainNetwork,
  isPayTokenId,
  type PayTokenId,
  payTokens,
} from '../money/pay-tokens.js';

/** Order statuses: the interface's seven plus `closed` (docs/spec/decisions.md §4, close). */
export const orderStatuses = [
  'pending',
  'processing',
  'confirming',
  'partial_paid',
  'completed',
  'underpaid',
  'expired',
  'closed',
] as const;
export type OrderStatus = (typeof orderStatuses)[number];

/** Statuses an order never leaves. */
export const finalOrderStatuses = ['completed', 'underpaid', 'expired', 'closed'] as const;
export type FinalOrderStatus = (typeof finalOrderStatuses)[number];

export const isFinalOrderStatus = (status: OrderStatus): status is FinalOrderStatus =>
  finalOrderStatuses.some((final) => final === status);

/** Payment record statuses of the interface; `late` means paid after expiry or close. */
export const paymentStatuses = [
  'pending',
  'processing',
  'confirming',
  'completed',
  'failed',
  'late',
  'expired',
] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

/**
 * Where a payment stands on chain, whatever its order: the lattice the join climbs.
 * processing < confirming < failed < completed. `failed` absorbs the in-flight steps; a
 * confirmation still beats it, because confirmed money that arrived must never be lost.
 */
export const chainStatuses = ['processing', 'confirming', 'failed', 'completed'] as const;
export type ChainStatus = (typeof chainStatuses)[number];

const chainRank = (status: ChainStatus): number => chainStatuses.indexOf(status);

/** The closed set of provider event kinds every upstream adapter normalises into. */
export const providerEventKinds = ['detected', 'confirming', 'confirmed', 'failed'] as const;
export type ProviderEventKind = (typeof providerEventKinds)[number];

/** Where each normalised provider event puts its payment on chain. */
const chainStatusByKind: Readonly<Record<ProviderEventKind, ChainStatus>> = {
  detected: 'processing',
  confirming: 'confirming',
  confirmed: 'completed',
  failed: 'failed',
};

const chainStatusOf = (kind: ProviderEventKind): ChainStatus => chainStatusByKind[kind];

/** Token amounts (pay_amount and everything paid) carry the stablecoins' scale: 6 decimals. */
const payAmountScale = 6;

const PayAmount = codecOf<string>(
  'PayAmount',
  (u): u is string => isDecimalString(u, payAmountScale) && new Decimal(u).greaterThan(0),
  (u, c) =>
    isDecimalString(u, payAmountScale) && new Decimal(u).greaterThan(0)
      ? t.success(u)
      : fail(u, c, payrailError('invalid_decimal', { field: 'amount', scale: payAmountScale })),
);

const TokenId = codecOf<PayTokenId>('PayTokenId', isPayTokenId, (u, c) =>
  isPayTokenId(u) ? t.success(u) : t.failure(u, c),
);

const isNonNegativeInt = (u: unknown): u is number =>
  typeof u === 'number' && Number.isSafeInteger(u) && u >= 0;
const NonNegativeInt = codecOf<number>('NonNegativeInt', isNonNegativeInt, (u, c) =>
  isNonNegativeInt(u) ? t.success(u) : t.failure(u, c),
);

const isNonEmptyString = (u: unknown): u is string => typeof u === 'string' && u.length > 0;
const NonEmptyString = codecOf<string>('NonEmptyString', isNonEmptyString, (u, c) =>
  isNonEmptyString(u) ? t.success(u) : t.failure(u, c),
);

/**
 * A provider's payment event after its adapter normalised it. Every provider speaks through this
 * one shape, so the order machine knows nothing about providers.
 */
export const ProviderPaymentEvent = t.readonly(
  t.type({
    kind: t.keyof({ detected: null, confirming: null, confirmed: null, failed: null }),
    payment_id: NonEmptyString,
    token_id: TokenId,
    address: t.string,
    amount: PayAmount,
    tx_hash: t.string,
    confirmations: NonNegativeInt,
    required_confirmations: NonNegativeInt,
  }),
);
export type ProviderPaymentEvent = t.TypeOf<typeof ProviderPaymentEvent>;

/** What a record says about its payment, apart from when it was learnt: the join's domain. */
export interface PaymentObservation {
  readonly chain_status: ChainStatus;
  readonly token_id: PayTokenId;
  readonly address: string;
  /** At the pay scale (6 decimals). */
  readonly amount: string;
  readonly tx_hash: string;
  readonly confirmations: number;
  readonly required_confirmations: number;
}

/** A payment record: docs/spec/decisions.md §4 fields, plus `chain_status`, which `status` hides when late. */
export interface PaymentRecord extends PaymentObservation {
  readonly payment_id: string;
  readonly order_id: string;
  readonly network: ChainNetwork;
  readonly currency: CryptoCurrency;
  readonly status: PaymentStatus;
  readonly detected_at: number;
  readonly confirmed_at: number | null;
  readonly created_at: number;
  readonly updated_at: number;
}

/** The wire form of a token amount: always 6 decimals, whatever the token. */
export const formatPayAmount = (value: string | Decimal): string =>
  new Decimal(value).toFixed(payAmountScale);

/** What one provider event says about its payment, amount normalised to the pay scale. */
export const observationOf = (event: ProviderPaymentEvent): PaymentObservation => ({
  chain_status: chainStatusOf(event.kind),
  token_id: event.token_id,
  address: event.address,
  amount: formatPayAmount(event.amount),
  tx_hash: event.tx_hash,
  confirmations: event.confirmations,
  required_confirmations: event.required_confirmations,
});

/**
 * Whether two observations can be of one transfer: the same token, address and amount, and the
 * same tx_hash unless one of them does not know it yet. A payment's money never changes once
 * seen; a provider contradicting it is refused, not merged (and never re-credited).
 */
export const sameTransfer = (a: PaymentObservation, b: PaymentObservation): boolean =>
  a.token_id === b.token_id &&
  a.address === b.address &&
  new Decimal(a.amount).equals(b.amount) &&
  (a.tx_hash === b.tx_hash || a.tx_hash === '' || b.tx_hash === '');

/** What names one on-chain transfer: its token (so its network), receiving address and tx_hash. */
export type TransferIdentity = Pick<PaymentObservation, 'token_id' | 'address' | 'tx_hash'>;

/**
 * Hex (EVM hashes and addresses, TRON hashes) names one thing in any letter case, as a provider
 * may spell it; base58 (TRON addresses, everything on Solana) is case-sensitive.
 */
const identityKeyOf = ({ token_id, address, tx_hash }: TransferIdentity): string => {
  const format = payTokens[token_id].addressFormat;
  const hashKey = format === 'solana' ? tx_hash : tx_hash.toLowerCase();
  const addressKey = format === 'evm' ? address.toLowerCase() : address;
  return JSON.stringify([token_id, addressKey, hashKey]);
};

/**
 * The record among `payments`, other than `paymentId`'s, of the transfer `transfer` names.
 * Issue 19, L1: a provider's payment id is its name for one transfer, and the order credits by
 * payment id, so the same transfer reported again under another id would be credited twice;
 * whatever the ids, one transfer is one record. A transfer whose tx_hash is not known yet names
 * none, and matches nothing until it learns it. An address belongs to one order, so one order's
 * records are all the transfer can be among.
 */
export const recordOfTransfer = (
  payments: Readonly<Record<string, PaymentRecord>>,
  transfer: TransferIdentity,
  paymentId?: string,
): PaymentRecord | undefined => {
  if (transfer.tx_hash === '') return undefined;
  const key = identityKeyOf(transfer);
  return Object.values(payments).find(
    (record) =>
      record.payment_id !== paymentId && record.tx_hash !== '' && identityKeyOf(record) === key,
  );
};

/**
 * The join of two observations of one transfer (`sameTransfer`): the higher chain status, the
 * most confirmations and required confirmations, the tx_hash once known. On observations of one
 * transfer it is commutative, associative and idempotent: duplicates and reordering of provider
 * events never change the merged record.
 */
export const joinObservations = (
  a: PaymentObservation,
  b: PaymentObservation,
): PaymentObservation => ({
  chain_status:
    chainRank(a.chain_status) >= chainRank(b.chain_status) ? a.chain_status : b.chain_status,
  token_id: a.token_id,
  address: a.address,
  amount: a.amount,
  tx_hash: a.tx_hash === '' ? b.tx_hash : a.tx_hash,
  confirmations: Math.max(a.confirmations, b.confirmations),
  required_confirmations: Math.max(a.required_confirmations, b.required_confirmations),
});

const sameObservation = (a: PaymentObservation, b: PaymentObservation): boolean =>
  a.chain_status === b.chain_status &&
  a.token_id === b.token_id &&
  a.address === b.address &&
  a.amount === b.amount &&
  a.tx_hash === b.tx_hash &&
  a.confirmations === b.confirmations &&
  a.required_confirmations === b.required_confirmations;

/**
 * A change learnt after the order expired or was closed makes the record `late` (unless it
 * failed); a record already confirmed in time stays `completed`, so what was paid in time is
 * never taken back from the order.
 */
const statusOf = (
  previous: PaymentStatus | undefined,
  chain: ChainStatus,
  late: boolean,
): PaymentStatus => {
  if (previous === 'completed') return 'completed';
  return late && chain !== 'failed' ? 'late' : chain;
};

export interface PaymentMergeContext {
  readonly order_id: string;
  /** Unix seconds at which the observation is learnt. */
  readonly at: number;
  /** Whether the order had expired or been closed when the observation arrived. */
  readonly late: boolean;
}

/**
 * Merges one provider event into the record of its payment (or creates it). Returns the very
 * same record when the event adds nothing or contradicts the transfer, so callers can tell an
 * ignored event by identity.
 * Timestamps say when this service learnt a change; everything else is the join.
 */
export const mergePayment = (
  record: PaymentRecord | undefined,
  event: ProviderPaymentEvent,
  { order_id, at, late }: PaymentMergeContext,
): PaymentRecord => {
  const observed = observationOf(event);
  if (record !== undefined && !sameTransfer(record, observed)) return record;
  const joined = record === undefined ? observed : joinObservations(record, observed);
  if (record !== undefined && sameObservation(record, joined)) return record;
  const token = payTokens[joined.token_id];
  const confirmed = joined.chain_status === 'completed';
  return {
    payment_id: event.payment_id,
    order_id,
    network: token.network,
    currency: token.currency,
    ...joined,
    status: statusOf(record?.status, joined.chain_status, late),
    detected_at: record?.detected_at ?? at,
    confirmed_at: record?.confirmed_at ?? (confirmed ? at : null),
    created_at: record?.created_at ?? at,
    updated_at: at,
  };
};

/** The sum of the records that count as paid: confirmed in time (`completed`), late ones never. */
const confirmedAmountOf = (
  payments: readonly Pick<PaymentRecord, 'status' | 'amount'>[],
): Decimal =>
  payments.reduce(
    (total, p) => (p.status === 'completed' ? total.plus(p.amount) : total),
    new Decimal(0),
  );

export interface OrderAggregationInput {
  readonly payments: readonly Pick<PaymentRecord, 'status' | 'amount'>[];
  readonly payAmount: string;
  readonly underpayTolerance: string;
  /** Unix seconds. */
  readonly expireTime: number;
  /** Unix seconds. */
  readonly now: number;
  readonly closed: boolean;
}

/**
 * docs/spec/decisions.md §4, the order status: closed if closed; completed if confirmed + tolerance >=
 * pay_amount (and something is confirmed: a tolerance as large as pay_amount never completes an
 * unpaid order); at or after expire_time underpaid (some confirmed) or expired; else confirming if
 * a record is confirming, processing if one is processing, partial_paid if some is confirmed,
 * pending otherwise.
 */
export const aggregateOrderStatus = ({
  payments,
  payAmount,
  underpayTolerance,
  expireTime,
  now,
  closed,
}: OrderAggregationInput): OrderStatus => {
  if (closed) return 'closed';
  const confirmed = confirmedAmountOf(payments);
  const paidSome = confirmed.greaterThan(0);
  if (paidSome && confirmed.plus(underpayTolerance).greaterThanOrEqualTo(payAmount)) {
    return 'completed';
  }
  if (now >= expireTime) return paidSome ? 'underpaid' : 'expired';
  if (payments.some((p) => p.status === 'confirming')) return 'confirming';
  if (payments.some((p) => p.status === 'processing')) return 'processing';
  return paidSome ? 'partial_paid' : 'pending';
};

/** The order's money fields, all at the pay scale, all from confirmed records only. */
export interface OrderAmounts {
  readonly paid_amount_total: string;
  readonly remaining_amount: string;
  readonly overpaid_amount: string;
}

/**
 * paid_amount_total = confirmed; remaining_amount = max(0, pay_amount - confirmed);
 * overpaid_amount = max(0, confirmed - pay_amount) (interface and docs/spec/decisions.md §4).
 */
export const orderAmounts = ({
  payments,
  payAmount,
}: Pick<OrderAggregationInput, 'payments' | 'payAmount'>): OrderAmounts => {
  const confirmed = confirmedAmountOf(payments);
  const gap = new Decimal(payAmount).minus(confirmed);
  return {
    paid_amount_total: formatPayAmount(confirmed),
    remaining_amount: formatPayAmount(Decimal.max(gap, 0)),
    overpaid_amount: formatPayAmount(Decimal.max(gap.negated(), 0)),
  };
};
