/**
 * Reads what a PostgreSQL store really holds with its own SQL, never through the store's ports,
 * so the conformance suite checks the store against an independent path. Each read is a
 * statement of its own: it sees what is committed. The shape is the core's `StoreOracle` port.
 */
import type { Environment, OutboxMessage, Posting, StoreOracle, TimerRecord } from '@payrail/core';
import { internalsOf, type PostgresStore } from '../sql-store.js';
import { tableIn, tableLayoutOf } from '../table-layout.js';

/** The core's `StoreOracle`, by the name this store gives it. */
export type PostgresOracle = StoreOracle;

export const postgresOracle = (store: PostgresStore): PostgresOracle => {
  const { executor, schema } = internalsOf(store);
  const table = tableIn(schema);
  const countOf = async (name: string): Promise<number> => {
    const { rows } = await executor.query<{ n: number }>(
      `SELECT count(*) AS n FROM ${table(name)}`,
    );
    return rows[0]?.n ?? 0;
  };
  return {
    async record(collection, id) {
      const layout = tableLayoutOf(collection);
      if (layout.numericId && !/^-?[0-9]{1,18}$/.test(String(id))) return undefined;
      const { rows } = await executor.query<{ data: unknown }>(
        `SELECT data FROM ${table(layout.table)} WHERE id = $1`,
        [String(id)],
      );
      return rows[0]?.data;
    },
    count: (collection) => countOf(tableLayoutOf(collection).table),
    async postings() {
      const { rows } = await executor.query<Posting & { journal_id: string }>(
        `SELECT ledger_account AS "ledgerAccount", currency, amount, journal_id
           FROM ${table('ledger_postings')} ORDER BY journal_id, position`,
      );
      return rows;
    },
    async journalIds() {
      const { rows } = await executor.query<{ journal_id: string }>(
        `SELECT journal_id FROM ${table('ledger_journals')} ORDER BY journal_id`,
      );
      return rows.map((row) => row.journal_id);
    },
    async outbox() {
      const { rows } = await executor.query<OutboxMessage>(
        `SELECT outbox_id, event_id, account_id, business_type, business_id, event_type,
                destination, payload, status, attempts, available_at, created_at
           FROM ${table('outbox')} ORDER BY seq`,
      );
      return rows;
    },
    async timers() {
      const { rows } = await executor.query<TimerRecord>(
        `SELECT timer_id, name, business_type, business_id, account_id, due_at
           FROM ${table('timers')} ORDER BY timer_id`,
      );
      return rows;
    },
    idempotencyCount: () => countOf('idempotency_keys'),
    async environment() {
      const { rows } = await executor.query<{ environment: Environment }>(
        `SELECT environment FROM ${table('store_environment')}`,
      );
      return rows[0]?.environment;
    },
  };
};
