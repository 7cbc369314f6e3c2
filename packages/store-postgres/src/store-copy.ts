/**
 * Moves everything one store holds into another, empty one of the same migrations: how a data
 * directory written by the PGlite store moves into the embedded PostgreSQL (`payrail store
 * migrate`, ADR 0037). Rows travel as JSON (exact for numeric, jsonb, timestamps and bytea), the
 * target is written in one transaction, and the copy is checked table by table before it commits.
 */
import type { SqlSession } from './sql-executor.js';
import { internalsOf, type PostgresStore } from './sql-store.js';
import { quoteIdent } from './table-layout.js';

export interface CopiedTable {
  readonly table: string;
  readonly rows: number;
}

/** Rows per INSERT: a parameter of a few MB at most for payrail's records. */
const batchSize = 500;

const migrationsOf = async (session: SqlSession, schema: string): Promise<string> => {
  const { rows } = await session.query<{ id: string }>(
    `SELECT id FROM ${quoteIdent(schema)}.payrail_migrations ORDER BY id`,
  );
  return rows.map((row) => row.id).join(',');
};

const tablesOf = async (session: SqlSession, schema: string): Promise<readonly string[]> => {
  const { rows } = await session.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name <> 'payrail_migrations'
      ORDER BY table_name`,
    [schema],
  );
  return rows.map((row) => row.name);
};

const countOf = async (session: SqlSession, qualified: string): Promise<number> => {
  const { rows } = await session.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${qualified}`,
  );
  return rows[0]?.n ?? 0;
};

/** Identity columns continue after the highest value copied. */
const continueIdentities = async (session: SqlSession, schema: string, table: string) => {
  const { rows } = await session.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = $1 AND table_name = $2 AND is_identity = 'YES'`,
    [schema, table],
  );
  const qualified = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  for (const { column_name: column } of rows) {
    await session.query(
      `SELECT setval(pg_get_serial_sequence($1, $2), max(${quoteIdent(column)}))
         FROM ${qualified} HAVING max(${quoteIdent(column)}) IS NOT NULL`,
      [qualified, column],
    );
  }
};

/**
 * Copies every table of `from` into `to`, which must be empty and at the same migrations.
 * Answers the rows copied per table; throws, committing nothing, on any difference.
 */
export const copyStore = async (
  from: PostgresStore,
  to: PostgresStore,
): Promise<readonly CopiedTable[]> => {
  const source = internalsOf(from);
  const target = internalsOf(to);
  const [fromMigrations, toMigrations] = [
    await migrationsOf(source.executor, source.schema),
    await migrationsOf(target.executor, target.schema),
  ];
  if (fromMigrations !== toMigrations) {
    throw new Error(
      `the stores are at different migrations (${fromMigrations} and ${toMigrations})`,
    );
  }
  const tables = await tablesOf(source.executor, source.schema);
  return target.executor.transaction(async (session) => {
    // Rows arrive table by table, not in the order their foreign keys would want.
    await session.exec('SET LOCAL session_replication_role = replica');
    const copied: CopiedTable[] = [];
    for (const table of tables) {
      const from = `${quoteIdent(source.schema)}.${quoteIdent(table)}`;
      const into = `${quoteIdent(target.schema)}.${quoteIdent(table)}`;
      if ((await countOf(session, into)) !== 0) {
        throw new Error(`the target store already holds rows in ${table}: it must be empty`);
      }
      const { rows } = await source.executor.query<{ row: string }>(
        `SELECT row_to_json(t)::text AS row FROM ${from} t`,
      );
      for (let start = 0; start < rows.length; start += batchSize) {
        const batch = rows.slice(start, start + batchSize).map((r) => r.row);
        await session.query(
          `INSERT INTO ${into} OVERRIDING SYSTEM VALUE
           SELECT * FROM json_populate_recordset(NULL::${into}, $1::json)`,
          [`[${batch.join(',')}]`],
        );
      }
      await continueIdentities(session, target.schema, table);
      const landed = await countOf(session, into);
      if (landed !== rows.length) {
        throw new Error(`${table}: ${rows.length} rows read, ${landed} written`);
      }
      copied.push({ table, rows: landed });
    }
    return copied;
  });
};
