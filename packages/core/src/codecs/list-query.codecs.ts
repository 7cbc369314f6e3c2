/**
 * Query parameters of the list endpoints (docs/spec/decisions.md §9), one io-ts codec per endpoint built with
 * the codec toolkit: a `request` over the query object whose `format` stage is a `t.partial` of
 * one leaf per parameter, in the interface's order (every parameter may be left out; a defaulted
 * one is a `withDefault`), each leaf carrying its schema, so the document reads the parameters
 * from the codec itself. Parameters arrive as strings (`Record<string, string | undefined>` from
 * URLSearchParams) and decode to typed values with the defaults filled in.
 *
 * Rules shared by every list:
 *  - `limit` defaults to 20 and is 1..100; `offset` defaults to 0 and is 0..2^53-1; both are
 *    plain decimal integers ("20", not "020", "+20" or "2e1"); every integer parameter documents
 *    its `minimum` and `maximum`;
 *  - a bad `status`, `review_status` or `execution_status` answers `invalid status`,
 *    `invalid review_status`, `invalid execution_status`; any other bad parameter answers
 *    `invalid <param>` (all 400/51);
 *  - the first bad parameter in the endpoint's declared order (the interface's order) is the answer;
 *  - an empty value (`?status=`) counts as not sent; parameters the endpoint does not define are
 *    ignored, so clients may add cache-busting or tracing parameters;
 *  - `start_at` and `end_at` are Unix seconds up to 253402300799 (9999-12-31T23:59:59Z) and
 *    bound `created_at` inclusively; `start_at` after `end_at` is `invalid end_at`;
 *  - a few queries have required parameters (a statement's currency and period, a report's day):
 *    one left out, or sent empty, answers `currency required` or `<param> required` before any
 *    value is judged.
 */
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { type PayrailError, payrailError } from '../errors/error-catalogue.js';
import { recordTypes } from '../ledger/ledger.js';
import { orderStatuses } from '../machines/order-status.js';
import { executionStatuses, reviewStatuses } from '../machines/payout.machine.js';
import { currencies } from '../money/money.js';
import { chainNetworks } from '../money/pay-tokens.js';
import type { SortOrder } from '../ports/store.js';
import { keysOf, recordOf } from '../typed-records.js';
import {
  DefaultType,
  equalJsonValues,
  isJsonObject,
  isOneOf,
  type LeafSchema,
  type LeafType,
  leafFrom,
  present,
  type RequestType,
  request,
  rule,
} from './codec-toolkit.js';

// ---------------------------------------------------------------------------------------------
// Allowed values of the filters

export const accountStatusFilterValues = ['active', 'frozen'] as const;
/** Deposits and withdrawals. */
export const fundingStatusFilterValues = ['pending', 'completed', 'failed'] as const;
/** The top-level payout status (docs/spec/decisions.md §2): a review_status or a non-init execution_status. */
export const payoutStatusFilterValues = [
  ...reviewStatuses,
  ...executionStatuses.filter(
    (status): status is Exclude<(typeof executionStatuses)[number], 'init'> => status !== 'init',
  ),
] as const;
/** The interface's order states plus `closed` (docs/spec/decisions.md §4): the order machine's statuses. */
export const orderStatusFilterValues = orderStatuses;
const sortOrders = ['asc', 'desc'] as const satisfies readonly SortOrder[];

export const listLimits = { defaultLimit: 20, maxLimit: 100, defaultOffset: 0 } as const;

/** Latest accepted timestamp: 9999-12-31T23:59:59Z, so a time window never overflows a date. */
const maxUnixSeconds = 253_402_300_799;

// ---------------------------------------------------------------------------------------------
// Parameters

export type QueryValue = string | number | boolean;

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

/**
 * One parameter: its wire string read by `parse` (`undefined`: a bad value), anything else (a
 * repeated parameter read as a list) bad too; a bad value, or one that is not text (NUL), is
 * `invalid <param>`. The schema is what the document says of the parameter, its `description`
 * included.
 */
const param = <A extends QueryValue>(
  name: string,
  is: (u: unknown) => u is A,
  parse: (raw: string) => A | undefined,
  schema: LeafSchema,
): LeafType<A> =>
  leafFrom<A>(
    `QueryParam(${name})`,
    is,
    (u) => {
      const value = typeof u === 'string' ? parse(u) : undefined;
      return value === undefined ? E.left(invalidParam(name)) : E.right(value);
    },
    schema,
    () => invalidParam(name),
  );

const oneOf = <const V extends readonly string[]>(name: string, values: V, description: string) => {
  const is = isOneOf(values);
  return param<V[number]>(name, is, (raw) => (is(raw) ? raw : undefined), {
    type: 'string',
    enum: [...values],
    description,
  });
};

/** A whole number from `min` to `max`, both in the document (a larger one is `invalid <param>`). */
const integerBetween = (name: string, min: number, max: number, description: string) => {
  const is = (u: unknown): u is number =>
    Number.isSafeInteger(u) && Number(u) >= min && Number(u) <= max;
  return param<number>(
    name,
    is,
    (raw) => (/^(0|[1-9][0-9]{0,15})$/.test(raw) && is(Number(raw)) ? Number(raw) : undefined),
    { type: 'integer', minimum: min, maximum: max, description },
  );
};

/** A free-text filter (reference, out_trade_no, ...): matched exactly, at most 256 characters. */
const text = (name: string, description: string) => {
  const is = (u: unknown): u is string => typeof u === 'string' && Array.from(u).length <= 256;
  return param<string>(name, is, (raw) => (is(raw) ? raw : undefined), {
    type: 'string',
    maxLength: 256,
    description,
  });
};

/** `true` or `false`, documented as the strings they are on the wire. */
const flag = (name: string, description: string) =>
  param<boolean>(
    name,
    (u): u is boolean => typeof u === 'boolean',
    (raw) => (raw === 'true' ? true : raw === 'false' ? false : undefined),
    { type: 'string', enum: ['true', 'false'], description },
  );

/**
 * A parameter that takes `value` when not sent (toolkit `withDefault`, built as its class so the
 * decoded query's type knows the parameter is always there).
 */
const withDefault = <A>(codec: t.Type<A, A, unknown>, value: A): DefaultType<A> =>
  new DefaultType(codec, value);

const unixSeconds = (name: string, description: string) =>
  integerBetween(name, 0, maxUnixSeconds, description);
const currency = oneOf('currency', currencies, 'currency code');
const network = oneOf('network', keysOf(chainNetworks), 'network');

const page = {
  limit: withDefault(
    integerBetween('limit', 1, listLimits.maxLimit, 'page size'),
    listLimits.defaultLimit,
  ),
  offset: withDefault(
    integerBetween('offset', 0, Number.MAX_SAFE_INTEGER, 'items to skip'),
    listLimits.defaultOffset,
  ),
};
const timeWindow = {
  start_at: unixSeconds('start_at', 'created_at >= (Unix seconds)'),
  end_at: unixSeconds('end_at', 'created_at <= (Unix seconds)'),
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

type Flatten<T> = { readonly [K in keyof T]: T[K] };
type DefaultedKey<P extends t.Props> = {
  [K in keyof P]: P[K] extends { readonly _tag: 'DefaultType' } ? K : never;
}[keyof P];

/**
 * The decoded query: defaulted and required (`R`) parameters always there, the others only when
 * sent.
 */
export type ListQueryOf<P extends t.Props, R extends keyof P = never> = Flatten<
  { readonly [K in DefaultedKey<P> | R]: t.TypeOf<P[K]> } & {
    readonly [K in Exclude<keyof P, DefaultedKey<P> | R>]?: t.TypeOf<P[K]>;
  }
>;

/** A required parameter left out: the catalogue's `currency required`, else `<param> required`. */
const missingParam = (param: string): PayrailError =>
  param === 'currency'
    ? payrailError('currency_required')
    : payrailError('field_required', { field: param });

/** A number the decoded query holds under `key`, if any. */
const numberAt = (query: object, key: string): number | undefined => {
  const value: unknown = Reflect.get(query, key);
  return typeof value === 'number' ? value : undefined;
};

/** `start_at` after `end_at` is `invalid end_at` (a query without the window passes). */
const timeWindowInOrder = rule<object>(
  (query) => {
    const [startAt, endAt] = [numberAt(query, 'start_at'), numberAt(query, 'end_at')];
    return startAt === undefined || endAt === undefined || startAt <= endAt;
  },
  () => invalidParam('end_at'),
);

/**
 * A list endpoint's query codec: a `request` over the query object (not an object: `Validation
 * Failed`) whose `required` stage, when the endpoint has required parameters, refuses the first
 * one left out, and whose `format` is a `t.partial` of the parameters in their declared order, so
 * the first bad one answers; an empty value (`?status=`) is read as not sent. `encode` gives the
 * wire strings back, and `is` holds for decoded queries (every defaulted and required parameter
 * there, nothing else).
 */
export class ListQueryType<P extends t.Props, R extends keyof P & string = never> extends t.Type<
  ListQueryOf<P, R>,
  Record<string, string>,
  unknown
> {
  readonly _tag = 'ListQueryType' as const;
  readonly query: RequestType<t.PartialC<P>>;
  /** The parameters a query must send, in their declared order (the document says so). */
  readonly requiredParameters: readonly R[];
  constructor(name: string, params: P, required: readonly R[] = []) {
    const query = request(
      name,
      {
        ...(required.length === 0
          ? {}
          : { required: t.type(recordOf(required, (param) => present(missingParam(param)))) }),
        format: t.partial(params),
        rules: [timeWindowInOrder],
      },
      payrailError('validation_failed'),
    );
    const validate = (u: unknown, c: t.Context): t.Validation<ListQueryOf<P, R>> =>
      // The format stage filled in every defaulted parameter (`withDefault`) and the required
      // stage let through only queries that send every required one, so the decoded partial
      // object has the keys `ListQueryOf` says it always has.
      query.validate(
        isJsonObject(u)
          ? Object.fromEntries(Object.entries(u).filter(([, value]) => value !== ''))
          : u,
        c,
      ) as t.Validation<ListQueryOf<P, R>>;
    const is = (u: unknown): u is ListQueryOf<P, R> => {
      if (!isJsonObject(u)) return false;
      const entries = Object.entries(u);
      if (!entries.every(([, value]) => isQueryValue(value))) return false;
      const again = validate(Object.fromEntries(entries.map(([k, v]) => [k, String(v)])), []);
      return E.isRight(again) && equalJsonValues(again.right, u);
    };
    super(name, is, validate, toQueryParams);
    this.query = query;
    this.requiredParameters = required;
  }
  /** The parameters, in their declared order: the structure the document reads. */
  get format(): t.PartialC<P> {
    return this.query.format;
  }
}

const listQuery = <P extends t.Props, R extends keyof P & string = never>(
  name: string,
  params: P,
  required: readonly R[] = [],
): ListQueryType<P, R> => new ListQueryType(name, params, required);

// ---------------------------------------------------------------------------------------------
// The list endpoints, parameters in the interface's order

/** `GET /payment/accounts`. */
export const AccountListQuery = listQuery('AccountListQuery', {
  status: oneOf('status', accountStatusFilterValues, 'status filter'),
  ...page,
});
export type AccountListQuery = t.TypeOf<typeof AccountListQuery>;

/**
 * `GET /payment/balances`: not paginated, one balance per currency; with `at`, the balances as
 * they stood at the end of that second (every record created at or before it).
 */
export const BalanceListQuery = listQuery('BalanceListQuery', {
  currency,
  at: unixSeconds('at', 'balances as of this second: records created at or before it'),
});
export type BalanceListQuery = t.TypeOf<typeof BalanceListQuery>;

const fundingRecordParams = {
  currency,
  network,
  status: oneOf('status', fundingStatusFilterValues, 'status filter'),
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
  record_type: oneOf('record_type', recordTypes, 'ledger movement class'),
  ...timeWindow,
  ...page,
  sort_by: withDefault(oneOf('sort_by', ['created_at'], 'sort key'), 'created_at'),
  sort_order: withDefault(oneOf('sort_order', sortOrders, 'asc or desc'), 'desc'),
});
export type LedgerListQuery = t.TypeOf<typeof LedgerListQuery>;

/** `GET /payment/payouts` (docs/spec/decisions.md §2). */
export const PayoutListQuery = listQuery('PayoutListQuery', {
  reference: text('reference', 'exact reference'),
  client_request_id: text('client_request_id', 'exact client_request_id'),
  status: oneOf('status', payoutStatusFilterValues, 'status filter'),
  review_status: oneOf('review_status', reviewStatuses, 'review_status filter'),
  execution_status: oneOf('execution_status', executionStatuses, 'execution_status filter'),
  ...timeWindow,
  ...page,
});
export type PayoutListQuery = t.TypeOf<typeof PayoutListQuery>;

/** `GET /payment/acquiring/orders` (docs/spec/decisions.md §4). */
export const AcquiringOrderListQuery = listQuery('AcquiringOrderListQuery', {
  out_trade_no: text('out_trade_no', 'exact out_trade_no'),
  status: oneOf('status', orderStatusFilterValues, 'status filter'),
  ...timeWindow,
  ...page,
});
export type AcquiringOrderListQuery = t.TypeOf<typeof AcquiringOrderListQuery>;

/** `GET /payment/payout-methods`. */
export const PayoutMethodListQuery = listQuery('PayoutMethodListQuery', { currency });
export type PayoutMethodListQuery = t.TypeOf<typeof PayoutMethodListQuery>;

/** `GET /payment/payout-networks`: field schemas only with `include_schema=true`. */
export const PayoutNetworkListQuery = listQuery('PayoutNetworkListQuery', {
  method_id: integerBetween('method_id', 1, Number.MAX_SAFE_INTEGER, 'payout method id'),
  currency,
  include_schema: withDefault(flag('include_schema', 'field schemas too'), false),
});
export type PayoutNetworkListQuery = t.TypeOf<typeof PayoutNetworkListQuery>;

/**
 * A statement's period, `[start_at, end_at)` in Unix seconds: from its first second to the one
 * after its last, so consecutive periods share a bound and no record falls in two (ADR 0045).
 */
const period = {
  start_at: unixSeconds('start_at', 'first second of the period (Unix seconds, inclusive)'),
  end_at: unixSeconds(
    'end_at',
    'second after the period (Unix seconds, exclusive); a later one than now reads as now + 1',
  ),
};
const statementRequired = ['currency', 'start_at', 'end_at'] as const;

/** `GET /payment/statements`: one currency over a period, its records paged (ADR 0045). */
export const StatementQuery = listQuery(
  'StatementQuery',
  { currency, ...period, ...page },
  statementRequired,
);
export type StatementQuery = t.TypeOf<typeof StatementQuery>;

/** `GET /payment/statements.csv`: the same statement with every record, streamed as CSV. */
export const StatementExportQuery = listQuery(
  'StatementExportQuery',
  { currency, ...period },
  statementRequired,
);
export type StatementExportQuery = t.TypeOf<typeof StatementExportQuery>;

const utcDayPattern = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/** The first second of a calendar day `YYYY-MM-DD` (UTC), or `undefined` for no such day. */
export const utcDayStart = (day: string): number | undefined => {
  const [, year, month, date] = utcDayPattern.exec(day) ?? [];
  if (year === undefined || month === undefined || date === undefined) return undefined;
  const start = Date.UTC(Number(year), Number(month) - 1, Number(date));
  const read = new Date(start);
  // `Date.UTC` rolls 2027-02-30 over into March: a day that does not exist reads back otherwise.
  const exists =
    read.getUTCFullYear() === Number(year) &&
    read.getUTCMonth() === Number(month) - 1 &&
    read.getUTCDate() === Number(date);
  return exists && Number(year) >= 1970 ? start / 1000 : undefined;
};

const utcDay = (name: string, description: string) => {
  const is = (u: unknown): u is string => typeof u === 'string' && utcDayStart(u) !== undefined;
  return param<string>(name, is, (raw) => (is(raw) ? raw : undefined), {
    type: 'string',
    format: 'date',
    description,
  });
};

/** `GET /admin/reports/settlement`: one UTC day across merchants, its rows paged (ADR 0045). */
export const SettlementReportQuery = listQuery(
  'SettlementReportQuery',
  { date: utcDay('date', 'the UTC day (YYYY-MM-DD)'), ...page },
  ['date'],
);
export type SettlementReportQuery = t.TypeOf<typeof SettlementReportQuery>;

/**
 * A list with nothing to filter but its page (limit, offset): the webhooks, their deliveries,
 * beneficiaries, beneficiary accounts, a batch's items and the operator's catalogue pages.
 */
export const PageQuery = listQuery('PageQuery', page);
export type PageQuery = t.TypeOf<typeof PageQuery>;

/**
 * `GET /admin/audit` and `GET /payment/audit`: the trail newest first, by actor, object or
 * action, within a time window.
 */
export const AuditListQuery = listQuery('AuditListQuery', {
  actor_type: oneOf('actor_type', ['operator', 'api_key'], 'operator or api_key'),
  actor_id: text('actor_id', 'an operator id (bootstrap for the admin token) or an API key id'),
  object_type: text('object_type', 'payout, api_key, crypto_batch, ...'),
  object_id: text('object_id', 'the object id'),
  action: text('action', 'e.g. payout.review'),
  ...timeWindow,
  ...page,
});
export type AuditListQuery = t.TypeOf<typeof AuditListQuery>;
