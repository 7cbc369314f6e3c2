import {
  AccountListQuery,
  BalanceListQuery,
  LedgerListQuery,
  PayoutListQuery,
  PayoutNetworkListQuery,
  payoutStatusFilterValues,
  recordTypes,
  StatementQuery,
} from '@payrail/core';
import { describe, expect, it } from 'vitest';
import { queryParametersOf } from './query-parameters.js';

const byName = (codec: Parameters<typeof queryParametersOf>[0]) =>
  Object.fromEntries(queryParametersOf(codec).map((p) => [p.name, p.schema]));

describe('queryParametersOf', () => {
  it('finds the parameters a list codec declares, in the interface’s order', () => {
    expect(queryParametersOf(PayoutListQuery).map((p) => p.name)).toEqual([
      'reference',
      'client_request_id',
      'status',
      'review_status',
      'execution_status',
      'start_at',
      'end_at',
      'limit',
      'offset',
    ]);
    expect(queryParametersOf(BalanceListQuery).map((p) => p.name)).toEqual(['currency', 'at']);
    expect(queryParametersOf(StatementQuery).map((p) => [p.name, p.required] as const)).toEqual([
      ['currency', true],
      ['start_at', true],
      ['end_at', true],
      ['limit', false],
      ['offset', false],
    ]);
  });

  it('reads enumerations and defaults from what the codec accepts', () => {
    const payouts = byName(PayoutListQuery);
    expect(payouts.status).toEqual({ type: 'string', enum: [...payoutStatusFilterValues] });
    expect(payouts.limit).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    expect(payouts.offset).toEqual({ type: 'integer', minimum: 0, default: 0 });
    expect(byName(AccountListQuery).status).toEqual({ type: 'string', enum: ['active', 'frozen'] });
    const ledger = byName(LedgerListQuery);
    expect(ledger.record_type).toEqual({ type: 'string', enum: [...recordTypes] });
    expect(ledger.sort_order).toEqual({ type: 'string', enum: ['asc', 'desc'], default: 'desc' });
    expect(byName(PayoutNetworkListQuery).include_schema).toEqual({
      type: 'string',
      enum: ['true', 'false'],
      default: 'false',
    });
  });

  it('reads descriptions from the leaves and keeps them out of the schema', () => {
    const ledger = queryParametersOf(LedgerListQuery);
    expect(ledger.find((p) => p.name === 'start_at')).toEqual({
      name: 'start_at',
      description: 'created_at >= (Unix seconds)',
      schema: { type: 'integer', minimum: 0 },
      required: false,
    });
    expect(ledger.every((p) => !('description' in p.schema))).toBe(true);
  });

  it('refuses a codec whose parameters it cannot read, rather than guess', () => {
    expect(() => queryParametersOf({ name: 'Opaque' })).toThrow(/Opaque has no format stage/);
    expect(() =>
      queryParametersOf({
        name: 'Plain',
        format: { name: 'PlainFormat', props: { limit: { name: 'string' } } },
      }),
    ).toThrow(/Plain.limit is not a leaf/);
  });
});
