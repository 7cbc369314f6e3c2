import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { describe, expect, it } from 'vitest';
import { decodeWith } from './codec-toolkit.js';
import {
  AccountListQuery,
  AcquiringOrderListQuery,
  BalanceListQuery,
  DepositListQuery,
  LedgerListQuery,
  PageQuery,
  PayoutListQuery,
  PayoutMethodListQuery,
  PayoutNetworkListQuery,
  payoutStatusFilterValues,
  SettlementReportQuery,
  StatementExportQuery,
  StatementQuery,
  toQueryParams,
  utcDayStart,
  WithdrawalListQuery,
} from './list-query.codecs.js';

type Query = Record<string, string | undefined>;

const messageOf = (codec: t.Mixed, query: unknown): string => {
  const result = decodeWith(codec)(query);
  return E.isLeft(result) ? result.left.message : `decoded: ${JSON.stringify(result.right)}`;
};

describe('pagination (docs/spec/decisions.md §9)', () => {
  const paginated = [
    AccountListQuery,
    DepositListQuery,
    WithdrawalListQuery,
    LedgerListQuery,
    PayoutListQuery,
    AcquiringOrderListQuery,
    PageQuery,
  ];

  it.each(paginated.map((codec) => [codec.name, codec] as const))(
    '%s: limit defaults to 20 and offset to 0, also when sent empty',
    (_, codec) => {
      for (const query of [{}, { limit: '', offset: '' }, { limit: undefined }]) {
        const result = codec.decode(query);
        expect(E.isRight(result) && result.right).toMatchObject({ limit: 20, offset: 0 });
      }
    },
  );

  it.each(['1', '20', '100'])('limit %s is accepted', (limit) => {
    expect(PageQuery.decode({ limit })).toEqual(E.right({ limit: Number(limit), offset: 0 }));
  });

  it.each(['0', '101', '-1', '1.5', 'abc', '020', '+5', '1e2', ' 5', '5 ', '99999999999999999999'])(
    'limit %j is `invalid limit` (400/51)',
    (limit) => {
      const result = decodeWith(PayoutListQuery)({ limit });
      expect(
        E.isLeft(result) && [result.left.message, result.left.httpStatus, result.left.code],
      ).toEqual(['invalid limit', 400, 51]);
    },
  );

  it.each(['0', '40', '9007199254740991'])('offset %s is accepted', (offset) => {
    expect(PageQuery.decode({ offset })).toEqual(E.right({ limit: 20, offset: Number(offset) }));
  });

  it.each(['-1', '9007199254740992', '1.0', 'x', '00'])(
    'offset %j is `invalid offset`',
    (offset) => {
      expect(messageOf(PageQuery, { offset })).toBe('invalid offset');
    },
  );

  it('a value that is not a string (a repeated parameter read as a list) is invalid', () => {
    expect(messageOf(PageQuery, { limit: ['10', '20'] })).toBe('invalid limit');
  });
});

describe('filters', () => {
  it('accounts: status active or frozen', () => {
    expect(AccountListQuery.decode({ status: 'frozen' })).toEqual(
      E.right({ status: 'frozen', limit: 20, offset: 0 }),
    );
    expect(messageOf(AccountListQuery, { status: 'disabled' })).toBe('invalid status');
  });

  it('balances and payout methods: currency only, no pagination', () => {
    expect(BalanceListQuery.decode({})).toEqual(E.right({}));
    expect(BalanceListQuery.decode({ currency: 'USDT', limit: 'x' })).toEqual(
      E.right({ currency: 'USDT' }),
    );
    expect(messageOf(BalanceListQuery, { currency: 'usd' })).toBe('invalid currency');
    expect(messageOf(PayoutMethodListQuery, { currency: 'EUR' })).toBe('invalid currency');
  });

  it('deposits and withdrawals: currency, network, status, time window', () => {
    for (const codec of [DepositListQuery, WithdrawalListQuery]) {
      expect(
        codec.decode({
          currency: 'USDC',
          network: 'BASE',
          status: 'completed',
          start_at: '1700000000',
          end_at: '1700086400',
        }),
      ).toEqual(
        E.right({
          currency: 'USDC',
          network: 'BASE',
          status: 'completed',
          start_at: 1700000000,
          end_at: 1700086400,
          limit: 20,
          offset: 0,
        }),
      );
      expect(messageOf(codec, { network: 'tron' })).toBe('invalid network');
      expect(messageOf(codec, { status: 'confirmed' })).toBe('invalid status');
    }
  });

  it('time window: integer Unix seconds, start_at after end_at is `invalid end_at`', () => {
    expect(messageOf(DepositListQuery, { start_at: '2024-01-01' })).toBe('invalid start_at');
    expect(messageOf(DepositListQuery, { end_at: '-5' })).toBe('invalid end_at');
    expect(messageOf(DepositListQuery, { end_at: '253402300800' })).toBe('invalid end_at');
    expect(messageOf(DepositListQuery, { start_at: '200', end_at: '100' })).toBe('invalid end_at');
    expect(DepositListQuery.decode({ start_at: '100', end_at: '100' })).toEqual(
      E.right({ start_at: 100, end_at: 100, limit: 20, offset: 0 }),
    );
  });

  it('ledger: record_type from the ledger, sort_by created_at, sort_order desc by default', () => {
    expect(LedgerListQuery.decode({})).toEqual(
      E.right({ limit: 20, offset: 0, sort_by: 'created_at', sort_order: 'desc' }),
    );
    expect(
      LedgerListQuery.decode({ record_type: 'payout_fee', sort_order: 'asc', currency: 'USD' }),
    ).toEqual(
      E.right({
        currency: 'USD',
        record_type: 'payout_fee',
        limit: 20,
        offset: 0,
        sort_by: 'created_at',
        sort_order: 'asc',
      }),
    );
    expect(messageOf(LedgerListQuery, { record_type: 'refunded' })).toBe('invalid record_type');
    expect(messageOf(LedgerListQuery, { sort_by: 'amount' })).toBe('invalid sort_by');
    expect(messageOf(LedgerListQuery, { sort_order: 'DESC' })).toBe('invalid sort_order');
  });

  it('payouts: the nine top-level statuses of docs/spec/decisions.md §2, and the two axes', () => {
    expect(payoutStatusFilterValues).toEqual([
      'draft',
      'pending_review',
      'returned',
      'rejected',
      'approved',
      'processing',
      'completed',
      'failed',
      'cancelled',
    ]);
    expect(messageOf(PayoutListQuery, { status: 'init' })).toBe('invalid status');
    const keys = ['status', 'review_status', 'execution_status', 'limit'].map((param) => {
      const result = decodeWith(PayoutListQuery)({ [param]: 'x' });
      return E.isLeft(result) && result.left.key;
    });
    expect(keys).toEqual([
      'invalid_status',
      'invalid_review_status',
      'invalid_execution_status',
      'invalid_query_param',
    ]);
    expect(messageOf(PayoutListQuery, { review_status: 'init' })).toBe('invalid review_status');
    expect(messageOf(PayoutListQuery, { execution_status: 'approved' })).toBe(
      'invalid execution_status',
    );
    expect(
      PayoutListQuery.decode({
        reference: 'INV-1',
        client_request_id: 'req-1',
        review_status: 'approved',
        execution_status: 'init',
      }),
    ).toEqual(
      E.right({
        reference: 'INV-1',
        client_request_id: 'req-1',
        review_status: 'approved',
        execution_status: 'init',
        limit: 20,
        offset: 0,
      }),
    );
    expect(messageOf(PayoutListQuery, { reference: 'r'.repeat(257) })).toBe('invalid reference');
  });

  it('acquiring orders: the order states plus closed', () => {
    for (const status of ['pending', 'partial_paid', 'underpaid', 'closed']) {
      const result = AcquiringOrderListQuery.decode({ status, out_trade_no: 'ORD-1' });
      expect(E.isRight(result) && result.right.status).toBe(status);
    }
    expect(messageOf(AcquiringOrderListQuery, { status: 'paid' })).toBe('invalid status');
  });

  it('payout networks: method_id, currency, include_schema true or false (default false)', () => {
    expect(PayoutNetworkListQuery.decode({})).toEqual(E.right({ include_schema: false }));
    expect(
      PayoutNetworkListQuery.decode({ method_id: '7', currency: 'USD', include_schema: 'true' }),
    ).toEqual(E.right({ method_id: 7, currency: 'USD', include_schema: true }));
    expect(messageOf(PayoutNetworkListQuery, { include_schema: '1' })).toBe(
      'invalid include_schema',
    );
    expect(messageOf(PayoutNetworkListQuery, { method_id: '0' })).toBe('invalid method_id');
  });

  it('parameters an endpoint does not define are ignored', () => {
    expect(PageQuery.decode({ status: 'nonsense', _: '123', limit: '5' })).toEqual(
      E.right({ limit: 5, offset: 0 }),
    );
  });

  it('the first bad parameter in the declared order answers', () => {
    const query: Query = { limit: '0', status: 'x', review_status: 'x', start_at: 'x' };
    expect(messageOf(PayoutListQuery, query)).toBe('invalid status');
    expect(messageOf(PayoutListQuery, { ...query, status: undefined })).toBe(
      'invalid review_status',
    );
    expect(
      messageOf(PayoutListQuery, { ...query, status: undefined, review_status: undefined }),
    ).toBe('invalid start_at');
  });

  it('something that is not a parameter record is Validation Failed', () => {
    expect(messageOf(PayoutListQuery, 'limit=5')).toBe('Validation Failed');
  });
});

describe('required parameters (statements and the settlement report, ADR 0045)', () => {
  const period = { currency: 'USD', start_at: '100', end_at: '200' };

  it('a statement needs its currency and period, checked before any value, in declared order', () => {
    expect(decodeWith(StatementQuery)(period)).toEqual(
      E.right({ currency: 'USD', start_at: 100, end_at: 200, limit: 20, offset: 0 }),
    );
    expect(decodeWith(StatementExportQuery)({ ...period, limit: '5' })).toEqual(
      E.right({ currency: 'USD', start_at: 100, end_at: 200 }),
    );
    expect(messageOf(StatementQuery, {})).toBe('currency required');
    expect(messageOf(StatementQuery, { currency: '', start_at: 'x' })).toBe('currency required');
    expect(messageOf(StatementQuery, { currency: 'EUR', end_at: '1' })).toBe('start_at required');
    expect(messageOf(StatementExportQuery, { currency: 'USD', start_at: '1' })).toBe(
      'end_at required',
    );
    expect(messageOf(StatementQuery, { ...period, currency: 'EUR' })).toBe('invalid currency');
    expect(messageOf(StatementQuery, { ...period, start_at: '201' })).toBe('invalid end_at');
    expect(E.isRight(decodeWith(StatementQuery)({ ...period, start_at: '200' }))).toBe(true);
  });

  it('is holds for a decoded statement query only', () => {
    expect(
      StatementQuery.is({ currency: 'USD', start_at: 1, end_at: 2, limit: 20, offset: 0 }),
    ).toBe(true);
    expect(StatementQuery.is({ start_at: 1, end_at: 2, limit: 20, offset: 0 })).toBe(false);
  });

  it('a settlement report needs a UTC day that exists', () => {
    expect(decodeWith(SettlementReportQuery)({ date: '2024-02-29' })).toEqual(
      E.right({ date: '2024-02-29', limit: 20, offset: 0 }),
    );
    expect(messageOf(SettlementReportQuery, {})).toBe('date required');
    for (const date of ['2023-02-29', '2027-13-01', '2027-1-15', '15/01/2027', '1969-12-31']) {
      expect(messageOf(SettlementReportQuery, { date }), date).toBe('invalid date');
    }
    expect(utcDayStart('2027-01-15')).toBe(1_800_000_000 - 8 * 3600);
    expect(utcDayStart('1970-01-01')).toBe(0);
    expect(utcDayStart('2027-02-30')).toBeUndefined();
  });

  it('balances take a point in time', () => {
    expect(decodeWith(BalanceListQuery)({ at: '1800000000' })).toEqual(
      E.right({ at: 1_800_000_000 }),
    );
    expect(messageOf(BalanceListQuery, { at: '-1' })).toBe('invalid at');
  });
});

describe('encoding', () => {
  it('encode gives the wire strings back, for next-page links', () => {
    const result = LedgerListQuery.decode({ currency: 'USDT', offset: '40' });
    if (E.isLeft(result)) throw new Error('expected success');
    const next = { ...result.right, offset: result.right.offset + result.right.limit };
    expect(LedgerListQuery.encode(next)).toEqual({
      currency: 'USDT',
      limit: '20',
      offset: '60',
      sort_by: 'created_at',
      sort_order: 'desc',
    });
    expect(toQueryParams({ a: 1, b: true, c: undefined })).toEqual({ a: '1', b: 'true' });
  });

  it('is holds for decoded queries only', () => {
    expect(
      LedgerListQuery.is({ limit: 20, offset: 0, sort_by: 'created_at', sort_order: 'desc' }),
    ).toBe(true);
    expect(LedgerListQuery.is({ limit: 20, offset: 0 })).toBe(false);
    expect(
      LedgerListQuery.is({ limit: '20', offset: 0, sort_by: 'created_at', sort_order: 'desc' }),
    ).toBe(false);
    expect(PageQuery.is({ limit: 20, offset: 0, extra: 1 })).toBe(false);
  });
});
