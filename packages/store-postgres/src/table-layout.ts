/**
 * How the core's collection specs map onto tables: one table per collection, named as the spec,
 * with the id as primary key, a column for the scope and for every field of a unique key or a
 * filter, and the whole record as `data` JSONB. The migrations follow these names; a test checks
 * that the database and this layout agree.
 */
import { type CollectionName, collectionSpecs, type LooseCollectionSpec } from '@payrail/core';

export interface TableLayout {
  readonly collection: CollectionName;
  readonly spec: LooseCollectionSpec;
  /** Unqualified table name. */
  readonly table: string;
  /** The columns copied out of the record besides `id`: scope, unique key fields, filters. */
  readonly columns: readonly string[];
  /** Whether the id is a number (ordered by value, stored as BIGINT). */
  readonly numericId: boolean;
  /** Unique index (or primary key) name -> the record fields it guards. */
  readonly uniqueIndexes: ReadonlyMap<string, readonly string[]>;
  /**
   * The column naming the account a row belongs to, which every key of the table ends in
   * (migration 0010, ADR 0053): `account_id`; `null` for a reference table. A row whose account is null (an audit record of a platform object) is
   * filed under `platformAccount`.
   */
  readonly accountColumn: string | null;
  /**
   * A unique key kept across accounts by a reference table of its own instead of an index
   * (`deposit_addresses (network, address)`, `acquiring_payments`' payment id), claimed in the
   * same statement as the record.
   */
  readonly claimedKey?: ClaimedKey;
}

export interface ClaimedKey {
  readonly table: string;
  /** The key's fields: the claim table's primary key, in this order. */
  readonly fields: readonly string[];
  /**
   * The claim's column holding the record's id (beside `account_id`); absent when the claimed
   * key is the record's id itself (`acquiring_payment_claims`).
   */
  readonly idColumn?: string;
}

/**
 * The small, global tables (ADR 0053): copied whole to every node once the schema is
 * distributed. Catalogue and configuration, the operators, the API keys (looked up by their id
 * before the account is known), the merchants and their accounts (the directory every unit of
 * work reads, rarely written), the deposit address and acquiring payment claims, the environment and the migrations. Every other table is keyed by account (`shardKeyOf`).
 */
export const referenceTables: readonly string[] = [
  'merchants',
  'accounts',
  'api_keys',
  'payout_methods',
  'payout_networks',
  'payout_routes',
  'operators',
  'deposit_address_claims',
  'acquiring_payment_claims',
  'store_environment',
  'payrail_migrations',
];

/**
 * The columns every primary key and unique index of a table keyed by account must hold: the
 * account, and for the outbox and the timers also their work bucket, the column they are
 * distributed by. The idempotency keys are keyed by their scope, which names their owner (no
 * engine path writes them since issue 20).
 */
export const shardKeyOf = (table: string): readonly string[] => {
  if (table === 'idempotency_keys') return ['scope'];
  if (table === 'outbox' || table === 'timers') return ['account_id', 'bucket'];
  return ['account_id'];
};

/** The account of an account-keyed row whose record names none: no account has it. */
export const platformAccount = '';

const claimedKeys: { readonly [N in CollectionName]?: ClaimedKey } = {
  depositAddresses: {
    table: 'deposit_address_claims',
    fields: ['network', 'address'],
    idColumn: 'address_id',
  },
  // A provider's payment id binds one order of one account (migration 0011).
  acquiringPayments: { table: 'acquiring_payment_claims', fields: ['payment_id'] },
};

/** Columns holding integers; every other copied column is TEXT. */
export const bigintColumns: { readonly [N in CollectionName]?: readonly string[] } = {
  payoutMethods: ['id'],
  payoutRoutes: ['method_id'],
  beneficiaries: ['method_id'],
};

export const uniqueIndexName = (table: string, fields: readonly string[]): string =>
  `${table}_${fields.join('_')}_key`;

export const filterIndexName = (table: string, field: string): string => `${table}_${field}_idx`;

const layoutOf = (collection: CollectionName): TableLayout => {
  const spec: LooseCollectionSpec = collectionSpecs[collection];
  const copied = [spec.scope, ...spec.unique.flat(), ...spec.filters].filter(
    (field): field is string => field !== null && field !== spec.id,
  );
  const accountColumn = referenceTables.includes(spec.name)
    ? null
    : (shardKeyOf(spec.name)[0] ?? null);
  const keyed = (fields: readonly string[]): readonly string[] =>
    accountColumn === null || fields.includes(accountColumn) ? fields : [...fields, accountColumn];
  const claimedKey = claimedKeys[collection];
  return {
    collection,
    spec,
    table: spec.name,
    columns: [...new Set(copied)],
    numericId: bigintColumns[collection]?.includes('id') ?? false,
    uniqueIndexes: new Map([
      [`${spec.name}_pkey`, [spec.id]],
      ...spec.unique.map((fields) => [uniqueIndexName(spec.name, keyed(fields)), fields] as const),
    ]),
    accountColumn,
    ...(claimedKey === undefined ? {} : { claimedKey }),
  };
};

const isCollectionName = (name: string): name is CollectionName =>
  Object.hasOwn(collectionSpecs, name);

export const collectionNames: readonly CollectionName[] =
  Object.keys(collectionSpecs).filter(isCollectionName);

const tableLayouts: ReadonlyMap<CollectionName, TableLayout> = new Map(
  collectionNames.map((name) => [name, layoutOf(name)]),
);

/** The layout of a collection's table. */
export const tableLayoutOf = (collection: CollectionName): TableLayout =>
  tableLayouts.get(collection) ?? layoutOf(collection);

/** A double-quoted SQL identifier. */
export const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** Qualified table names for one schema. */
export const tableIn =
  (schema: string) =>
  (table: string): string =>
    `${quoteIdent(schema)}.${quoteIdent(table)}`;
