/**
 * The DDL of one collection's table, in the layout of `table-layout.ts`: the id, the copied
 * columns, the record's metadata and `data`; a unique index per unique key; an index on
 * `created_at` and one per filter field, led by the scope. Released migrations are built with
 * it, so what it writes must never change: `migrations.test.ts` pins every migration's text.
 */

export interface CollectionTable {
  /** The collection's name in the core's specs (the comment names it). */
  readonly collection: string;
  readonly table: string;
  /** The record field the id column holds. */
  readonly id: string;
  /** The scope column, or null for a global collection. */
  readonly scope: string | null;
  /** The copied columns besides `id`, in table order. */
  readonly columns: readonly string[];
  /** Columns (possibly `id`) holding integers; every other copied column is TEXT. */
  readonly bigint?: readonly string[];
  /** The unique keys, each a unique index. */
  readonly unique?: readonly (readonly string[])[];
  /** The filter fields, in index order; default the copied columns. */
  readonly filters?: readonly string[];
}

const idColumn = (spec: CollectionTable): string =>
  spec.bigint?.includes('id') === true
    ? 'id BIGINT PRIMARY KEY'
    : 'id TEXT COLLATE "C" PRIMARY KEY';

const createTable = (spec: CollectionTable): string[] => [
  `CREATE TABLE ${spec.table} (`,
  `  ${idColumn(spec)},`,
  ...spec.columns.map(
    (column) => `  ${column} ${spec.bigint?.includes(column) === true ? 'BIGINT' : 'TEXT'},`,
  ),
  '  created_at BIGINT NOT NULL,',
  '  updated_at BIGINT NOT NULL,',
  '  version INTEGER NOT NULL,',
  '  data JSONB NOT NULL',
  ');',
];

const createUniqueIndex = (table: string, fields: readonly string[]): string =>
  `CREATE UNIQUE INDEX ${table}_${fields.join('_')}_key ON ${table} (${fields.join(', ')});`;

/** A filter's index, led by the scope (unless the filter is the scope itself). */
const createFilterIndex = (spec: CollectionTable, field: string): string => {
  const leading = spec.scope === null || spec.scope === field ? [field] : [spec.scope, field];
  return `CREATE INDEX ${spec.table}_${field}_idx ON ${spec.table} (${leading.join(', ')}, created_at, id);`;
};

/** The table's statements, one a line, headed by a comment naming its id and scope. */
export const collectionTable = (spec: CollectionTable): string =>
  [
    `-- ${spec.collection}: ${spec.id} is the id, ${spec.scope === null ? 'global' : `${spec.scope} the scope`}`,
    ...createTable(spec),
    ...(spec.unique ?? []).map((fields) => createUniqueIndex(spec.table, fields)),
    `CREATE INDEX ${spec.table}_created_idx ON ${spec.table} (created_at, id);`,
    ...(spec.filters ?? spec.columns).map((field) => createFilterIndex(spec, field)),
  ].join('\n');
