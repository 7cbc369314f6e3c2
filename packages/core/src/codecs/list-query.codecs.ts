/**
 * Query parameters of the list endpoints (decisions §9), one codec per endpoint. Parameters
 * arrive as strings (`Record<string, string | undefined>` from URLSearchParams) and decode to
 * typed values with the defaults filled in.
 *
 * Rules shared by every list:
 *  - `limit` defaults to 20 and is 1..100; `offset` defaults to 0 and is >= 0; both are plain
 *    decimal integers ("20", not "020", "+20" or "2e1");
 *  - a bad `status`, `review_status` or `execution_status` answers `invalid status`,
 *    `invalid review_status`, `invalid execution_status`; any other bad parameter answers
 *    `invalid <param>` (all 400/51);
 *  - the first bad parameter in the endpoint's declared order (the interface's order) is the answer;
 *  - an empty value (`?status=`) counts as not sent; parameters the endpoint does not define are
 *    ignored, so clients may add cache-busting or tracing parameters;
 *  - `start_at` and `end_at` are Unix seconds and bound `created_at` inclusively; `start_at`
 *    after `end_at` is `invalid end_at`.
 */
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { recordTypes } from '../ledger/ledger.js';
import { orderStatuses } from '../machines/order-status.js';
import { executionStatuses, reviewStatuses } from '../machines/payout.machine.js';
import { currencies } from '../money/money.js';
import { type ChainNetwork, chainNetworks } from '../money/pay-tokens.js';
import type { SortOrder } from '../ports/store.js';
import { isJsonObject } from './beneficiary.codecs.js';
import { codecOf, fail } from './codec-toolkit.js';

// ---------------------------------------------------------------------------------------------
// Allowed values of the filters

export const accountStatusFilterValues = ['active', 'frozen'] as const;
/** Deposits and withdrawals. */
export const fundingStatusFilterValues = ['pending', 'completed', 'failed'] as const;
/** The top-level payout status (decisions §2): a review_status or a non-init execution_status. */
export const payoutStatusFilterValues = [
  ...reviewStatuses,
  ...executionStatuses.filter(
    (status): status is Exclude<(typeof executionStatuses)[number], 'init'> => status !== 'init',
  ),
] as const;
/** The interface's order states plus `closed` (decisions §4): the order machine's statuses. */
export const orderStatusFilterValues = orderStatuses;
export const sortOrders = ['asc', 'desc'] as const satisfies readonly SortOrder[];

export const listLimits = { defaultLimit: 20, maxLimit: 100, defaultOffset: 0 } as const;

/** Latest accepted timestamp: 9999-12-31T23:59:59Z, so a time window never overflows a date. */
const maxUnixSeconds = 253_402_300_799;

// ---------------------------------------------------------------------------------------------
// Parameters

export type QueryValue = string | number | boolean;

/** How one parameter reads its raw string; `undefined` means the value is bad. */
export interface QueryParam<A extends QueryValue> {
  parse(raw: string): A | undefined;
}

/** A parameter that takes `fallback` when not sent. */
export interface DefaultedQueryParam<A extends QueryValue> extends QueryParam<A> {
  readonly fallback: A;
}

type QueryParams = Readonly<Record<string, QueryParam<QueryValue>>>;

type ValueOf<P> = P extends QueryParam<infer A> ? A : never;
type DefaultedKey<P extends QueryParams> = {
  [K in keyof P]: P[K] extends DefaultedQueryParam<QueryValue> ? K : never;
}[keyof P];
type Flatten<T> = { readonly [K in keyof T]: T[K] };

/** The decoded query: defaulted parameters always there, the others only when sent. */
export type ListQueryOf<P extends QueryParams> = Flatten<
  { readonly [K in DefaultedKey<P>]: ValueOf<P[K]> } & {
    readonly [K in Exclude<keyof P, DefaultedKey<P>>]?: ValueOf<P[K]>;
  }
>;

const oneOf = <const V extends readonly string[]>(values: V): QueryParam<V[number]> => ({
  parse: (raw) => (values.includes(raw) ? (raw as V[number]) : undefined),
});

const integerBetween = (min: number, max: number): QueryParam<number> => ({
  parse: (raw) => {
    if (!/^(0|[1-9][0-9]{0,15})$/.test(raw)) return undefined;
    const value = Number(raw);
    return value >= min && value <= max ? value : undefined;
  },
});

/** A free-text filter (reference, out_trade_no, ...): matched exactly, at most 256 characters. */
const text: QueryParam<string> = {
  parse: (raw) => (Array.from(raw).length <= 256 ? raw : undefined),
};

const flag: QueryParam<boolean> = {
  parse: (raw) => (raw === 'true' ? true : raw === 'false' ? false : undefined),
};

const withDefault = <A extends QueryValue>(
  param: QueryParam<A>,
  fallback: A,
): DefaultedQueryParam<A> => ({ parse: param.parse, fallback });

const unixSeconds = integerBetween(0, maxUnixSeconds);
const currency = oneOf(currencies);
const network = oneOf(Object.keys(chainNetworks) as readonly ChainNetwork[]);

const page = {
  limit: withDefault(integerBetween(1, listLimits.maxLimit), listLimits.defaultLimit),
  offset: withDefault(integerBetween(0, Number.MAX_SAFE_INTEGER), listLimits.defaultOffset),
};
const timeWindow = { start_at: unixSeconds, end_at: unixSeconds };

/** The catalogue error of a bad parameter: the three status filters have messages of their own. */
const invalidParam = (param: string): PayrailError => {
  switch (param) {
    case 'status':
      return payrailError('invalid_status');
    case 'review_status':
      return payrailError('invalid_review_status');
    case 'execution_status':
      return payrailError('invalid_execution_status');
    default:
      return payrailError('invalid_query_param', { param });
  }
};

/** The wire form of a decoded query, e.g. for the next page's link (`offset + limit`). */
export const toQueryParams = (
  query: Readonly<Record<string, QueryValue | undefined>>,
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(query).flatMap(([key, value]) =>
      value === undefined ? [] : [[key, String(value)]],
    ),
  );

const isQueryValue = (u: unknown): u is QueryValue =>
  typeof u === 'string' || typeof u === 'number' || typeof u === 'boolean';

const checkQuery = <P extends QueryParams>(
  params: P,
  u: unknown,
): E.Either<PayrailError, ListQueryOf<P>> => {
  if (!isJsonObject(u)) return E.left(payrailError('validation_failed'));
  const decoded: Record<string, QueryValue> = {};
  for (const [key, param] of Object.entries(params)) {
    const raw = Object.hasOwn(u, key) ? u[key] : undefined;
    if (raw === undefined || raw === '') {
      if ('fallback' in param) decoded[key] = (param as DefaultedQueryParam<QueryValue>).fallback;
      continue;
    }
    const value = typeof raw === 'string' ? param.parse(raw) : undefined;
    if (value === undefined) return E.left(invalidParam(key));
    decoded[key] = value;
  }
  const { start_at: startAt, end_at: endAt } = decoded;
  if (typeof startAt === 'number' && typeof endAt === 'number' && startAt > endAt) {
    return E.left(invalidParam('end_at'));
  }
  return E.right(decoded as ListQueryOf<P>);
};

/**
 * A list endpoint's query codec. It decodes the wire strings; `encode` gives them back, and `is`
 * holds for decoded queries (every defaulted parameter there, nothing else).
 */
const listQuery = <P extends QueryParams>(
  name: string,
  params: P,
): t.Type<ListQueryOf<P>, Record<string, string>, unknown> =>
  codecOf<ListQueryOf<P>, Record<string, string>>(
    name,
    (u): u is ListQueryOf<P> => {
      if (!isJsonObject(u) || !Object.values(u).every(isQueryValue)) return false;
      const decoded = checkQuery(params, toQueryParams(u as Record<string, QueryValue>));
      if (E.isLeft(decoded)) return false;
      const keys = Object.keys(u);
      const again: Readonly<Record<string, unknown>> = decoded.right;
      return (
        keys.length === Object.keys(again).length && keys.every((key) => again[key] === u[key])
      );
    },
    (u, c) => {
      const decoded = checkQuery(params, u);
      return E.isRight(decoded) ? E.right(decoded.right) : fail(u, c, decoded.left);
    },
    toQueryParams,
  );

// ---------------------------------------------------------------------------------------------
// The list endpoints, parameters in the interface's order

/** `GET /payment/accounts`. */
export const AccountListQuery = listQuery('AccountListQuery', {
  status: oneOf(accountStatusFilterValues),
  ...page,
});
export type AccountListQuery = t.TypeOf<typeof AccountListQuery>;

/** `GET /payment/balances`: not paginated, one balance per currency. */
export const BalanceListQuery = listQuery('BalanceListQuery', { currency });
export type BalanceListQuery = t.TypeOf<typeof BalanceListQuery>;

const fundingRecordParams = {
  currency,
  network,
  status: oneOf(fundingStatusFilterValues),
  ...timeWindow,
  ...page,
};

/** `GET /payment/deposits`. */
export const DepositListQuery = listQuery('DepositListQuery', fundingRecordParams);
export type DepositListQuery = t.TypeOf<typeof DepositListQuery>;

/** `GET /payment/withdrawals`. */
export const WithdrawalListQuery = listQuery('WithdrawalListQuery', fundingRecordParams);
export type WithdrawalListQuery = t.TypeOf<typeof WithdrawalListQuery>;

/**
 * `GET /payment/ledger`: newest first unless `sort_order=asc` (the recent-activity view is the
 * common one; replay jobs ask for `asc`); `created_at` is the only sort key.
 */
export const LedgerListQuery = listQuery('LedgerListQuery', {
  currency,
  record_type: oneOf(recordTypes),
  ...timeWindow,
  ...page,
  sort_by: withDefault(oneOf(['created_at']), 'created_at'),
  sort_order: withDefault(oneOf(sortOrders), 'desc'),
});
export type LedgerListQuery = t.TypeOf<typeof LedgerListQuery>;

/** `GET /payment/payouts` (decisions §2). */
export const PayoutListQuery = listQuery('PayoutListQuery', {
  reference: text,
  client_request_id: text,
  status: oneOf(payoutStatusFilterValues),
  review_status: oneOf(reviewStatuses),
  execution_status: oneOf(executionStatuses),
  ...timeWindow,
  ...page,
});
export type PayoutListQuery = t.TypeOf<typeof PayoutListQuery>;

/** `GET /payment/acquiring/orders` (decisions §4). */
export const AcquiringOrderListQuery = listQuery('AcquiringOrderListQuery', {
  out_trade_no: text,
  status: oneOf(orderStatusFilterValues),
  ...timeWindow,
  ...page,
});
export type AcquiringOrderListQuery = t.TypeOf<typeof AcquiringOrderListQuery>;

/** `GET /payment/payout-methods`. */
export const PayoutMethodListQuery = listQuery('PayoutMethodListQuery', { currency });
export type PayoutMethodListQuery = t.TypeOf<typeof PayoutMethodListQuery>;

/** `GET /payment/payout-networks`: field schemas only with `include_schema=true`. */
export const PayoutNetworkListQuery = listQuery('PayoutNetworkListQuery', {
  method_id: integerBetween(1, Number.MAX_SAFE_INTEGER),
  currency,
  include_schema: withDefault(flag, false),
});
export type PayoutNetworkListQuery = t.TypeOf<typeof PayoutNetworkListQuery>;

/** `GET /payment/webhooks`. */
export const WebhookListQuery = listQuery('WebhookListQuery', page);
export type WebhookListQuery = t.TypeOf<typeof WebhookListQuery>;

/** `GET /payment/webhooks/{webhook_id}/deliveries`. */
export const WebhookDeliveryListQuery = listQuery('WebhookDeliveryListQuery', page);
export type WebhookDeliveryListQuery = t.TypeOf<typeof WebhookDeliveryListQuery>;

/** `GET /payment/beneficiaries`. */
export const BeneficiaryListQuery = listQuery('BeneficiaryListQuery', page);
export type BeneficiaryListQuery = t.TypeOf<typeof BeneficiaryListQuery>;

/** `GET /payment/beneficiary-accounts`. */
export const BeneficiaryAccountListQuery = listQuery('BeneficiaryAccountListQuery', page);
export type BeneficiaryAccountListQuery = t.TypeOf<typeof BeneficiaryAccountListQuery>;

/** `GET /payment/crypto-payouts/batches/{batch_id}/items`. */
export const BatchItemListQuery = listQuery('BatchItemListQuery', page);
export type BatchItemListQuery = t.TypeOf<typeof BatchItemListQuery>;
