/**
 * The query parameters of a list codec, read from the codec itself. The core's list codecs are
 * opaque (`codecOf`), but they answer every question the document asks:
 *  - which parameters it declares: a declared parameter refuses an over-long value (every kind
 *    of parameter does: enum, integer, flag, 256-character text), an undeclared one is ignored;
 *  - the allowed values of an enumerated parameter: the candidates it accepts;
 *  - the defaults: what decoding `{}` fills in.
 * The candidates (names and values) are this table; what the codec accepts decides.
 */
import {
  accountStatusFilterValues,
  chainNetworks,
  currencies,
  executionStatuses,
  fundingStatusFilterValues,
  listLimits,
  orderStatusFilterValues,
  payoutStatusFilterValues,
  recordTypes,
  reviewStatuses,
  sortOrders,
} from '@payrail/core';
import type { JsonSchema } from './json-schema.js';

/** What is read of a query codec: its io-ts `decode`. */
export interface QueryCodecLike {
  readonly name: string;
  decode(input: unknown): { readonly _tag: 'Left' | 'Right'; readonly right?: unknown };
}

export interface QueryParameterDoc {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly description: string;
}

type Candidate =
  | {
      readonly kind: 'enum';
      /** Candidate value lists; the largest one the codec fully accepts gives the order. */
      readonly values: readonly (readonly string[])[];
      readonly description: string;
    }
  | { readonly kind: 'integer'; readonly description: string; readonly extra?: JsonSchema }
  | { readonly kind: 'text'; readonly description: string };

const statusValues = [
  accountStatusFilterValues,
  fundingStatusFilterValues,
  payoutStatusFilterValues,
  orderStatusFilterValues,
];

/** Every parameter name a list of the interface or decisions.md uses, in the interface's order. */
export const queryParameterCandidates: Readonly<Record<string, Candidate>> = {
  reference: { kind: 'text', description: 'exact reference' },
  client_request_id: { kind: 'text', description: 'exact client_request_id' },
  out_trade_no: { kind: 'text', description: 'exact out_trade_no' },
  method_id: { kind: 'integer', description: 'payout method id', extra: { minimum: 1 } },
  currency: { kind: 'enum', values: [currencies], description: 'currency code' },
  network: { kind: 'enum', values: [Object.keys(chainNetworks)], description: 'network' },
  record_type: { kind: 'enum', values: [recordTypes], description: 'ledger movement class' },
  status: { kind: 'enum', values: statusValues, description: 'status filter' },
  review_status: { kind: 'enum', values: [reviewStatuses], description: 'review_status filter' },
  execution_status: {
    kind: 'enum',
    values: [executionStatuses],
    description: 'execution_status filter',
  },
  include_schema: { kind: 'enum', values: [['true', 'false']], description: 'field schemas too' },
  start_at: { kind: 'integer', description: 'created_at >= (Unix seconds)', extra: { minimum: 0 } },
  end_at: { kind: 'integer', description: 'created_at <= (Unix seconds)', extra: { minimum: 0 } },
  limit: {
    kind: 'integer',
    description: 'page size',
    extra: { minimum: 1, maximum: listLimits.maxLimit },
  },
  offset: { kind: 'integer', description: 'items to skip', extra: { minimum: 0 } },
  sort_by: { kind: 'enum', values: [['created_at']], description: 'sort key' },
  sort_order: { kind: 'enum', values: [sortOrders], description: 'asc or desc' },
};

/** Longer than any parameter accepts (free texts stop at 256 characters). */
const refusedEverywhere = 'x'.repeat(300);

const accepts = (codec: QueryCodecLike, name: string, value: string): boolean =>
  codec.decode({ [name]: value })._tag === 'Right';

const schemaOf = (
  codec: QueryCodecLike,
  name: string,
  candidate: Candidate,
  fallback: unknown,
): JsonSchema => {
  const defaulted = fallback === undefined ? {} : { default: fallback };
  switch (candidate.kind) {
    case 'text':
      return { type: 'string', maxLength: 256, ...defaulted };
    case 'integer':
      return { type: 'integer', ...candidate.extra, ...defaulted };
    case 'enum': {
      const accepted = (values: readonly string[]) =>
        values.filter((value) => accepts(codec, name, value));
      const fully = candidate.values
        .filter((values) => accepted(values).length === values.length)
        .sort((a, b) => b.length - a.length);
      const values = [...new Set([...(fully[0] ?? []), ...candidate.values.flatMap(accepted)])];
      if (values.length === 0) throw new Error(`${codec.name}.${name} accepts no known value`);
      return {
        type: 'string',
        enum: values,
        ...(fallback === undefined ? {} : { default: String(fallback) }),
      };
    }
  }
};

export const queryParametersOf = (codec: QueryCodecLike): QueryParameterDoc[] => {
  const decodedEmpty = codec.decode({});
  const defaults = (decodedEmpty._tag === 'Right' ? decodedEmpty.right : {}) as Readonly<
    Record<string, unknown>
  >;
  return Object.entries(queryParameterCandidates).flatMap(([name, candidate]) =>
    accepts(codec, name, refusedEverywhere)
      ? []
      : [
          {
            name,
            description: candidate.description,
            schema: schemaOf(codec, name, candidate, defaults[name]),
          },
        ],
  );
};
