/**
 * One collection on its table, driven by its spec: the id and the copied columns carry the
 * constraints and the indexes, `data` carries the record itself (snapshots included) beside the
 * `version` column that optimistic concurrency checks.
 */
import {
  AppendOnlyCollection,
  type Collection,
  type ListQuery,
  type NewRecord,
  type Page,
  type RecordMeta,
  StoreFailure,
} from '@payrail/core';
import type { SqlValue } from './sql-executor.js';
import { type UnitContext, uniqueFailureOf } from './sql-unit-of-work.js';
import { quoteIdent, type TableLayout } from './table-layout.js';

export type StoredRecord = RecordMeta & { readonly [field: string]: unknown };

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

export const sqlCollection = (
  layout: TableLayout,
  context: UnitContext,
): Collection<StoredRecord> => {
  const { spec } = layout;
  const { session } = context;
  const table = context.table(layout.table);
  const columns = ['id', ...layout.columns, 'created_at', 'updated_at', 'version', 'data'];
  const columnList = columns.map(quoteIdent).join(', ');

  /** The id as its column holds it, or undefined when no record can have it. */
  const idParam = (id: unknown): SqlValue | undefined => {
    if (!layout.numericId) return String(id);
    if (typeof id === 'number') return Number.isSafeInteger(id) ? id : undefined;
    return typeof id === 'string' && integerLike.test(id) ? id : undefined;
  };

  const rowOf = (record: StoredRecord): SqlValue[] => {
    const id = idParam(record[spec.id]);
    if (id === undefined) throw new TypeError(`${spec.name}: ${spec.id} must be an integer`);
    return [
      id,
      ...layout.columns.map((column) => columnValue(record[column])),
      record.created_at,
      record.updated_at,
      record.version,
      JSON.stringify(record),
    ];
  };

  /** Rethrows a unique violation as the port's failure. */
  const refuse = (error: unknown): never => {
    throw uniqueFailureOf(error, spec, layout.uniqueIndexes) ?? error;
  };

  const selectOne = async (
    conditions: readonly string[],
    params: readonly SqlValue[],
  ): Promise<StoredRecord | undefined> => {
    const { rows } = await session.query<{ data: StoredRecord }>(
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
  const collisionOf = async (record: StoredRecord): Promise<StoreFailure> => {
    for (const fields of layout.uniqueIndexes.values()) {
      const values = fields.map((field) =>
        field === spec.id ? (idParam(record[field]) ?? null) : columnValue(record[field]),
      );
      if (values.includes(null)) continue;
      const conditions = fields.map(
        (field, i) => `${field === spec.id ? 'id' : quoteIdent(field)} = $${i + 1}`,
      );
      if ((await selectOne(conditions, values)) !== undefined) {
        return new StoreFailure('unique_violation', spec.name, fields);
      }
    }
    return new StoreFailure('unique_violation', spec.name);
  };

  return {
    /**
     * One statement: a taken key skips the row (`ON CONFLICT DO NOTHING`) instead of aborting
     * the transaction, so no savepoint is needed around it (two round trips fewer per insert).
     */
    insert: (input: NewRecord<StoredRecord>) =>
      context.run(async () => {
        const record = { ...input, version: 1 } as StoredRecord;
        const row = rowOf(record);
        const values = placeholders(row.length);
        values[values.length - 1] += '::jsonb';
        const { rows } = await session.query(
          `INSERT INTO ${table} (${columnList}) VALUES (${values.join(', ')})
            ON CONFLICT DO NOTHING RETURNING 1 AS inserted`,
          row,
        );
        if (rows.length === 0) throw await collisionOf(record);
        return JSON.parse(row[row.length - 1] as string) as StoredRecord;
      }),

    get: (id: string | number, scope?: string) =>
      context.run(async () => {
        const param = idParam(id);
        if (param === undefined) return undefined;
        if (scope === undefined || spec.scope === null) return selectOne(['id = $1'], [param]);
        return selectOne(['id = $1', `${quoteIdent(spec.scope)} = $2`], [param, scope]);
      }),

    findUnique: (key: Partial<StoredRecord>) =>
      context.run(async () => {
        const fields = Object.keys(key);
        const unique = spec.unique.find(
          (candidate) =>
            candidate.length === fields.length && candidate.every((f) => fields.includes(f)),
        );
        if (unique === undefined) {
          throw new Error(`${spec.name} has no unique key (${fields.join(', ')})`);
        }
        const values = unique.map((field) => columnValue(key[field]));
        // A null exempts a record from the key, so no record holds a key with a null in it.
        if (values.includes(null)) return undefined;
        return selectOne(
          unique.map((field, i) => `${quoteIdent(field)} = $${i + 1}`),
          values,
        );
      }),

    update: (input: StoredRecord) =>
      context.run(async () => {
        // The table's trigger refuses it too (migration 0007); this says so before a round trip.
        if (spec.appendOnly === true) throw new AppendOnlyCollection(spec.name);
        const record: StoredRecord = { ...input, version: input.version + 1 };
        const row = rowOf(record);
        const assignments = columns
          .slice(1)
          .map(
            (column, i) => `${quoteIdent(column)} = $${i + 2}${column === 'data' ? '::jsonb' : ''}`,
          );
        const { rows } = await context
          .savepoint(() =>
            session.query(
              `UPDATE ${table} SET ${assignments.join(', ')}
                WHERE id = $1 AND version = $${row.length + 1} RETURNING 1 AS updated`,
              [...row, input.version],
            ),
          )
          .catch(refuse);
        if (rows.length === 0) throw new StoreFailure('version_conflict', spec.name);
        return JSON.parse(row[row.length - 1] as string) as StoredRecord;
      }),

    list: (query: ListQuery<StoredRecord>) =>
      context.run(async (): Promise<Page<StoredRecord>> => {
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
        if (query.createdTo !== undefined)
          conditions.push(`created_at <= ${param(query.createdTo)}`);
        const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
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
      }),
  };
};
