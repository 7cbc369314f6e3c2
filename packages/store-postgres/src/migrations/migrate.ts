/**
 * Applies the migrations a schema lacks, all in one transaction that first takes a transaction
 * advisory lock: a second process starting at the same moment waits on the lock, then finds the
 * migrations recorded and applies nothing. A failing migration leaves the schema as it was.
 * `migrationState` reads what a schema has without writing anything (`payrail migrate --check`).
 */
import type { SqlExecutor } from '../sql-executor.js';
import { quoteIdent } from '../table-layout.js';
import { init } from './0001-init.js';
import { ledgerPostingOrder } from './0002-ledger-posting-order.js';
import { deliveryBusinessObject } from './0003-delivery-business-object.js';
import { ledgerRecords } from './0004-ledger-records.js';
import { ledgerEntryCounts } from './0005-ledger-entry-counts.js';
import { storeEnvironment } from './0006-store-environment.js';
import { operatorsAndAudit } from './0007-operators-and-audit.js';
import { acquiringPaymentsMigration } from './0008-acquiring-payments.js';
import { acquiringRefundsMigration } from './0009-acquiring-refunds.js';
import { shardReady } from './0010-shard-ready.js';
import { acquiringPaymentClaims } from './0011-acquiring-payment-claims.js';
import type { Migration } from './migration.js';

export const migrations: readonly Migration[] = [
  init,
  ledgerPostingOrder,
  deliveryBusinessObject,
  ledgerRecords,
  ledgerEntryCounts,
  storeEnvironment,
  operatorsAndAudit,
  acquiringPaymentsMigration,
  acquiringRefundsMigration,
  shardReady,
  acquiringPaymentClaims,
];

/** The ids of this payrail's migrations, in the order they apply. */
export const migrationIds: readonly string[] = migrations.map((migration) => migration.id);

/** The advisory lock class of payrail's migrations (`payr` in ASCII); the schema picks the key. */
const migrationLockClass = 0x70617972;

/** Applies what `schema` lacks of `list`; answers the ids it applied. */
export const migrate = (
  executor: SqlExecutor,
  schema: string,
  list: readonly Migration[] = migrations,
): Promise<readonly string[]> =>
  executor.transaction(async (session) => {
    await session.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
      migrationLockClass,
      schema,
    ]);
    await session.exec(`
      CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)};
      SET LOCAL search_path TO ${quoteIdent(schema)};
      CREATE TABLE IF NOT EXISTS payrail_migrations (
        id TEXT PRIMARY KEY,
        applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `);
    const { rows } = await session.query<{ id: string }>('SELECT id FROM payrail_migrations');
    const applied = new Set(rows.map((row) => row.id));
    const ran: string[] = [];
    for (const migration of list) {
      if (applied.has(migration.id)) continue;
      await session.exec(migration.sql);
      await session.query('INSERT INTO payrail_migrations (id) VALUES ($1)', [migration.id]);
      ran.push(migration.id);
    }
    return ran;
  });

/** What a schema has of the migrations, read without writing anything. */
export interface MigrationState {
  /** Recorded in the schema and known here, in the order they apply. */
  readonly applied: readonly string[];
  /** Known here and not recorded: what `migrate` would apply, in order. */
  readonly pending: readonly string[];
  /** Recorded in the schema but not known here: a later payrail migrated it. */
  readonly unknown: readonly string[];
}

/** What `schema` has of `list`; a schema or a migrations table that does not exist has none. */
export const migrationState = async (
  executor: SqlExecutor,
  schema: string,
  list: readonly Migration[] = migrations,
): Promise<MigrationState> => {
  const table = `${quoteIdent(schema)}.payrail_migrations`;
  const { rows } = await executor.query<{ present: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS present',
    [table],
  );
  const recorded =
    rows[0]?.present === true
      ? (await executor.query<{ id: string }>(`SELECT id FROM ${table} ORDER BY id`)).rows.map(
          (row) => row.id,
        )
      : [];
  const known = new Set(list.map((migration) => migration.id));
  const done = new Set(recorded);
  return {
    applied: list.filter((migration) => done.has(migration.id)).map((migration) => migration.id),
    pending: list.filter((migration) => !done.has(migration.id)).map((migration) => migration.id),
    unknown: recorded.filter((id) => !known.has(id)),
  };
};
