/**
 * The migrated schema against the core's collection specs: every list filter has an index that
 * starts with it (after the scope), every unique key is a unique index named as the layout says,
 * and no amount, no column at all, is a float.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteExecutor } from '../pglite.executor.js';
import type { SqlExecutor } from '../sql-executor.js';
import {
  bigintColumns,
  collectionNames,
  filterIndexName,
  referenceTables,
  tableLayoutOf,
  uniqueIndexName,
} from '../table-layout.js';
import { migrate } from './migrate.js';
import { shardReadinessViolations } from './shard-readiness.js';

const schema = 'payrail_schema_check';
let executor: SqlExecutor;

interface IndexRow {
  tablename: string;
  indexname: string;
  indexdef: string;
}

interface ColumnRow {
  table_name: string;
  column_name: string;
  data_type: string;
}

let indexes: readonly (IndexRow & { columns: readonly string[]; unique: boolean })[];
let columns: readonly ColumnRow[];

beforeAll(async () => {
  executor = pgliteExecutor(await PGlite.create(), { ownsDatabase: true });
  await migrate(executor, schema);
  const found = await executor.query<IndexRow>(
    'SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = $1',
    [schema],
  );
  indexes = found.rows.map((row) => ({
    ...row,
    unique: row.indexdef.startsWith('CREATE UNIQUE INDEX'),
    // `CREATE INDEX name ON schema.table USING btree (a, b, c) [WHERE ...]`
    columns: (/USING btree \(([^)]*)\)/.exec(row.indexdef)?.[1] ?? '')
      .split(',')
      .map((column) => column.trim().split(' ')[0] ?? ''),
  }));
  columns = (
    await executor.query<ColumnRow>(
      `SELECT table_name, column_name, data_type FROM information_schema.columns
        WHERE table_schema = $1`,
      [schema],
    )
  ).rows;
});

afterAll(() => executor.close());

const indexesOf = (table: string) => indexes.filter((index) => index.tablename === table);
const typeOf = (table: string, column: string) =>
  columns.find((c) => c.table_name === table && c.column_name === column)?.data_type;

describe('the migrated schema', () => {
  it.each(collectionNames)('%s: every filter field has an index led by (scope,) field', (name) => {
    const { spec, table } = tableLayoutOf(name);
    expect(spec.filters.length).toBeGreaterThan(0);
    for (const field of spec.filters) {
      const lead = spec.scope === null || spec.scope === field ? [field] : [spec.scope, field];
      const index = indexesOf(table).find((i) => i.indexname === filterIndexName(table, field));
      const led = indexesOf(table).filter((i) =>
        lead.every((column, position) => i.columns[position] === column),
      );
      expect(
        led.length,
        `${table}.${field} has an index led by ${lead.join(', ')}`,
      ).toBeGreaterThan(0);
      if (spec.scope !== field) expect(index?.columns.slice(0, lead.length)).toEqual(lead);
      expect(
        led.some((i) => i.columns.includes('created_at')),
        `${table}.${field} sorts`,
      ).toBe(true);
    }
  });

  it.each(collectionNames)(
    '%s: every unique key is a unique index on exactly its fields',
    (name) => {
      const { spec, table, accountColumn } = tableLayoutOf(name);
      // A table keyed by account ends every key in its account column (0010-shard-ready).
      const keyed = (fields: readonly string[]) =>
        accountColumn === null || fields.includes(accountColumn)
          ? fields
          : [...fields, accountColumn];
      for (const fields of spec.unique) {
        const index = indexesOf(table).find(
          (i) => i.indexname === uniqueIndexName(table, keyed(fields)),
        );
        expect(index?.unique).toBe(true);
        expect(index?.columns).toEqual(keyed(fields));
      }
      expect(indexesOf(table).find((i) => i.indexname === `${table}_pkey`)?.columns).toEqual(
        keyed(['id']),
      );
    },
  );

  it.each(collectionNames)(
    '%s: the record is JSONB beside its copied columns and version',
    (name) => {
      const layout = tableLayoutOf(name);
      expect(typeOf(layout.table, 'data')).toBe('jsonb');
      expect(typeOf(layout.table, 'version')).toBe('integer');
      expect(typeOf(layout.table, 'created_at')).toBe('bigint');
      expect(typeOf(layout.table, 'updated_at')).toBe('bigint');
      expect(typeOf(layout.table, 'id')).toBe(layout.numericId ? 'bigint' : 'text');
      for (const column of layout.columns) {
        const integer = bigintColumns[name]?.includes(column) ?? false;
        expect(typeOf(layout.table, column), `${layout.table}.${column}`).toBe(
          integer ? 'bigint' : 'text',
        );
      }
    },
  );

  it('ledger amounts are NUMERIC and no column anywhere is a float', () => {
    for (const table of [
      'ledger_journals',
      'ledger_postings',
      'ledger_balances',
      'ledger_entries',
    ]) {
      expect(typeOf(table, 'amount')).toBe('numeric');
    }
    expect(typeOf('ledger_entries', 'balance_after')).toBe('numeric');
    const floats = columns.filter((c) => /real|double|float/i.test(c.data_type));
    expect(floats).toEqual([]);
  });

  it('the ledger, outbox, timers and idempotency keys are indexed for their queries', () => {
    const leading = (table: string) => indexesOf(table).map((i) => i.columns.join(','));
    // The ledger list reads the records; a journal is only ever found by its id.
    expect(leading('ledger_journals')).toEqual(['journal_id,account_id']);
    expect(leading('ledger_entries')).toEqual(
      expect.arrayContaining([
        'journal_id,"position",account_id',
        'account_id,created_at,seq',
        'account_id,currency,created_at,seq',
        'account_id,record_type,created_at,seq',
      ]),
    );
    expect(leading('ledger_balances')).toContain('ledger_account,currency,account_id');
    expect(leading('outbox')).toEqual(
      expect.arrayContaining([
        'event_id,destination_key,account_id,bucket',
        'destination_key,business_type,business_id,created_at,seq',
        'created_at,seq',
        'bucket,created_at,seq',
      ]),
    );
    expect(leading('timers')).toEqual(
      expect.arrayContaining(['due_at,timer_id', 'bucket,due_at,timer_id']),
    );
    expect(leading('deposit_address_claims')).toEqual(
      expect.arrayContaining(['network,address', 'address_id']),
    );
    expect(leading('idempotency_keys')).toContain('scope,key');
  });
});

describe('ready for shards (0010-shard-ready, ADR 0053)', () => {
  it('every table is a reference table or keyed by account in its primary key and unique indexes', async () => {
    expect(await shardReadinessViolations(executor, schema)).toEqual([]);
    const tables = await executor.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1`,
      [schema],
    );
    const keyed = tables.rows
      .map((row) => row.table_name)
      .filter((t) => !referenceTables.includes(t));
    // The check ran over the account-keyed tables, not over nothing.
    expect(keyed).toEqual(
      expect.arrayContaining(['payouts', 'ledger_journals', 'outbox', 'timers']),
    );
    expect(referenceTables).toEqual(
      expect.arrayContaining(['deposit_address_claims', 'acquiring_payment_claims', 'operators']),
    );
  });

  it('names a new table that is neither, and a unique index that leaves the account out', async () => {
    const bad = 'payrail_schema_check_bad';
    await migrate(executor, bad);
    await executor.exec(`
      CREATE TABLE "${bad}".payout_notes (id TEXT PRIMARY KEY, account_id TEXT NOT NULL, note TEXT);
      CREATE TABLE "${bad}".heaps (account_id TEXT NOT NULL);
      CREATE UNIQUE INDEX payouts_reference_only_key ON "${bad}".payouts (reference);
      ALTER TABLE "${bad}".outbox ADD CONSTRAINT outbox_seq_key UNIQUE (seq, account_id);
    `);
    expect(await shardReadinessViolations(executor, bad)).toEqual([
      'heaps: no primary key',
      'outbox: outbox_seq_key (seq,account_id) lacks bucket',
      'payout_notes: payout_notes_pkey (id) lacks account_id',
      'payouts: payouts_reference_only_key (reference) lacks account_id',
    ]);
  });
});
