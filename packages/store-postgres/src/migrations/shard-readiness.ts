/**
 * The check that a schema is ready for shards (issue 23, ADR 0053), read from the catalogue of a
 * migrated schema: every table is a reference table (`referenceTables`) or is keyed by account,
 * meaning it has a primary key and its primary key and every unique index hold the table's
 * shard key columns (`shardKeyOf`). A table that is neither is named with what it lacks, so a
 * new table has to choose before it ships (`schema.test.ts`).
 */
import type { SqlExecutor } from '../sql-executor.js';
import { referenceTables, shardKeyOf } from '../table-layout.js';

interface KeyRow {
  readonly table_name: string;
  readonly index_name: string | null;
  readonly columns: string | null;
  readonly is_primary: boolean | null;
}

/** What keeps `table` from being distributed, one sentence each; none for a ready schema. */
export const shardReadinessViolations = async (
  executor: SqlExecutor,
  schema: string,
): Promise<readonly string[]> => {
  const { rows } = await executor.query<KeyRow>(
    `SELECT c.relname AS table_name, i.relname AS index_name, x.indisprimary AS is_primary,
            (SELECT string_agg(a.attname, ',' ORDER BY k.ord)
               FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k (attnum, ord)
               JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum) AS columns
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_index x ON x.indrelid = c.oid AND (x.indisunique OR x.indisprimary)
       LEFT JOIN pg_class i ON i.oid = x.indexrelid
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')
      ORDER BY c.relname, i.relname`,
    [schema],
  );
  const tables = [...new Set(rows.map((row) => row.table_name))];
  return tables.flatMap((table) => {
    if (referenceTables.includes(table)) return [];
    const keys = rows.filter((row) => row.table_name === table && row.index_name !== null);
    const shardKey = shardKeyOf(table);
    const violations = keys.flatMap((key) => {
      const columns = (key.columns ?? '').split(',');
      const missing = shardKey.filter((column) => !columns.includes(column));
      return missing.length === 0
        ? []
        : [`${table}: ${key.index_name} (${key.columns}) lacks ${missing.join(', ')}`];
    });
    const primary = keys.some((key) => key.is_primary === true);
    return primary ? violations : [`${table}: no primary key`, ...violations];
  });
};
