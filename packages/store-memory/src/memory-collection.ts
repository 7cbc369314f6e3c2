/**
 * One collection of the memory store, driven by its spec: the id, the scope a caller must match,
 * the unique keys (a null in any field exempts a record) and the fields a list may filter on.
 */
import {
  AppendOnlyCollection,
  type Collection,
  type ListQuery,
  type LooseCollectionSpec,
  type Page,
  type RecordMeta,
  StoreFailure,
} from '@payrail/core';
import { type CollectionState, compareIds, type StoredRecord } from './memory-state.js';
import type { UndoLog } from './undo-log.js';

/** The encoded values of a unique key, or undefined when a null exempts the record. */
const uniqueValueOf = (
  record: Readonly<Record<string, unknown>>,
  fields: readonly string[],
): string | undefined => {
  const values = fields.map((field) => record[field]);
  if (values.some((value) => value === null || value === undefined)) return undefined;
  return JSON.stringify(values);
};

const matchesWhere = (record: StoredRecord, where: Readonly<Record<string, unknown>>): boolean =>
  Object.entries(where).every(([field, value]) => value === undefined || record[field] === value);

/**
 * A record to insert: every field but `version`. (`NewRecord<StoredRecord>` would lose the
 * metadata fields, since `Omit` over an index signature keeps only the signature.)
 */
type NewStoredRecord = Omit<RecordMeta, 'version'> & { readonly [field: string]: unknown };

/** One collection's records as a unit of work reaches them. */
interface CollectionAccess {
  readonly spec: LooseCollectionSpec;
  readonly state: CollectionState;
  readonly undo: UndoLog;
}

const idOf = (spec: LooseCollectionSpec, record: StoredRecord): string => String(record[spec.id]);

/** The unique key of `record` that a record other than `self` holds, if any. */
const takenKey = (
  { spec, state }: CollectionAccess,
  record: StoredRecord,
  self: string | undefined,
): readonly string[] | undefined =>
  spec.unique.find((fields, i) => {
    const value = uniqueValueOf(record, fields);
    if (value === undefined) return false;
    const holder = state.uniques[i]?.get(value);
    return holder !== undefined && holder !== self;
  });

const reindex = (
  { spec, state, undo }: CollectionAccess,
  before: StoredRecord | undefined,
  after: StoredRecord,
): void => {
  spec.unique.forEach((fields, i) => {
    const index = state.uniques[i];
    if (index === undefined) return;
    const old = before === undefined ? undefined : uniqueValueOf(before, fields);
    const next = uniqueValueOf(after, fields);
    if (old === next) return;
    if (old !== undefined) undo.delete(index, old);
    if (next !== undefined) undo.set(index, next, idOf(spec, after));
  });
};

const visible = (
  spec: LooseCollectionSpec,
  record: StoredRecord,
  scope: string | undefined,
): boolean => scope === undefined || spec.scope === null || record[spec.scope] === scope;

/**
 * Stores `record` under `id` in place of `before` (none for an insert), unless another record
 * holds one of its unique keys; answers a copy.
 */
const writeRecord = (
  access: CollectionAccess,
  id: string,
  before: StoredRecord | undefined,
  record: StoredRecord,
): StoredRecord => {
  const { spec, state, undo } = access;
  const taken = takenKey(access, record, before === undefined ? undefined : id);
  if (taken !== undefined) throw new StoreFailure('unique_violation', spec.name, taken);
  undo.set(state.rows, id, record);
  reindex(access, before, record);
  return structuredClone(record);
};

const insertRecord = (access: CollectionAccess, input: NewStoredRecord): StoredRecord => {
  const { spec, state } = access;
  const record: StoredRecord = { ...structuredClone(input), version: 1 };
  const id = idOf(spec, record);
  if (state.rows.has(id)) throw new StoreFailure('unique_violation', spec.name, [spec.id]);
  return writeRecord(access, id, undefined, record);
};

const findUniqueRecord = (
  { spec, state }: CollectionAccess,
  key: Partial<StoredRecord>,
): StoredRecord | undefined => {
  const fields = Object.keys(key);
  const i = spec.unique.findIndex(
    (unique) => unique.length === fields.length && unique.every((f) => fields.includes(f)),
  );
  const unique = spec.unique[i];
  if (unique === undefined) {
    throw new Error(`${spec.name} has no unique key (${fields.join(', ')})`);
  }
  const value = uniqueValueOf(key, unique);
  const id = value === undefined ? undefined : state.uniques[i]?.get(value);
  const record = id === undefined ? undefined : state.rows.get(id);
  return record === undefined ? undefined : structuredClone(record);
};

const updateRecord = (access: CollectionAccess, input: StoredRecord): StoredRecord => {
  const { spec, state } = access;
  if (spec.appendOnly === true) throw new AppendOnlyCollection(spec.name);
  const id = idOf(spec, input);
  const stored = state.rows.get(id);
  if (stored === undefined || stored.version !== input.version) {
    throw new StoreFailure('version_conflict', spec.name);
  }
  const record: StoredRecord = { ...structuredClone(input), version: stored.version + 1 };
  return writeRecord(access, id, stored, record);
};

const listRecords = (
  { spec, state }: CollectionAccess,
  query: ListQuery<StoredRecord>,
): Page<StoredRecord> => {
  const where: Readonly<Record<string, unknown>> = query.where ?? {};
  for (const field of Object.keys(where)) {
    if (!spec.filters.includes(field)) {
      throw new Error(`${spec.name} cannot be filtered on ${field}`);
    }
  }
  const direction = query.sort === 'asc' ? 1 : -1;
  const matching = [...state.rows.values()]
    .filter(
      (record) =>
        visible(spec, record, query.scope) &&
        matchesWhere(record, where) &&
        (query.createdFrom === undefined || record.created_at >= query.createdFrom) &&
        (query.createdTo === undefined || record.created_at <= query.createdTo),
    )
    .sort(
      (a, b) => direction * (a.created_at - b.created_at || compareIds(a[spec.id], b[spec.id])),
    );
  return {
    items: matching.slice(query.offset, query.offset + query.limit).map((r) => structuredClone(r)),
    total: matching.length,
    limit: query.limit,
    offset: query.offset,
  };
};

export const memoryCollection = (
  spec: LooseCollectionSpec,
  state: CollectionState,
  undo: UndoLog,
  guard: () => void,
): Collection<StoredRecord> => {
  const access: CollectionAccess = { spec, state, undo };
  return {
    // `Collection.insert` is a method, so it takes the narrower input every caller gives.
    async insert(input: NewStoredRecord): Promise<StoredRecord> {
      guard();
      return insertRecord(access, input);
    },
    async get(id: string | number, scope?: string): Promise<StoredRecord | undefined> {
      guard();
      const record = state.rows.get(String(id));
      return record !== undefined && visible(spec, record, scope)
        ? structuredClone(record)
        : undefined;
    },
    async findUnique(key: Partial<StoredRecord>): Promise<StoredRecord | undefined> {
      guard();
      return findUniqueRecord(access, key);
    },
    async update(input: StoredRecord): Promise<StoredRecord> {
      guard();
      return updateRecord(access, input);
    },
    async list(query: ListQuery<StoredRecord>): Promise<Page<StoredRecord>> {
      guard();
      return listRecords(access, query);
    },
  };
};
