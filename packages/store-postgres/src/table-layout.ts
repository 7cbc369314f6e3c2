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
}

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
  return {
    collection,
    spec,
    table: spec.name,
    columns: [...new Set(copied)],
    numericId: bigintColumns[collection]?.includes('id') ?? false,
    uniqueIndexes: new Map([
      [`${spec.name}_pkey`, [spec.id]],
      ...spec.unique.map((fields) => [uniqueIndexName(spec.name, fields), fields] as const),
    ]),
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
