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
import { routes } from '../routes/route-table.js';
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
    expect(payouts.offset).toEqual({
      type: 'integer',
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 0,
    });
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
      schema: { type: 'integer', minimum: 0, maximum: 253_402_300_799 },
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

  // Issue 22, disagreement 3: `start_at=253402300800` and `offset=9007199254740992` were refused
  // while the document said only "integer >= 0".
  it('documents the largest value of every integer parameter, the one the codec still takes', () => {
    const sent: string[] = [];
    for (const route of routes) {
      if (route.query === undefined || !isDecoder(route.query)) continue;
      const parameters = queryParametersOf(route.query);
      // The required parameters with values the codec takes, so only the one judged can fail.
      const base: Record<string, string> = Object.fromEntries(
        parameters.filter((p) => p.required).map((p) => [p.name, requiredValues[p.name] ?? '']),
      );
      for (const { name, schema } of parameters) {
        if (schema.type !== 'integer') continue;
        expect(schema.maximum, `${route.operationId} ${name}`).toEqual(expect.any(Number));
        const largest = Number(schema.maximum);
        // `start_at` after `end_at` is `invalid end_at`: the window's other end goes along.
        const window = name === 'start_at' && parameters.some((p) => p.name === 'end_at');
        const at = (value: string) => ({
          ...base,
          [name]: value,
          ...(window ? { end_at: value } : {}),
        });
        expect(route.query.decode(at(String(largest)))._tag, `${route.operationId} ${name}`).toBe(
          'Right',
        );
        const above = route.query.decode(at(String(largest + 1)));
        expect(above._tag, `${route.operationId} ${name}=${largest + 1}`).toBe('Left');
        sent.push(`${name}=${largest + 1}`);
      }
    }
    expect(sent).toEqual(
      expect.arrayContaining([
        'start_at=253402300800',
        'end_at=253402300800',
        'offset=9007199254740992',
      ]),
    );
  });
});

/** Values the required query parameters take (a statement's currency and period, a day). */
const requiredValues: Readonly<Record<string, string>> = {
  currency: 'USD',
  start_at: '0',
  end_at: '1',
  date: '2027-01-15',
};

const isDecoder = (
  codec: object,
): codec is { decode(u: unknown): { readonly _tag: 'Left' | 'Right' } } =>
  'decode' in codec && typeof codec.decode === 'function';
