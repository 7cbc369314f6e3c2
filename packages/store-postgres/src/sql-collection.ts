/**
 * One collection on its table, driven by its spec: the id and the copied columns carry the
 * constraints and the indexes, `data` carries the record itself (snapshots included) beside the
 * `version` column that optimistic concurrency checks.
 */
import {
  AppendOnlyCollection,
  type Collection,
  type ListQuery,
  type Page,
  type RecordMeta,
  StoreFailure,
} from '@payrail/core';
import type { SqlValue } from './sql-executor.js';
import { type UnitContext, uniqueFailureOf } from './sql-unit-of-work.js';
import { type ClaimedKey, platformAccount, quoteIdent, type TableLayout } from './table-layout.js';

export type StoredRecord = RecordMeta & { readonly [field: string]: unknown };

/**
 * A record to insert: every field but `version`. (`NewRecord<StoredRecord>` would lose the
 * metadata fields, since `Omit` over an index signature keeps only the signature.)
 */
type NewStoredRecord = Omit<RecordMeta, 'version'> & { readonly [field: string]: unknown };

/** A record read back from its JSON text: an object carrying its metadata. */
const isStoredRecord = (value: unknown): value is StoredRecord =>
  typeof value === 'object' &&
  value !== null &&
  'version' in value &&
  typeof value.version === 'number' &&
  'created_at' in value &&
  typeof value.created_at === 'number' &&
  'updated_at' in value &&
  typeof value.updated_at === 'number';

const integerLike = /^-?[0-9]{1,18}$/;

/** A column value: scalars as they are, anything else (never expected) as JSON text. */
const columnValue = (value: unknown): SqlValue => {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return value;
  }
  return JSON.stringify(value);
};

/** `$1, $2, ...` for `count` parameters after `offset`. */
const placeholders = (count: number, offset = 0): string[] =>
  Array.from({ length: count }, (_, i) => `$${offset + i + 1}`);

/** One collection's table as a unit of work reaches it. */
interface CollectionTable {
  readonly layout: TableLayout;
  readonly context: UnitContext;
  /** The qualified table name. */
  readonly table: string;
  /** Every column, `id` first and `data` last. */
  readonly columns: readonly string[];
}

/** The id as its column holds it, or undefined when no record can have it. */
const idParam = (layout: TableLayout, id: unknown): SqlValue | undefined => {
  if (!layout.numericId) return String(id);
  if (typeof id === 'number') return Number.isSafeInteger(id) ? id : undefined;
  return typeof id === 'string' && integerLike.test(id) ? id : undefined;
};

/** The record's row, in `columns` order, and `data`, the JSON text its last column holds. */
const rowOf = (
  layout: TableLayout,
  record: StoredRecord,
): { readonly row: SqlValue[]; readonly data: string } => {
  const { spec } = layout;
  const id = idParam(layout, record[spec.id]);
  if (id === undefined) throw new TypeError(`${spec.name}: ${spec.id} must be an integer`);
  const data = JSON.stringify(record);
  const row = [
    id,
    ...layout.columns.map((column) =>
      column === layout.accountColumn
        ? (columnValue(record[column]) ?? platformAccount)
        : columnValue(record[column]),
    ),
    record.created_at,
    record.updated_at,
    record.version,
    data,
  ];
  return { row, data };
};

/** The record as the table holds it: a copy through its JSON text. */
const storedCopyOf = (layout: TableLayout, data: string): StoredRecord => {
  const copy: unknown = JSON.parse(data);
  if (!isStoredRecord(copy)) throw new TypeError(`${layout.spec.name}: not a record: ${data}`);
  return copy;
};

const selectOne = async (
  { context, table }: CollectionTable,
  conditions: readonly string[],
  params: readonly SqlValue[],
): Promise<StoredRecord | undefined> => {
  const { rows } = await context.session.query<{ data: StoredRecord }>(
    `SELECT data FROM ${table} WHERE ${conditions.join(' AND ')} LIMIT 1`,
    params,
  );
  return rows[0]?.data;
};

/**
 * The key of the table that `record` collides with, once `ON CONFLICT DO NOTHING` skipped its
 * insert. Each statement of a unit of work sees what committed before it, so the row the insert
 * met is there to be found (unless it was deleted since: then no fields are named).
 */
const collisionOf = async (
  target: CollectionTable,
  record: StoredRecord,
): Promise<StoreFailure> => {
  const { layout } = target;
  const { spec } = layout;
  for (const fields of layout.uniqueIndexes.values()) {
    const values = fields.map((field) =>
      field === spec.id ? (idParam(layout, record[field]) ?? null) : columnValue(record[field]),
    );
    if (values.includes(null)) continue;
    const conditions = fields.map(
      (field, i) => `${field === spec.id ? 'id' : quoteIdent(field)} = $${i + 1}`,
    );
    if ((await selectOne(target, conditions, values)) !== undefined) {
      return new StoreFailure('unique_violation', spec.name, fields);
    }
  }
  return new StoreFailure('unique_violation', spec.name);
};

/**
 * One statement: a taken key skips the row (`ON CONFLICT DO NOTHING`) instead of aborting the
 * transaction, so no savepoint is needed around it (two round trips fewer per insert).
 */
const insertRecord = async (
  target: CollectionTable,
  input: NewStoredRecord,
): Promise<StoredRecord> => {
  const { layout, context, table, columns } = target;
  const record: StoredRecord = { ...input, version: 1 };
  const { row, data } = rowOf(layout, record);
  const values = placeholders(row.length);
  values[values.length - 1] += '::jsonb';
  const claim = claimOf(target, record);
  const insert = `INSERT INTO ${table} (${columns.map(quoteIdent).join(', ')})`;
  // A claimed key is claimed in the same statement; a claim taken inserts no record.
  const { rows } =
    claim === undefined
      ? await context.session.query(
          `${insert} VALUES (${values.join(', ')}) ON CONFLICT DO NOTHING RETURNING 1 AS inserted`,
          row,
        )
      : await context.session.query(
          `WITH claimed AS (${claim.insert(row.length)} RETURNING 1)
           ${insert} SELECT ${values.join(', ')} WHERE EXISTS (SELECT 1 FROM claimed)
           ON CONFLICT DO NOTHING RETURNING 1 AS inserted`,
          [...row, ...claim.params],
        );
  if (rows.length === 0) throw await collisionOf(target, record);
  return storedCopyOf(layout, data);
};

/** A record's claim of its claimed key (none when the table has none or the key holds a null). */
interface Claim {
  readonly key: ClaimedKey;
  /** The key's values, then the account and the record's id. */
  readonly params: readonly SqlValue[];
  /** The claim's INSERT, its parameters numbered after `offset` others. */
  readonly insert: (offset: number) => string;
}

const claimOf = ({ layout, context }: CollectionTable, record: StoredRecord): Claim | undefined => {
  const key = layout.claimedKey;
  if (key === undefined || layout.accountColumn === null) return undefined;
  const values = key.fields.map((field) => columnValue(record[field]));
  if (values.includes(null)) return undefined;
  const account = columnValue(record[layout.accountColumn]) ?? platformAccount;
  const id = idParam(layout, record[layout.spec.id]) ?? null;
  const columns = [
    ...key.fields,
    'account_id',
    ...(key.idColumn === undefined ? [] : [key.idColumn]),
  ];
  return {
    key,
    params: [...values, account, ...(key.idColumn === undefined ? [] : [id])],
    insert: (offset) =>
      `INSERT INTO ${context.table(key.table)} (${columns.map(quoteIdent).join(', ')})
         VALUES (${placeholders(columns.length, offset).join(', ')}) ON CONFLICT DO NOTHING`,
  };
};

/**
 * Moves a record's claim to the key `record` holds once its row is updated (in the update's
 * savepoint): a key claimed for another record refuses the update; the key it held is freed.
 */
const moveClaim = async (target: CollectionTable, record: StoredRecord): Promise<void> => {
  const { layout, context } = target;
  const key = layout.claimedKey;
  // A claim of the record's id itself never moves: the id does not change.
  if (key?.idColumn === undefined) return;
  const idColumn = key.idColumn;
  const claims = context.table(key.table);
  const id = idParam(layout, record[layout.spec.id]) ?? null;
  const claim = claimOf(target, record);
  if (claim !== undefined) {
    const { rows } = await context.session.query<{ record_id: string }>(
      `WITH taken AS (${claim.insert(0)} RETURNING ${quoteIdent(idColumn)} AS record_id)
       SELECT record_id FROM taken
        UNION ALL
       SELECT ${quoteIdent(idColumn)} AS record_id FROM ${claims}
        WHERE ${key.fields.map((f, i) => `${quoteIdent(f)} = $${i + 1}`).join(' AND ')}`,
      claim.params,
    );
    if (!rows.some((row) => row.record_id === id)) {
      throw new StoreFailure('unique_violation', layout.spec.name, key.fields);
    }
  }
  const held = claim?.params.slice(0, key.fields.length) ?? [];
  await context.session.query(
    `DELETE FROM ${claims} WHERE ${quoteIdent(idColumn)} = $1
       ${held.length === 0 ? '' : `AND (${key.fields.map(quoteIdent).join(', ')}) <> (${placeholders(held.length, 1).join(', ')})`}`,
    [id, ...held],
  );
};

const getRecord = async (
  target: CollectionTable,
  id: string | number,
  scope: string | undefined,
): Promise<StoredRecord | undefined> => {
  const { spec } = target.layout;
  const param = idParam(target.layout, id);
  if (param === undefined) return undefined;
  if (scope === undefined || spec.scope === null) return selectOne(target, ['id = $1'], [param]);
  return selectOne(target, ['id = $1', `${quoteIdent(spec.scope)} = $2`], [param, scope]);
};

const findUniqueRecord = async (
  target: CollectionTable,
  key: Partial<StoredRecord>,
): Promise<StoredRecord | undefined> => {
  const { spec } = target.layout;
  const fields = Object.keys(key);
  const unique = spec.unique.find(
    (candidate) => candidate.length === fields.length && candidate.every((f) => fields.includes(f)),
  );
  if (unique === undefined) {
    throw new Error(`${spec.name} has no unique key (${fields.join(', ')})`);
  }
  const values = unique.map((field) => columnValue(key[field]));
  // A null exempts a record from the key, so no record holds a key with a null in it.
  if (values.includes(null)) return undefined;
  return selectOne(
    target,
    unique.map((field, i) => `${quoteIdent(field)} = $${i + 1}`),
    values,
  );
};

const updateRecord = async (
  target: CollectionTable,
  input: StoredRecord,
): Promise<StoredRecord> => {
  const { layout, context, table, columns } = target;
  const { spec } = layout;
  // The audit trail's trigger refuses it too (migration 0007); this says so before a round trip.
  if (spec.appendOnly === true) throw new AppendOnlyCollection(spec.name);
  const record: StoredRecord = { ...input, version: input.version + 1 };
  const { row, data } = rowOf(layout, record);
  const assignments = columns
    .slice(1)
    .map((column, i) => `${quoteIdent(column)} = $${i + 2}${column === 'data' ? '::jsonb' : ''}`);
  // The account is part of every key (ADR 0053): the row is found by it, on one shard.
  const account = layout.accountColumn === null ? -1 : columns.indexOf(layout.accountColumn);
  const byAccount =
    account < 0 ? '' : ` AND ${quoteIdent(columns[account] ?? '')} = $${account + 1}`;
  const { rows } = await context
    .savepoint(async () => {
      const updated = await context.session.query(
        `UPDATE ${table} SET ${assignments.join(', ')}
          WHERE id = $1${byAccount} AND version = $${row.length + 1} RETURNING 1 AS updated`,
        [...row, input.version],
      );
      if (updated.rows.length > 0) await moveClaim(target, record);
      return updated;
    })
    .catch((error: unknown) => {
      // A unique violation is the port's failure.
      throw uniqueFailureOf(error, spec, layout.uniqueIndexes) ?? error;
    });
  if (rows.length === 0) throw new StoreFailure('version_conflict', spec.name);
  return storedCopyOf(layout, data);
};

/** The list's `WHERE` clause (empty without conditions) and its parameters. */
const listConditionsOf = (
  { spec }: TableLayout,
  query: ListQuery<StoredRecord>,
): { where: string; params: SqlValue[] } => {
  const conditions: string[] = [];
  const params: SqlValue[] = [];
  const param = (value: SqlValue): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (query.scope !== undefined && spec.scope !== null) {
    conditions.push(`${quoteIdent(spec.scope)} = ${param(query.scope)}`);
  }
  for (const [field, value] of Object.entries(query.where ?? {})) {
    if (!spec.filters.includes(field)) {
      throw new Error(`${spec.name} cannot be filtered on ${field}`);
    }
    if (value === undefined) continue;
    conditions.push(
      value === null
        ? `${quoteIdent(field)} IS NULL`
        : `${quoteIdent(field)} = ${param(columnValue(value))}`,
    );
  }
  if (query.createdFrom !== undefined) {
    conditions.push(`created_at >= ${param(query.createdFrom)}`);
  }
  if (query.createdTo !== undefined) conditions.push(`created_at <= ${param(query.createdTo)}`);
  return { where: conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`, params };
};

const listRecords = async (
  { layout, context, table }: CollectionTable,
  query: ListQuery<StoredRecord>,
): Promise<Page<StoredRecord>> => {
  const { session } = context;
  const { where, params } = listConditionsOf(layout, query);
  const direction = query.sort === 'asc' ? 'ASC' : 'DESC';
  const n = params.length;
  // The total rides on every row of the page (one round trip); only an empty page past the
  // end (or of limit 0) has no row to carry it, and then it is counted on its own.
  const page = await session.query<{ data: StoredRecord; total: number }>(
    `SELECT data, count(*) OVER () AS total FROM ${table} ${where}
      ORDER BY created_at ${direction}, id ${direction}
      LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...params, Math.max(0, query.limit), Math.max(0, query.offset)],
  );
  const first = page.rows[0];
  const total =
    first !== undefined
      ? first.total
      : query.offset <= 0 && query.limit > 0
        ? 0
        : ((
            await session.query<{ total: number }>(
              `SELECT count(*) AS total FROM ${table} ${where}`,
              params,
            )
          ).rows[0]?.total ?? 0);
  return {
    items: page.rows.map((row) => row.data),
    total,
    limit: query.limit,
    offset: query.offset,
  };
};

export const sqlCollection = (
  layout: TableLayout,
  context: UnitContext,
): Collection<StoredRecord> => {
  const target: CollectionTable = {
    layout,
    context,
    table: context.table(layout.table),
    columns: ['id', ...layout.columns, 'created_at', 'updated_at', 'version', 'data'],
  };
  return {
    // `Collection.insert` is a method, so it takes the narrower input every caller gives.
    insert: (input: NewStoredRecord) => context.run(() => insertRecord(target, input)),
    get: (id: string | number, scope?: string) => context.read(() => getRecord(target, id, scope)),
    findUnique: (key: Partial<StoredRecord>) => context.read(() => findUniqueRecord(target, key)),
    update: (input: StoredRecord) => context.run(() => updateRecord(target, input)),
    list: (query: ListQuery<StoredRecord>) => context.read(() => listRecords(target, query)),
  };
};
